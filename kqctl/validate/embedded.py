"""Lines of a text embedded in a manifest (a ConfigMap value holding a YAML file): a finding inside the text is
moved to the line of the manifest's file, for every scheduler whose configuration lives in a ConfigMap."""

from __future__ import annotations

from collections.abc import Sequence

import yaml

from kqctl.load.objects import LoadedObject


class EmbeddedLines:
    """Moves a line inside the text at ``place`` (a path in the object, e.g. ``("data", "queues.yaml")``) to the
    line of the object's file: only a literal block (``|``) keeps the text's lines one for one (its first line
    follows the indicator's); any other style, or a finding without a line, points at the key."""

    def __init__(self, obj: LoadedObject, place: Sequence[str | int]) -> None:
        at_hand = obj.document.body is not None  # a parallel run sends a bare copy: the runner looks the line up
        self.key_line = obj.line_of(tuple(place)) if at_hand else None
        tree = obj.document.tree() if at_hand else None
        node = node_at(tree, (*obj.prefix, *place)) if tree is not None else None
        self.start = node.start_mark.line + 1 if isinstance(node, yaml.ScalarNode) and node.style == "|" else None

    def line(self, inner: int | None) -> int | None:
        if inner is None or self.start is None:
            return self.key_line
        return self.start + inner


def node_at(node: yaml.Node | None, path: Sequence[str | int]) -> yaml.Node | None:
    """The YAML node at ``path`` (mapping keys, sequence indexes), None when there is none."""
    current = node
    for part in path:
        if isinstance(current, yaml.MappingNode):
            current = next((v for k, v in current.value if isinstance(k, yaml.ScalarNode) and k.value == str(part)),
                           None)
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(current.value):
            current = current.value[part]
        else:
            return None
    return current
