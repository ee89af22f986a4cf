#!/usr/bin/env python3
"""Regenerate ``kqctl/kueue/validate/config_fields.py``: the field tree of Kueue's ``Configuration`` file.

Kueue's controller-manager decodes its configuration file strictly (``pkg/config/config.go``, ``fromFile``: a codec
factory with strict decoding), so a field its Go types do not declare, a value of the wrong JSON type or a duration
that does not parse stops it before it starts. The file is not an API object: no CRD, no OpenAPI schema. This script
reads the Go types of each served version (``apis/config/<version>/configuration_types.go`` and, for v1beta2,
``deprecated_types.go``) from a Kueue checkout and writes, per version, every struct as ``{json name: Go type}``
(inline embedded structs flattened into their parent), the named scalar types (``type X string``) and aliases.
The types the Configuration pulls in from outside the Kueue repository are written by hand below
(``EXTERNAL_STRUCTS``), each with the Go type it stands for. The framework names Kueue registers
(``pkg/controller/jobs/**``: ``FrameworkName = "..."``) are written too, for the integrations check, and the
feature gates each gate depends on (``pkg/features/kube_features.go``), for the feature-gate check.

Usage: ``python scripts/generate_config_fields.py [KUEUE_GIT_DIR] [--commit REV]``; the default reads the mirror at
``/work/.mirror/kubernetes-sigs+kueue/repo`` (a bare clone: files are read with ``git show``) at the reference commit
ff69552e. The output is deterministic; tests/kueue/validate/test_config_fields.py checks the committed file when
the mirror is there.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_KUEUE = Path("/work/.mirror/kubernetes-sigs+kueue/repo")
REFERENCE_COMMIT = "ff69552e79ad21652c36caa97038382e55625cf7"
OUT = REPO_ROOT / "kqctl" / "kueue" / "validate" / "config_fields.py"

# The releases ``validate --kueue-version`` checks against (kqctl/kueue/validate/releases.py): their Configuration is
# decoded against their own Go types.
RELEASES = (
    ("v0.19.2", "8eab68778fc1b52affe165fdf5af29d1e9b4f3cb"),
    ("v0.18.6", "4152c9bad956a361bb56b0f7994d492709835d96"),
    ("v0.17.8", "818686e072da52af3564ba21f37f826fe05190af"),
)

VERSION_FILES = {
    "v1beta1": ("apis/config/v1beta1/configuration_types.go",),
    "v1beta2": ("apis/config/v1beta2/configuration_types.go", "apis/config/v1beta2/deprecated_types.go"),
}

# Go types from outside the Kueue repository, written by hand: {Go type: {json name: Go type}}. Only their
# JSON-visible fields (``json:"-"`` fields are left out).
EXTERNAL_STRUCTS: dict[str, dict[str, str]] = {
    # k8s.io/apimachinery/pkg/apis/meta/v1 TypeMeta (inline in Configuration)
    "metav1.TypeMeta": {"apiVersion": "string", "kind": "string"},
    # k8s.io/apimachinery/pkg/apis/meta/v1 LabelSelector and LabelSelectorRequirement
    "metav1.LabelSelector": {"matchLabels": "map[string]string",
                             "matchExpressions": "[]metav1.LabelSelectorRequirement"},
    "metav1.LabelSelectorRequirement": {"key": "string", "operator": "string", "values": "[]string"},
    # k8s.io/component-base/config/v1alpha1 LeaderElectionConfiguration
    "configv1alpha1.LeaderElectionConfiguration": {
        "leaderElect": "*bool", "leaseDuration": "metav1.Duration", "renewDeadline": "metav1.Duration",
        "retryPeriod": "metav1.Duration", "resourceLock": "string", "resourceName": "string",
        "resourceNamespace": "string"},
    # k8s.io/client-go/tools/clientcmd/api ExecConfig and ExecEnvVar (Config, StdinUnavailable* are json:"-")
    "clientcmdapi.ExecConfig": {
        "command": "string", "args": "[]string", "env": "[]clientcmdapi.ExecEnvVar", "apiVersion": "string",
        "installHint": "string", "provideClusterInfo": "bool", "interactiveMode": "string"},
    "clientcmdapi.ExecEnvVar": {"name": "string", "value": "string"},
    # k8s.io/api/resource/v1 DeviceSelector and CELDeviceSelector
    "resourcev1.DeviceSelector": {"cel": "*resourcev1.CELDeviceSelector"},
    "resourcev1.CELDeviceSelector": {"expression": "string"},
}
# Named types from outside the repository and the scalar (or map) they are in JSON.
EXTERNAL_NAMED = {
    "corev1.ResourceName": "string",  # k8s.io/api/core/v1 ResourceName
    "corev1.ResourceList": "map[string]resource.Quantity",  # k8s.io/api/core/v1 ResourceList
    "resourcev1.QualifiedName": "string",  # k8s.io/api/resource/v1 QualifiedName
}

_STRUCT = re.compile(r"^type (\w+) struct \{\n(.*?)^\}", re.M | re.S)
_NAMED = re.compile(r"^type (\w+) (=\s*)?([\w.\[\]*]+)\s*$", re.M)
_FIELD = re.compile(r'^\s*(\w+)\s+([\w.\[\]*]+)\s+`json:"([^"]*)"')
_EMBEDDED = re.compile(r'^\s*([\w.]+)\s+`json:",inline"`')
_FRAMEWORK = re.compile(r'FrameworkName\s*=\s*"([^"]+)"')


def git_show(kueue: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(kueue), "show", f"{commit}:{path}"], check=True, capture_output=True,
                          text=True).stdout


def _without_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def read_types(source: str) -> tuple[dict[str, list[tuple[str, str]]], dict[str, str]]:
    """The structs of one Go file as (json name or ``inline:<Type>``, Go type) pairs, and its named types."""
    source = _without_comments(source)
    structs: dict[str, list[tuple[str, str]]] = {}
    for match in _STRUCT.finditer(source):
        fields: list[tuple[str, str]] = []
        for line in match.group(2).splitlines():
            embedded = _EMBEDDED.match(line)
            if embedded:
                fields.append((f"inline:{embedded.group(1)}", embedded.group(1)))
                continue
            field = _FIELD.match(line)
            if field is None:
                if line.strip():
                    raise ValueError(f"cannot read the field line {line.strip()!r} of {match.group(1)}")
                continue
            name = field.group(3).split(",")[0]
            if name == "-":
                continue
            fields.append((name or field.group(1), field.group(2)))
        structs[match.group(1)] = fields
    named = {m.group(1): m.group(3) for m in _NAMED.finditer(source)}
    return structs, named


def flatten(structs: dict[str, list[tuple[str, str]]]) -> dict[str, dict[str, str]]:
    """Every struct as {json name: Go type}, inline embedded structs' fields in their parent's place."""
    def fields_of(name: str) -> dict[str, str]:
        known = structs.get(name)
        out: dict[str, str] = {}
        for json_name, go_type in known if known is not None else EXTERNAL_STRUCTS[name].items():
            if json_name.startswith("inline:"):
                out.update(fields_of(go_type))
            else:
                out[json_name] = go_type
        return out
    return {name: fields_of(name) for name in sorted(structs)}


def _exists(kueue: Path, commit: str, path: str) -> bool:
    return subprocess.run(["git", "-C", str(kueue), "cat-file", "-e", f"{commit}:{path}"],
                          capture_output=True).returncode == 0


def version_tree(kueue: Path, commit: str, version: str) -> dict[str, object]:
    structs: dict[str, list[tuple[str, str]]] = {}
    named: dict[str, str] = {}
    for path in VERSION_FILES[version]:
        if not _exists(kueue, commit, path):
            continue  # deprecated_types.go is newer than some releases
        more_structs, more_named = read_types(git_show(kueue, commit, path))
        structs.update(more_structs)
        named.update(more_named)
    tree = {"structs": flatten(structs), "named": dict(sorted(named.items()))}
    _check_resolvable(tree, f"{version} at {commit[:8]}")
    return tree


_SCALARS = {"string", "bool", "int", "int32", "int64", "float32", "float64", "time.Duration", "metav1.Duration",
            "resource.Quantity"}


def difference(reference: dict[str, object], release: dict[str, object]) -> dict[str, object]:
    """What a release's tree changes in the reference's: only those structs and named types are written out."""
    changed: dict[str, object] = {}
    removed: list[str] = []
    for kind in ("structs", "named"):
        ours, theirs = reference[kind], release[kind]
        assert isinstance(ours, dict) and isinstance(theirs, dict)
        changed[kind] = {name: value for name, value in sorted(theirs.items()) if ours.get(name) != value}
        removed += sorted(name for name in ours if name not in theirs)
    changed["removed"] = removed
    return changed


def _check_resolvable(tree: dict[str, object], where: str) -> None:
    """Every Go type the tree names is a struct, a named type, a type written by hand or a scalar the decoder
    (kqctl/kueue/validate/configuration.py) knows: a new external type must be added to EXTERNAL_STRUCTS first."""
    structs = tree["structs"]
    named = tree["named"]
    assert isinstance(structs, dict) and isinstance(named, dict)

    def resolve(go_type: str) -> None:
        go_type = go_type.lstrip("*")
        go_type = named.get(go_type, EXTERNAL_NAMED.get(go_type, go_type))
        if go_type.startswith("[]"):
            resolve(go_type[2:])
        elif go_type.startswith("map["):
            resolve(go_type[go_type.index("]") + 1:])
        elif go_type in structs or go_type in EXTERNAL_STRUCTS:
            for field_type in (structs.get(go_type) or EXTERNAL_STRUCTS[go_type]).values():
                resolve(field_type)
        elif go_type not in _SCALARS:
            raise ValueError(f"{where}: the Go type {go_type} is not known: write it in EXTERNAL_STRUCTS")

    resolve("Configuration")


def frameworks(kueue: Path, commit: str) -> list[str]:
    listing = subprocess.run(["git", "-C", str(kueue), "grep", "-h", "-E", r'FrameworkName\s*=\s*"', commit, "--",
                              "pkg/controller/jobs"], check=True, capture_output=True, text=True).stdout
    return sorted(set(_FRAMEWORK.findall(listing)))


def _literal(value: object) -> str:
    """A Python literal of plain JSON data (strings, dicts, lists), one entry a line."""
    return json.dumps(value, indent=4, sort_keys=True)


_GATE_NAME = re.compile(r'^\s*(\w+)\s+featuregate\.Feature\s*=\s*"([^"]+)"', re.M)
_DEPENDENCIES = re.compile(r"defaultFeatureGateDependencies\s*=\s*map\[featuregate\.Feature\]\[\]featuregate\.Feature"
                           r"\{(.*?)^\}", re.M | re.S)
_DEPENDENCY = re.compile(r"^\s*(\w+):\s*\{([\w,\s]*)\},", re.M)


def gate_dependencies(kueue: Path, commit: str) -> dict[str, list[str]]:
    """The feature gates each gate depends on (pkg/features/kube_features.go defaultFeatureGateDependencies): Kueue
    refuses to start when a gate is on and one it depends on is off."""
    source = _without_comments(git_show(kueue, commit, "pkg/features/kube_features.go"))
    names = dict(_GATE_NAME.findall(source))
    block = _DEPENDENCIES.search(source)
    if block is None:
        raise ValueError("defaultFeatureGateDependencies not found in pkg/features/kube_features.go")
    return {names[gate]: [names[dep.strip()] for dep in deps.split(",") if dep.strip()]
            for gate, deps in _DEPENDENCY.findall(block.group(1))}


def render(kueue: Path, commit: str) -> str:
    versions = {version: version_tree(kueue, commit, version) for version in VERSION_FILES}
    releases = {tag: {version: difference(versions[version], version_tree(kueue, release, version))
                      for version in VERSION_FILES}
                for tag, release in RELEASES}
    return "\n".join([
        '"""The field tree of Kueue\'s Configuration file, per version (generated: do not edit by hand).',
        "",
        f"Generated by scripts/generate_config_fields.py from kubernetes-sigs/kueue {commit[:8]}:",
        "apis/config/<version>/configuration_types.go (structs as {json name: Go type}, inline embedded structs",
        "flattened), plus the Go types from outside Kueue that the Configuration pulls in, written by hand in the",
        'script, the framework names Kueue registers (pkg/controller/jobs) and the feature-gate dependencies."""',
        "",
        "from __future__ import annotations",
        "",
        "# version: {'structs': {Go struct: {json name: Go type}}, 'named': {Go named type: underlying Go type}}",
        f"VERSIONS: dict[str, dict[str, dict[str, dict[str, str] | str]]] = {_literal(versions)}",
        "",
        "# Per released version validate --kueue-version checks against, what differs from VERSIONS:",
        "# {tag: {version: {'structs': {changed or added struct: fields}, 'named': {changed or added: type},",
        "# 'removed': [structs and named types the release does not have]}}} (configuration.release_tree)",
        "RELEASE_DIFFERENCES: dict[str, dict[str, dict[str, dict[str, dict[str, str] | str] | list[str]]]] = "
        f"{_literal(releases)}",
        "",
        "# Go types from outside Kueue: {Go type: {json name: Go type}}",
        f"EXTERNAL_STRUCTS: dict[str, dict[str, str]] = {_literal(EXTERNAL_STRUCTS)}",
        "",
        "# Named types from outside Kueue and what they are in JSON",
        f"EXTERNAL_NAMED: dict[str, str] = {_literal(EXTERNAL_NAMED)}",
        "",
        "# Feature gates and the gates each depends on (pkg/features/kube_features.go)",
        f"GATE_DEPENDENCIES: dict[str, list[str]] = {_literal(gate_dependencies(kueue, commit))}",
        "",
        "# The integration framework names Kueue registers",
        f"FRAMEWORKS: tuple[str, ...] = ({_literal(frameworks(kueue, commit))[1:-1]})",
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("kueue", nargs="?", type=Path, default=DEFAULT_KUEUE)
    parser.add_argument("--commit", default=REFERENCE_COMMIT)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.write_text(render(args.kueue, args.commit), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
