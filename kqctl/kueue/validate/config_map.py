"""Kueue's manager Configuration as it is deployed: the text of the key ``controller_manager_config.yaml`` of a
ConfigMap (``kueue-manager-config`` in ``kueue-system`` from Kueue's kustomize config, ``<release>-manager-config``
from its Helm chart), which the manager reads as its ``--config`` file.

The text is read as the manager reads the file (the first YAML document, kubectl's typing) and gets every check a
bare Configuration file gets (VAL-CFG-*). Each finding names the ConfigMap and is located in the ConfigMap's file:
at the offending line inside the embedded text when it is a literal block (``|``, how Kueue's manifests and most
GitOps repositories write it: its lines are the file's lines one for one), else at the key's line. A text the
manager cannot read at all (not YAML, not one mapping, not a Configuration of a version it serves) is VAL-CFG-18.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from kqctl.errors import InputError
from kqctl.findings import Finding, error
from kqctl.kueue.kinds import CONFIG_GROUP, MANAGER_CONFIG_KEY, MANAGER_CONFIG_MAP
from kqctl.load.documents import Document, parse_documents
from kqctl.load.objects import LoadedObject
from kqctl.origin import FieldPath
from kqctl.validate.embedded import EmbeddedLines

UNREADABLE = "VAL-CFG-18"
_VERSIONS = ("v1beta2", "v1beta1")
_PLACE = ("data", MANAGER_CONFIG_KEY)


def is_config_map(obj: LoadedObject) -> bool:
    """Whether ``obj`` is a ConfigMap kqctl recognised as holding Kueue's manager Configuration."""
    return obj.info == MANAGER_CONFIG_MAP  # == not is: a parallel run sends objects over pickled


@dataclasses.dataclass(frozen=True)
class Embedded:
    """The embedded text read: the Configuration (None when the manager could not read it), the parsed document
    (for lines inside the text) and the problems of reading it (paths relative to the text, lines inside it)."""

    body: dict[str, Any] | None
    document: Document | None
    problems: tuple[Finding, ...]


@functools.lru_cache(maxsize=16)
def read_text(text: str) -> Embedded:
    """The manager's reading of the text (cached: validate, the gate and the loader all read the same text)."""
    try:
        documents = [d for d in parse_documents(text, MANAGER_CONFIG_KEY) if d.body is not None]
    except InputError as exc:
        return Embedded(None, None, (dataclasses.replace(
            error(UNREADABLE, (), f"not YAML Kueue's manager can read: {exc.detail}",
                  "the value must be the text of one Configuration document"), line=exc.line),))
    if not documents:
        return Embedded(None, None, (error(UNREADABLE, (), "empty: Kueue's manager needs a Configuration here "
                                           "(it fails to start: Object 'Kind' is missing)"),))
    document = documents[0]  # the manager decodes the first YAML document only
    body = document.body
    if not isinstance(body, dict):
        return Embedded(None, document, (_at(document, (), f"a {type(body).__name__}, not a Configuration mapping "
                                                        "(apiVersion, kind and its fields)"),))
    duplicates = tuple(_at(document, path, f'duplicate field "{path[-1]}" (Kueue\'s manager decodes its '
                                           "Configuration strictly)", "SCHEMA-DUPLICATE-FIELD")
                       for path in document.duplicate_keys)
    api_version, kind = body.get("apiVersion"), body.get("kind")
    served = [f"{CONFIG_GROUP}/{version}" for version in _VERSIONS]
    if kind != "Configuration":
        return Embedded(None, document, (*duplicates, _at(document, ("kind",) if "kind" in body else (),
                                                          f"kind is {kind!r}, not Configuration")))
    if api_version not in served:
        return Embedded(None, document, (*duplicates, _at(
            document, ("apiVersion",) if "apiVersion" in body else (),
            f"apiVersion is {api_version!r}: Kueue's manager reads {' or '.join(served)}")))
    return Embedded(body, document, duplicates)


def _at(document: Document, path: FieldPath, message: str, rule: str = UNREADABLE) -> Finding:
    return dataclasses.replace(error(rule, path, message), line=document.line_of(path))


def embedded(obj: LoadedObject) -> Embedded | None:
    """The reading of the ConfigMap's key, None when its value is no string (the ConfigMap's schema says so)."""
    data = obj.body.get("data") if isinstance(obj.body, dict) else None
    value = data.get(MANAGER_CONFIG_KEY) if isinstance(data, dict) else None
    return read_text(value) if isinstance(value, str) else None


def configuration(obj: LoadedObject) -> dict[str, Any] | None:
    """The Configuration the ConfigMap holds, None when the manager cannot read it."""
    found = embedded(obj)
    return found.body if found is not None else None


def findings(obj: LoadedObject, release: str | None = None) -> list[Finding]:
    """Every finding of the embedded Configuration (``release``: as check_configuration takes it), located in the
    ConfigMap's file under ``data.controller_manager_config.yaml``."""
    found = embedded(obj)
    if found is None:
        return []
    inner = list(found.problems)
    if found.body is not None and not inner:
        from kqctl.kueue.validate.configuration import check_configuration

        inner = [dataclasses.replace(f, line=f.line if f.line is not None or found.document is None
                                     else found.document.line_of(f.path))
                 for f in check_configuration(found.body, release)]
    place = EmbeddedLines(obj, _PLACE)
    return [dataclasses.replace(f, path=(*_PLACE, *f.path), line=place.line(f.line)) for f in inner]
