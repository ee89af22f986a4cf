"""scripts/generate_schemas.py: the committed schemas are what the generator produces."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
CRD_DIR = REPO / "upstream" / "kueue-crds"
COMMITTED = REPO / "schemas"

def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_schemas", REPO / "scripts" / "generate_schemas.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("schemas")
    _load_generator().generate(CRD_DIR, out)
    return out


def _schema(directory: Path, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((directory / name).read_text(encoding="utf-8"))
    return data


def _walk(node: Any) -> list[dict[str, Any]]:
    """Every dict in a JSON value (schema nodes, but also ``properties`` maps)."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def _schema_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every schema node, following only the keywords that hold subschemas."""
    found = [node]
    children: list[Any] = list(node.get("properties", {}).values()) + list(
        node.get("definitions", {}).values()
    )
    children += [node[k] for k in ("items", "additionalProperties") if isinstance(node.get(k), dict)]
    children += node.get("anyOf", [])
    for child in children:
        found.extend(_schema_nodes(child))
    return found


CQ = "clusterqueue-kueue.x-k8s.io-v1beta2.json"
WL = "workload-kueue.x-k8s.io-v1beta2.json"


def _resource_schema(directory: Path) -> dict[str, Any]:
    spec = _schema(directory, CQ)["properties"]["spec"]["properties"]
    flavor = spec["resourceGroups"]["items"]["properties"]["flavors"]["items"]
    resource: dict[str, Any] = flavor["properties"]["resources"]["items"]
    return resource


def test_committed_schemas_match_a_fresh_generation(generated: Path) -> None:
    fresh = sorted(p.name for p in generated.glob("*.json"))
    committed = sorted(p.name for p in COMMITTED.glob("*.json"))
    assert committed == fresh, "run: python scripts/generate_schemas.py"
    for name in fresh:
        same = (generated / name).read_bytes() == (COMMITTED / name).read_bytes()
        assert same, f"schemas/{name} is stale: run python scripts/generate_schemas.py"


def test_committed_release_patches_match_a_fresh_generation(tmp_path: Path) -> None:
    # The released versions (validate --kueue-version, --volcano-version): upstream/<scheduler>-releases/<tag>.diff
    # applied to the reference CRDs with git apply, then written as JSON patches against the reference schemas.
    written = _load_generator().generate_releases(tmp_path)
    assert sorted(p.name for p in written) == sorted(p.name for p in (COMMITTED / "releases").glob("*.json"))
    for path in written:
        assert path.read_bytes() == (COMMITTED / "releases" / path.name).read_bytes(), \
            f"schemas/releases/{path.name} is stale: run python scripts/generate_schemas.py"


def test_a_json_patch_turns_the_old_value_into_the_new() -> None:
    from kqctl.validate.schema import apply_json_patch

    generator = _load_generator()
    old = {"a": [1, {"b": 2, "c/d": 3}], "e": {"f": 1}, "gone": True}
    new = {"a": [1, {"b": 5, "c/d": 3, "x": [1]}], "e": {"f": 1}, "added": {"y": 1}}
    ops = generator.json_patch(old, new)
    assert apply_json_patch(old, ops) == new and old["a"][1]["b"] == 2  # the old value is not changed
    assert generator.json_patch(old, old) == []


@pytest.fixture()
def small_crd_dir(tmp_path: Path) -> Path:
    """One small CRD, for the tests that only exercise the generator's plumbing."""
    crds = tmp_path / "crds"
    crds.mkdir()
    name = "kueue.x-k8s.io_workloadpriorityclasses.yaml"
    (crds / name).write_bytes((CRD_DIR / name).read_bytes())
    return crds


def test_generation_is_deterministic(small_crd_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _load_generator().generate(small_crd_dir, first)
    _load_generator().generate(small_crd_dir, second)
    names = sorted(p.name for p in first.glob("*.json"))
    assert names == sorted(p.name for p in second.glob("*.json"))
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)


def test_stale_files_are_removed_on_regeneration(small_crd_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "gone-kueue.x-k8s.io-v1.json").write_text("{}", encoding="utf-8")
    _load_generator().generate(small_crd_dir, out)
    assert not (out / "gone-kueue.x-k8s.io-v1.json").exists()
    assert (out / "workloadpriorityclass-kueue.x-k8s.io-v1beta2.json").is_file()


def test_every_generated_schema_is_a_valid_draft7_schema(generated: Path) -> None:
    for path in generated.glob("*.json"):
        if path.name != "index.json":
            # format_checker=None: patterns are Go RE2 (e.g. "^(?i)..."), not Python regexes.
            jsonschema.Draft7Validator.check_schema(_schema(generated, path.name), format_checker=None)


def test_index_maps_every_served_kind_and_version_to_its_file(generated: Path) -> None:
    index = _schema(generated, "index.json")
    assert index["kueue.x-k8s.io/v1beta2/ClusterQueue"] == CQ
    assert index["kueue.x-k8s.io/v1beta1/Workload"] == "workload-kueue.x-k8s.io-v1beta1.json"
    assert index["v1/Pod"] == "pod-core-v1.json"
    assert index["batch/v1/Job"] == "job-batch-v1.json"
    assert index["scheduling.k8s.io/v1/PriorityClass"] == "priorityclass-scheduling.k8s.io-v1.json"
    assert {"v1/Namespace", "v1/LimitRange"} <= index.keys()
    for name in index.values():
        assert (generated / name).is_file()


