#!/usr/bin/env python3
"""Regenerate ``schemas/*.json``: kqctl's JSON Schemas for every kind it validates.

Inputs:
* the Kueue CustomResourceDefinitions (default ``upstream/kueue-crds`` in the repo
  root): one schema per served version, Kubernetes extensions translated to plain JSON Schema plus
  two kqctl keywords (see ``translate_crd_schema``);
* the other schedulers' CRDs, always from their own folders (``upstream/volcano-crds``: Queue,
  PodGroup, batch Job), translated the same way;
* the kubernetes python client's model classes for the core kinds kqctl reads (Namespace,
  PriorityClass, LimitRange, Job, Pod, Node) and for ``ObjectMeta``.

Usage: ``python scripts/generate_schemas.py [CRD_DIR] [--out DIR]``. The output is deterministic
(sorted keys, fixed indentation) so that CI can regenerate into a temporary directory and compare.
The result depends on the kubernetes client version for the core kinds: regenerate after upgrading it.

Released versions (``validate --kueue-version`` and ``--volcano-version``): each is kept in ``upstream/`` as the
``git diff`` of its CRD folder from the reference commit (``upstream/<scheduler>-releases/<tag>.diff``, a few KB
where a copy would be 1.6 MB), applied with ``git apply`` to a copy of the reference CRDs; its schemas are written
as JSON patches (RFC 6902: add, remove, replace) against the reference schemas, one file per release in
``<out>/releases/<scheduler>-<tag>.json``, so identical schemas are stored once.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CRD_DIR = REPO_ROOT / "upstream" / "kueue-crds"
# Other schedulers' CRDs: like the core kinds, they do not depend on the CRD directory given.
SCHEDULER_CRD_DIRS = (REPO_ROOT / "upstream" / "volcano-crds",)
DEFAULT_OUT_DIR = REPO_ROOT / "schemas"

JSON_SCHEMA_DIALECT = "http://json-schema.org/draft-07/schema#"

# Keywords understood by kqctl's validator that plain JSON Schema does not know.
LIST_MAP_KEYS = "x-kqctl-list-map-keys"  # x-kubernetes-list-type: map -> uniqueness of these keys
CEL_RULES = "x-kubernetes-validations"  # kept verbatim (selected keys) for the CEL step

INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
}

# The quantity pattern Kueue's CRDs use for every int-or-string quantity (QPAT in the design doc).
QUANTITY_PATTERN = (
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
    r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)

# Plain JSON-Schema keywords copied from the CRD schemas as they are.
_COPIED_KEYWORDS = (
    "type",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "required",
    "default",
)
_CEL_RULE_KEYS = ("rule", "message", "messageExpression", "reason", "fieldPath", "optionalOldSelf")

OBJECT_META_REF = {"$ref": "#/definitions/V1ObjectMeta"}


# --------------------------------------------------------------------------------------------
# CRD schemas
# --------------------------------------------------------------------------------------------


def translate_crd_schema(node: dict[str, Any]) -> dict[str, Any]:
    """Translate one OpenAPI v3 (structural) schema node into kqctl's JSON Schema dialect."""
    out: dict[str, Any] = {k: node[k] for k in _COPIED_KEYWORDS if k in node}
    if node.get("x-kubernetes-int-or-string"):
        _translate_int_or_string(node, out)
    _translate_format(node, out)
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    if "properties" in node:
        out["properties"] = {k: translate_crd_schema(v) for k, v in node["properties"].items()}
    additional = node.get("additionalProperties")
    if isinstance(additional, dict):
        out["additionalProperties"] = translate_crd_schema(additional)
    elif node.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = True
    elif "properties" in node:
        # Strict field validation (kubectl's default): a field the schema does not declare is an error.
        out["additionalProperties"] = False
    if "items" in node:
        out["items"] = translate_crd_schema(node["items"])
    _translate_list_type(node, out)
    for combinator in ("allOf", "oneOf"):
        if combinator in node:
            out[combinator] = [translate_crd_schema(x) for x in node[combinator]]
    if "anyOf" in node and not node.get("x-kubernetes-int-or-string"):
        out["anyOf"] = [translate_crd_schema(x) for x in node["anyOf"]]
    if CEL_RULES in node:
        out[CEL_RULES] = [{k: rule[k] for k in _CEL_RULE_KEYS if k in rule} for rule in node[CEL_RULES]]
    return out


