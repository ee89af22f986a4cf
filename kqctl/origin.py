"""Where an object came from, so every finding and error can point at a file and line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    """A location in the inputs: file (or ``<stdin>``), 0-based document index, 1-based line.

    ``item`` is the 0-based position inside a ``kind: List`` document, ``None`` otherwise.
    """

    file: str
    index: int
    line: int
    item: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


FieldPath = tuple[str | int, ...]


def format_path(path: FieldPath) -> str:
    """Render a field path the way Kubernetes field errors do: ``spec.podSets[0].template``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif not out:
            out.append(part)
        elif _is_plain_field(part):
            out.append(f".{part}")
        else:
            out.append(f"[{part}]")
    return "".join(out)


def _is_plain_field(name: str) -> bool:
    # Map keys such as label keys (``kueue.x-k8s.io/queue-name``) or resource names
    # (``nvidia.com/gpu``) are shown in brackets, as Kubernetes does for map entries.
    return name.replace("_", "a").isalnum() and not name[:1].isdigit()