def test_descriptions_are_stripped(generated: Path) -> None:
    for path in generated.glob("*-kueue.x-k8s.io-*.json"):
        assert not any("description" in node for node in _schema_nodes(_schema(generated, path.name)))


def test_int_or_string_becomes_any_of_with_the_pattern_on_the_string_branch(generated: Path) -> None:
    quota = _resource_schema(generated)["properties"]["nominalQuota"]
    assert "pattern" not in quota and "x-kubernetes-int-or-string" not in quota
    assert quota["anyOf"][0] == {"type": "integer"}
    assert quota["anyOf"][1]["type"] == "string" and quota["anyOf"][1]["pattern"].startswith("^(\\+|-)?")


def test_list_type_map_becomes_the_kqctl_list_map_keys_keyword(generated: Path) -> None:
    flavors = _schema(generated, CQ)["properties"]["spec"]["properties"]["resourceGroups"]["items"]
    assert flavors["properties"]["flavors"]["x-kqctl-list-map-keys"] == ["name"]
    assert not any("x-kubernetes-list-type" in node for node in _walk(_schema(generated, CQ)))


def test_list_type_set_becomes_unique_items(generated: Path) -> None:
    strategy = _schema(generated, CQ)["properties"]["spec"]["properties"]["admissionChecksStrategy"]
    on_flavors = strategy["properties"]["admissionChecks"]["items"]["properties"]["onFlavors"]
    assert on_flavors["uniqueItems"] is True


def test_int32_format_becomes_a_range_keeping_a_tighter_minimum(generated: Path) -> None:
    pod_sets = _schema(generated, WL)["properties"]["spec"]["properties"]["podSets"]
    count = pod_sets["items"]["properties"]["count"]
    assert count["minimum"] == 0 and count["maximum"] == 2**31 - 1 and "format" not in count
    priority = _schema(generated, WL)["properties"]["spec"]["properties"]["priority"]
    assert priority["minimum"] == -(2**31)


def test_objects_with_properties_reject_unknown_fields(generated: Path) -> None:
    for node in _schema_nodes(_schema(generated, WL)):
        if "properties" in node:
            assert node.get("additionalProperties") is False


def test_defaults_and_cel_rules_are_kept(generated: Path) -> None:
    spec = _schema(generated, CQ)["properties"]["spec"]
    assert spec["properties"]["queueingStrategy"]["default"] == "BestEffortFIFO"
    assert spec["properties"]["preemption"]["default"] == {}
    rules = spec["x-kubernetes-validations"]
    assert rules == [
        {
            "message": "borrowingLimit must be nil when cohort is empty",
            "rule": "!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
            "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
        }
    ]


def test_root_metadata_references_a_generated_object_meta(generated: Path) -> None:
    schema = _schema(generated, CQ)
    assert schema["properties"]["metadata"] == {"$ref": "#/definitions/V1ObjectMeta"}
    meta = schema["definitions"]["V1ObjectMeta"]
    assert meta["additionalProperties"] is False
    assert {
        "name",
        "generateName",
        "namespace",
        "labels",
        "annotations",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "ownerReferences",
        "finalizers",
        "managedFields",
    } <= meta["properties"].keys()
    assert meta["properties"]["creationTimestamp"]["format"] == "date-time"
    assert schema["definitions"]["V1OwnerReference"]["required"] == ["apiVersion", "kind", "name", "uid"]


def test_core_kinds_come_from_the_client_models_with_required_fields(generated: Path) -> None:
    pod = _schema(generated, "pod-core-v1.json")
    assert pod["properties"]["spec"] == {"$ref": "#/definitions/V1PodSpec"}
    assert pod["definitions"]["V1PodSpec"]["required"] == ["containers"]
    container = pod["definitions"]["V1Container"]
    assert container["required"] == ["name"] and "imagePullPolicy" in container["properties"]
    job = _schema(generated, "job-batch-v1.json")
    assert job["definitions"]["V1JobSpec"]["required"] == ["template"]


def test_core_quantity_maps_accept_numbers_and_quantity_strings(generated: Path) -> None:
    pod = _schema(generated, "pod-core-v1.json")
    requests = pod["definitions"]["V1ResourceRequirements"]["properties"]["requests"]
    branches = requests["additionalProperties"]["anyOf"]
    assert branches[0] == {"type": "number"} and branches[1]["type"] == "string"
    limit_item = _schema(generated, "limitrange-core-v1.json")["definitions"]["V1LimitRangeItem"]
    for name in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
        assert limit_item["properties"][name]["additionalProperties"]["anyOf"] == branches
    assert pod["definitions"]["V1PodSpec"]["properties"]["nodeSelector"]["additionalProperties"] == {
        "type": "string"
    }


def test_main_accepts_a_crd_directory_and_an_output_directory(small_crd_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert _load_generator().main([str(small_crd_dir), "--out", str(out)]) == 0
    index = _schema(out, "index.json")
    assert (
        index["kueue.x-k8s.io/v1beta2/WorkloadPriorityClass"]
        == "workloadpriorityclass-kueue.x-k8s.io-v1beta2.json"
    )
    assert index["v1/Pod"] == "pod-core-v1.json"  # the core kinds do not depend on the CRD directory


def test_missing_crd_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        _load_generator().generate(tmp_path / "nope", tmp_path / "out")