def _translate_int_or_string(node: dict[str, Any], out: dict[str, Any]) -> None:
    # The pattern only constrains the string branch; an integer is always a valid quantity.
    string_branch: dict[str, Any] = {"type": "string"}
    if "pattern" in out:
        string_branch["pattern"] = out.pop("pattern")
    out.pop("type", None)
    out["anyOf"] = [{"type": "integer"}, string_branch]


def _translate_format(node: dict[str, Any], out: dict[str, Any]) -> None:
    fmt = node.get("format")
    if fmt in INT_RANGES:
        low, high = INT_RANGES[fmt]
        out["minimum"] = max(low, out.get("minimum", low))
        out["maximum"] = min(high, out.get("maximum", high))
    elif fmt is not None:
        out["format"] = fmt


def _translate_list_type(node: dict[str, Any], out: dict[str, Any]) -> None:
    list_type = node.get("x-kubernetes-list-type")
    if list_type == "map":
        out[LIST_MAP_KEYS] = list(node.get("x-kubernetes-list-map-keys", []))
    elif list_type == "set":
        out["uniqueItems"] = True


def crd_documents(crd_dir: Path) -> Iterator[dict[str, Any]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the Workload CRD is 1.4 MB
    for path in sorted(crd_dir.glob("*.yaml")):
        with path.open(encoding="utf-8") as fh:
            for doc in yaml.load_all(fh, Loader=loader):
                if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                    yield doc


def crd_version_schemas(crd: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """Yield (group, version, kind, translated root schema) for every served version of a CRD."""
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    for version in spec["versions"]:
        if not version.get("served", True):
            continue
        root = translate_crd_schema(version["schema"]["openAPIV3Schema"])
        # CRD schemas may only say ``metadata: {type: object}``; the API server validates ObjectMeta.
        root.setdefault("properties", {})["metadata"] = dict(OBJECT_META_REF)
        root["definitions"] = object_meta_definitions()
        yield group, version["name"], kind, root


# --------------------------------------------------------------------------------------------
# Core kinds, from the kubernetes python client's models
# --------------------------------------------------------------------------------------------

CORE_KINDS = (
    ("", "v1", "Namespace", "V1Namespace"),
    ("scheduling.k8s.io", "v1", "PriorityClass", "V1PriorityClass"),
    ("", "v1", "LimitRange", "V1LimitRange"),
    ("batch", "v1", "Job", "V1Job"),
    ("", "v1", "Pod", "V1Pod"),
    ("", "v1", "Node", "V1Node"),  # Volcano's node fit and Kueue's topology read nodes
    ("", "v1", "ConfigMap", "V1ConfigMap"),  # YuniKorn's two ConfigMaps (yunikorn-defaults, yunikorn-configs)
)

# Quantity-typed fields: the client types them ``str``/``dict(str, str)``, but the API server parses a
# JSON number as well as a string there (QTY-1), so accept both; strings must look like quantities.
_QUANTITY_MAPS = {
    ("V1ResourceRequirements", "limits"),
    ("V1ResourceRequirements", "requests"),
    ("V1VolumeResourceRequirements", "limits"),
    ("V1VolumeResourceRequirements", "requests"),
    ("V1PodSpec", "overhead"),
    ("V1PodStatus", "allocated_resources"),
    ("V1ContainerStatus", "allocated_resources"),
    ("V1LimitRangeItem", "default"),
    ("V1LimitRangeItem", "default_request"),
    ("V1LimitRangeItem", "max"),
    ("V1LimitRangeItem", "min"),
    ("V1LimitRangeItem", "max_limit_request_ratio"),
    ("V1ResourceQuotaSpec", "hard"),
    ("V1ResourceQuotaStatus", "hard"),
    ("V1ResourceQuotaStatus", "used"),
    ("V1NodeStatus", "allocatable"),  # what Volcano's and Kueue's snapshots read of a node
    ("V1NodeStatus", "capacity"),
}
_QUANTITY_SCALARS = {
    ("V1EmptyDirVolumeSource", "size_limit"),
    ("V1ResourceFieldSelector", "divisor"),
    ("V1NodeAllocatableMappedResources", "quantity"),
}
# ``object`` in the client is IntOrString for these fields and free-form JSON elsewhere.
_INT_OR_STRING_FIELDS = {
    ("V1HTTPGetAction", "port"),
    ("V1TCPSocketAction", "port"),
}

_PRIMITIVES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer", "minimum": INT_RANGES["int64"][0], "maximum": INT_RANGES["int64"][1]},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "bytes": {"type": "string", "format": "byte"},  # base64 in JSON (ConfigMap binaryData)
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "object": {"type": "object"},
}
_LIST_RE = re.compile(r"^List\[(.+)\]$")
_DICT_RE = re.compile(r"^Dict\[str, (.+)\]$")


def quantity_schema() -> dict[str, Any]:
    return {"anyOf": [{"type": "number"}, {"type": "string", "pattern": QUANTITY_PATTERN}]}


class ModelSchemas:
    """Builds ``definitions`` for kubernetes client model classes, one entry per class."""

    def __init__(self) -> None:
        self.definitions: dict[str, dict[str, Any]] = {}

    def ref(self, model_name: str) -> dict[str, Any]:
        if model_name not in self.definitions:
            self.definitions[model_name] = {}  # placeholder first: models may refer to themselves
            self.definitions[model_name] = self._model(model_name)
        return {"$ref": f"#/definitions/{model_name}"}

    def _model(self, model_name: str) -> dict[str, Any]:
        import kubernetes.client

        cls = getattr(kubernetes.client, model_name)
        properties = {
            cls.attribute_map[attr]: self._field(model_name, attr, type_text)
            for attr, type_text in cls.openapi_types.items()
        }
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        required = sorted(cls.attribute_map[name] for name, f in cls.model_fields.items() if f.is_required())
        if required:
            schema["required"] = required
        return schema

    def _field(self, model_name: str, attr: str, type_text: str) -> dict[str, Any]:
        if (model_name, attr) in _QUANTITY_SCALARS:
            return quantity_schema()
        if (model_name, attr) in _QUANTITY_MAPS:
            return {"type": "object", "additionalProperties": quantity_schema()}
        if (model_name, attr) in _INT_OR_STRING_FIELDS:
            return {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        return self.type_schema(type_text)

    def type_schema(self, type_text: str) -> dict[str, Any]:
        if type_text in _PRIMITIVES:
            return dict(_PRIMITIVES[type_text])
        list_match = _LIST_RE.match(type_text)
        if list_match:
            return {"type": "array", "items": self.type_schema(list_match.group(1))}
        dict_match = _DICT_RE.match(type_text)
        if dict_match:
            return {"type": "object", "additionalProperties": self.type_schema(dict_match.group(1))}
        return self.ref(type_text)


def object_meta_definitions() -> dict[str, dict[str, Any]]:
    models = ModelSchemas()
    models.ref("V1ObjectMeta")
    return models.definitions


def core_kind_schema(class_name: str) -> dict[str, Any]:
    models = ModelSchemas()
    root_ref = models.ref(class_name)
    root = dict(models.definitions.pop(root_ref["$ref"].rsplit("/", 1)[1]))
    root["definitions"] = models.definitions
    return root


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def api_version_of(group: str, version: str) -> str:
    return f"{group}/{version}" if group else version


def schema_file_name(group: str, version: str, kind: str) -> str:
    return f"{kind.lower()}-{group or 'core'}-{version}.json"


def _finish(schema: dict[str, Any], group: str, version: str, kind: str) -> dict[str, Any]:
    schema["$schema"] = JSON_SCHEMA_DIALECT
    schema["x-kqctl-api-version"] = api_version_of(group, version)
    schema["x-kqctl-kind"] = kind
    return schema


def all_schemas(crd_dir: Path) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    extra = [d for d in SCHEDULER_CRD_DIRS if d.is_dir() and d.resolve() != crd_dir.resolve()]
    for crd in (doc for directory in (crd_dir, *extra) for doc in crd_documents(directory)):
        for group, version, kind, schema in crd_version_schemas(crd):
            yield group, version, kind, _finish(schema, group, version, kind)
    for group, version, kind, class_name in CORE_KINDS:
        yield group, version, kind, _finish(core_kind_schema(class_name), group, version, kind)


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=True) + "\n"


def generate(crd_dir: Path, out_dir: Path) -> list[Path]:
    """Write every schema plus ``index.json`` into ``out_dir``; return the written paths."""
    if not crd_dir.is_dir():
        raise FileNotFoundError(f"CRD directory not found: {crd_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.json"):
        stale.unlink()  # a kind/version dropped upstream must not linger
    index: dict[str, str] = {}
    written: list[Path] = []
    for group, version, kind, schema in all_schemas(crd_dir):
        name = schema_file_name(group, version, kind)
        (out_dir / name).write_text(dump_json(schema), encoding="utf-8")
        index[f"{api_version_of(group, version)}/{kind}"] = name
        written.append(out_dir / name)
    (out_dir / "index.json").write_text(dump_json(index), encoding="utf-8")
    written.append(out_dir / "index.json")
    return written


# --------------------------------------------------------------------------------------------
# Released versions: JSON patches against the reference schemas
# --------------------------------------------------------------------------------------------

# (scheduler, tag, commit, the reference CRD folder the diff applies to)
RELEASES = (
    ("kueue", "v0.19.2", "8eab68778fc1b52affe165fdf5af29d1e9b4f3cb", "kueue-crds"),
    ("kueue", "v0.18.6", "4152c9bad956a361bb56b0f7994d492709835d96", "kueue-crds"),
    ("kueue", "v0.17.8", "818686e072da52af3564ba21f37f826fe05190af", "kueue-crds"),
    ("volcano", "v1.15.1", "0a56ed331897f5455916a44d3075671376d731d6", "volcano-crds"),
)
UPSTREAM = REPO_ROOT / "upstream"


def crd_schemas(crd_dir: Path) -> dict[str, dict[str, Any]]:
    """``apiVersion/Kind`` -> finished schema, for the CRDs of one folder only."""
    return {f"{api_version_of(group, version)}/{kind}": _finish(schema, group, version, kind)
            for crd in crd_documents(crd_dir) for group, version, kind, schema in crd_version_schemas(crd)}


def json_patch(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """RFC 6902 operations that turn ``old`` into ``new``: objects key by key, lists of the same length item by
    item, anything else replaced whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = []
        for key in sorted(old.keys() - new.keys()):
            ops.append({"op": "remove", "path": f"{path}/{_pointer(key)}"})
        for key in sorted(new.keys()):
            if key not in old:
                ops.append({"op": "add", "path": f"{path}/{_pointer(key)}", "value": new[key]})
            else:
                ops.extend(json_patch(old[key], new[key], f"{path}/{_pointer(key)}"))
        return ops
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [op for i, (a, b) in enumerate(zip(old, new, strict=True)) for op in json_patch(a, b, f"{path}/{i}")]
    return [] if old == new else [{"op": "replace", "path": path, "value": new}]


def _pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def release_patches(reference_dir: Path, diff_file: Path) -> dict[str, Any]:
    """The release's schemas as patches against the reference's: ``{"patches": {key: [ops]}, "absent": [keys]}``
    (a kind the release does not serve is absent; one only the release serves is an ``add`` of the whole schema)."""
    import shutil
    import subprocess
    import tempfile

    reference = crd_schemas(reference_dir)
    with tempfile.TemporaryDirectory() as temporary:
        patched = Path(temporary) / "crds"
        shutil.copytree(reference_dir, patched)
        subprocess.run(["git", "apply", "-p1", str(diff_file.resolve())], cwd=patched, check=True)
        released = crd_schemas(patched)
    patches = {key: ops for key in sorted(released)
               if (ops := json_patch(reference.get(key, {}), released[key]) if key in reference
                   else [{"op": "replace", "path": "", "value": released[key]}])}
    return {"patches": patches, "absent": sorted(reference.keys() - released.keys())}


def generate_releases(out_dir: Path) -> list[Path]:
    releases_dir = out_dir / "releases"
    releases_dir.mkdir(parents=True, exist_ok=True)
    for stale in releases_dir.glob("*.json"):
        stale.unlink()
    written = []
    for scheduler, tag, commit, reference in RELEASES:
        body = {"scheduler": scheduler, "release": tag, "commit": commit,
                **release_patches(UPSTREAM / reference, UPSTREAM / f"{scheduler}-releases" / f"{tag}.diff")}
        path = releases_dir / f"{scheduler}-{tag}.json"
        path.write_text(dump_json(body), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("crd_dir", nargs="?", type=Path, default=DEFAULT_CRD_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT_DIR)
    args = parser.parse_args(argv)
    written = generate(args.crd_dir, args.out)
    if args.crd_dir.resolve() == DEFAULT_CRD_DIR.resolve():  # releases are patches against the reference CRDs
        written += generate_releases(args.out)
    print(f"wrote {len(written)} files to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
