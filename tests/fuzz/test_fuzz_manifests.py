"""Fuzz: mutated manifests never crash kqctl, and validate's verdict is every command's verdict.

Every field of every document of every sample under samples/ (Kueue, Volcano and YuniKorn) and of a few recorded
conformance snapshots can be mutated — a field deleted, a value replaced by another type, a list item duplicated,
a value nested deeply — and validate, simulate, explain, audit, convert, replay, diff and plan run in-process on
the result, for each of the three schedulers:

* never exit 70 (a kqctl bug) and never a traceback;
* when validate rejects the input (exit 1 or 3), no command answers with exit 0: each refuses it (exit 3, or a
  usage error), as the gate every command admits objects through (kqctl.validate.gate) makes it. convert alone
  may convert what validate rejects only for the version nobody serves any more (LEG-VERSION), which is what
  converting cures;
* when validate accepts the input (exit 0), simulate and audit do not reject it as unreadable (exit 3);
* when the JSON Schema of the kind (the generated schemas, checked with ``jsonschema``, the reference
  implementation, after CRD defaulting as the API server does) rejects the mutated document, validate does not
  exit 0. Mutations to ``null`` or to non-integral numbers are left out of this check: the API server prunes
  nulls and kqctl follows it (see kqctl/validate/schema.py).

Fast by default (derandomized, a few examples); ``KQCTL_FUZZ_EXAMPLES=5000`` runs it long, and
``KQCTL_FUZZ_SWEEP=1`` mutates every field of every document once (a long run: thousands of inputs).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fuzz_inprocess import run_kqctl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import REPO

from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK
from kqctl.findings import Severity
from kqctl.kueue.kinds import GROUP as KUEUE_GROUP
from kqctl.kueue.validate.webhook_defaults import apply_mutating_webhooks
from kqctl.load.documents import parse_documents
from kqctl.validate.schema import LIST_MAP_KEYS, apply_schema_defaults, load_schema

EXAMPLES = int(os.environ.get("KQCTL_FUZZ_EXAMPLES", "6"))  # per scheduler
PRODUCTS = ("kueue", "volcano", "yunikorn")
SWEEP = os.environ.get("KQCTL_FUZZ_SWEEP") == "1"
CONFORMANCE = REPO / "tests" / "conformance" / "data" / "kueue"
CONFORMANCE_CASES = (  # a few, to keep the default run short
    "flavor-assign/borrow-before-try-next-flavor",
    "preemption/long-range-preemption",
    "fair-sharing/fair-sharing-schedule-earliest-timestamp-first",
)
NOW = "2026-01-01T00:00:00Z"
MUTATED_KINDS = {"ClusterQueue", "ResourceFlavor", "Workload"}  # the kinds with a Kueue mutating webhook

WEIRD_STRINGS = ["", " ", "-1", "0", "1e3", "1E400", "0x10", "10Gi", "1.5", "-5Gi", "NaN", "Infinity", "∞",
                 "\x00", "\x1b[31m", "\u202e", "a" * 300, "9" * 40, "1Ei", "999999999999Ei", "true", "null",
                 "~", "../x", "日本語", "Name With Spaces", "UPPER", "-lead", "a/b/c", "a..b", "😀", "\n", "\t"]


@dataclass(frozen=True)
class Case:
    """One input set: documents (each written to its own JSON file), a workload to explain, and for Kueue a
    ClusterQueue to change (diff) and to plan."""

    name: str
    documents: tuple[Any, ...]
    workload: str  # namespace/name for explain
    scheduler: tuple[str, ...] = ()  # --scheduler volcano for the Volcano samples
    cluster_queue: str | None = None  # Kueue only
    queue: str = "default"  # Volcano: the Queue diff and plan change (default: the one Volcano always has)

    @property
    def kueue(self) -> bool:
        return self.product == "kueue"

    @property
    def product(self) -> str:
        """kueue, volcano or yunikorn: whose sample it is."""
        return next((name for name in ("volcano", "yunikorn") if self.name.startswith(f"{name}-")), "kueue")


def _first(documents: list[Any], kinds: tuple[str, ...]) -> dict[str, Any]:
    found = [d for d in documents if isinstance(d, dict) and d.get("kind") in kinds]
    meta = found[0].get("metadata", {}) if found else {}
    return meta if isinstance(meta, dict) else {}


def _key(meta: dict[str, Any]) -> str:
    return f"{meta.get('namespace', 'default')}/{meta.get('name', 'none')}"


def _load_case(name: str, files: list[Path]) -> Case:
    documents = [d.body for path in files for d in parse_documents(path.read_text(), str(path)) if d.body is not None]
    if name.startswith("volcano-"):
        queue = _first(documents, ("Queue",)).get("name")
        return Case(name, tuple(documents), _key(_first(documents, ("PodGroup", "Job"))), ("--scheduler", "volcano"),
                    queue=queue if isinstance(queue, str) else "default")
    if name.startswith("yunikorn-"):
        return Case(name, tuple(documents), _key(_first(documents, ("Pod",))))
    cluster_queue = _first(documents, ("ClusterQueue",)).get("name")
    return Case(name, tuple(documents), _key(_first(documents, ("Workload",))),
                cluster_queue=cluster_queue if isinstance(cluster_queue, str) else None)


def _cases() -> list[Case]:
    cases = [_load_case(d.name, sorted(d.glob("*.yaml"))) for d in sorted((REPO / "samples").iterdir()) if d.is_dir()]
    cases += [_load_case(c, [CONFORMANCE / c / "snapshot.yaml"]) for c in CONFORMANCE_CASES
              if (CONFORMANCE / c / "snapshot.yaml").is_file()]
    return [c for c in cases if c.documents]


CASES = _cases()


# --- mutations -------------------------------------------------------------------------------------------

_DELETE = object()
Path_ = tuple[Any, ...]


@dataclass
class Mutated:
    case: Case
    index: int
    document: Any
    steps: list[str] = field(default_factory=list)
    schema_comparable: bool = True  # False once a null or a non-integral number went in
    # The API server drops `status` on create, so validate only informs about it; simulate and audit
    # read it as the cluster's state and must refuse what they cannot decode there.
    touches_status: bool = False
    set_path: Path_ | None = None  # the field the last "set" step replaced


def _paths(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*path, i))


def _get(body: Any, path: Path_) -> Any:
    for part in path:
        body = body[part]
    return body


def _has_null_or_float(value: Any) -> bool:
    if value is None or isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_null_or_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_null_or_float(v) for v in value)
    return False


def _nested(depth: int, leaf: Any, as_list: bool) -> Any:
    for _ in range(depth):
        leaf = [leaf] if as_list else {"n": leaf}
    return leaf


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([2**63, -(2**63) - 1, 2**200, 10**400]),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20), st.sampled_from(WEIRD_STRINGS),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["name", "spec", "zz"])), scalars, max_size=3),
    st.builds(_nested, st.integers(2, 300), scalars, st.booleans()),
)


@st.composite
def mutated_inputs(draw: st.DrawFn, cases: list[Case] | None = None) -> Mutated:
    case = draw(st.sampled_from(cases or CASES))
    index = draw(st.integers(0, len(case.documents) - 1))
    result = Mutated(case, index, copy.deepcopy(case.documents[index]))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(result.document))))
        operation = draw(st.sampled_from(["delete", "replace", "replace", "duplicate"]))
        target = _get(result.document, path)
        result.touches_status |= path[:1] == ("status",) or not path
        if operation == "delete" and path:
            del _get(result.document, path[:-1])[path[-1]]
            result.steps.append(f"delete {list(path)}")
        elif operation == "duplicate" and isinstance(target, list) and target:
            target.append(copy.deepcopy(target[draw(st.integers(0, len(target) - 1))]))
            result.steps.append(f"duplicate an item of {list(path)}")
        else:
            value = draw(values)
            result.schema_comparable &= not _has_null_or_float(value)
            result.set_path = path
            if path:
                _get(result.document, path[:-1])[path[-1]] = value
            else:
                result.document = value
            result.steps.append(f"set {list(path)} to {value!r:.80}")
    return result


# --- running kqctl in-process ----------------------------------------------------------------------------


def write_inputs(directory: Path, mutated: Mutated) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.iterdir():
        old.unlink()
    for i, document in enumerate(mutated.case.documents):
        body = mutated.document if i == mutated.index else document
        (directory / f"{i:03d}.json").write_text(json.dumps(body, ensure_ascii=False))
    return str(directory)


# --- the schema oracle -----------------------------------------------------------------------------------


def _list_map_keys(validator: Any, keys: list[str], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """kqctl's one schema keyword (x-kubernetes-list-type: map): no two items with the same key."""
    if not isinstance(instance, list):
        return
    seen: set[tuple[str, ...]] = set()
    for item in instance:
        if isinstance(item, dict) and any(item.get(k) is not None for k in keys):
            key = tuple(json.dumps(item.get(k)) for k in keys)
            if key in seen:
                yield jsonschema.ValidationError(f"duplicate list-map key {key}")
            seen.add(key)


_Reference = jsonschema.validators.extend(jsonschema.Draft7Validator, {LIST_MAP_KEYS: _list_map_keys})


def schema_rejects(document: Any) -> bool | None:
    """True/False: the API server's schema step rejects/accepts it; None: no schema applies.

    As the API server: CRD defaulting, Kueue's mutating webhook (its Go decoding rejects some
    values; its patch, when Default() changes the object, carries the re-encoded values), defaulting
    again, then the kind's schema, checked by ``jsonschema``.
    """
    if not isinstance(document, dict):
        return None
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    schema = load_schema(api_version, kind)
    if schema is None:
        return None
    try:
        held = apply_schema_defaults(document, api_version, kind)
        if api_version.startswith(f"{KUEUE_GROUP}/") and kind in MUTATED_KINDS:
            held, decoding = apply_mutating_webhooks(held)
            if any(f.severity is Severity.ERROR for f in decoding):
                return True
            held = apply_schema_defaults(held, api_version, kind)
    except RecursionError:
        return None
    return next(iter(_Reference(schema).iter_errors(held)), None) is not None


# --- the fields the engine reads ------------------------------------------------------------------------

_POD_SPEC_READ = {("containers", "resources"), ("initContainers", "resources")}


def _pod_spec_field_read(rest: Path_) -> bool:
    """A pod spec's requests, limits, overhead, node selector and tolerations (REQ-5/6, FA-5)."""
    if len(rest) == 5 and (rest[0], rest[2]) in _POD_SPEC_READ and rest[3] in ("requests", "limits"):
        return isinstance(rest[1], int)
    if len(rest) == 2 and rest[0] in ("overhead", "nodeSelector"):
        return True
    return len(rest) == 3 and rest[0] == "tolerations" and rest[2] in ("key", "operator", "value", "effect")


def engine_reads(kind: Any, path: Path_) -> bool:
    if kind == "WorkloadPriorityClass":
        return path == ("value",)
    if kind == "Workload":
        if path == ("spec", "priority"):
            return True
        if path[:2] != ("spec", "podSets") or len(path) < 4:
            return False
        return (len(path) == 4 and path[3] in ("count", "minCount")) or (
            path[3:5] == ("template", "spec") and _pod_spec_field_read(path[5:]))
    if kind == "Job":
        return path in (("spec", "parallelism"), ("spec", "completions")) or (
            path[:3] == ("spec", "template", "spec") and _pod_spec_field_read(path[3:]))
    return kind == "Pod" and path[:1] == ("spec",) and _pod_spec_field_read(path[1:])


# --- the property ----------------------------------------------------------------------------------------

# The version nobody serves any more: validate rejects it, convert cures it.
CURED_BY_CONVERT = {"LEG-VERSION"}


def commands(case: Case, inputs: str) -> dict[str, tuple[str, ...]]:
    """Every command that reads the inputs, as a user would run it on them (plan kept to two replays)."""
    scheduler = case.scheduler
    clock = () if case.product == "volcano" else ("--now", NOW)  # Volcano's simulate and explain refuse --now
    found = {
        "simulate": ("simulate", inputs, *clock, *scheduler),
        "explain": ("explain", case.workload, inputs, *clock, "--no-estimate", *scheduler),
        "audit": ("audit", inputs, *scheduler),
        "convert": ("convert", inputs, "--to", "v1beta2" if case.kueue else "kueue"),
    }
    found["replay"] = ("replay", inputs, "--now", NOW, *scheduler)
    plan = ("--target", "no workload inadmissible", "--budget", "2", "--jobs", "1", "-o", "json")
    if case.kueue:
        if case.cluster_queue is not None:
            found["diff"] = ("diff", inputs, "--now", NOW, "--set",
                             f"clusterqueue/{case.cluster_queue}.spec.stopPolicy=None")
            found["plan"] = ("plan", inputs, "--now", NOW, "--for", f"clusterqueue/{case.cluster_queue}", *plan)
    elif case.name.startswith("volcano-"):
        found["diff"] = ("diff", inputs, "--now", NOW, "--set", f"queue/{case.queue}.spec.weight=2", *scheduler)
        found["plan"] = ("plan", inputs, "--now", NOW, "--for", f"queue/{case.queue}", "--field", "weight", *plan,
                         *scheduler)
    else:  # YuniKorn: root is in every partition
        found["diff"] = ("diff", inputs, "--now", NOW, "--set", "queue/root.properties.application.sort.policy=fifo")
        found["plan"] = ("plan", inputs, "--now", NOW, "--for", "queue/root", *plan)
    return found


def _validate_errors(inputs: str, scheduler: tuple[str, ...]) -> set[str]:
    report = json.loads(run_kqctl("validate", inputs, "-o", "json", *scheduler).out or "{}")
    return {f["ruleId"] for d in report.get("documents", []) for f in d["findings"] if f["severity"] == "error"}


def check(mutated: Mutated, directory: Path) -> None:
    inputs = write_inputs(directory, mutated)
    where = f"{mutated.case.name} document {mutated.index}: {'; '.join(mutated.steps)}"
    validated = run_kqctl("validate", inputs, *mutated.case.scheduler)
    runs = {name: run_kqctl(*args) for name, args in commands(mutated.case, inputs).items()}
    for command, run in {"validate": validated, **runs}.items():
        assert run.code != EXIT_INTERNAL, f"{command} crashed on {where}: {run.err}"
        assert "Traceback" not in run.out + run.err, f"{command} printed a traceback on {where}"
    if validated.code != EXIT_OK:
        cured = validated.code == EXIT_FINDINGS and _validate_errors(inputs, mutated.case.scheduler) <= CURED_BY_CONVERT
        for command, run in runs.items():
            if command == "convert" and cured:
                continue
            assert run.code != EXIT_OK, (f"validate rejects {where} (exit {validated.code}) but {command} answers "
                                         f"with exit 0: {run.out[-300:]}")
    elif not mutated.touches_status:
        # (convert may still have nothing to convert: --to kueue without a Volcano Queue or a YuniKorn config)
        for command in ("simulate", "audit"):
            assert runs[command].code != EXIT_INPUT, (
                f"validate accepts {where} but {command} cannot read it: {runs[command].err}")
    if mutated.schema_comparable and not mutated.touches_status and schema_rejects(mutated.document):
        assert validated.code != EXIT_OK, f"the schema rejects {where} but validate accepts it"


@pytest.mark.parametrize("product", PRODUCTS)  # every scheduler's samples, in every run
@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_mutated_manifests_never_crash_any_command(product: str, data: st.DataObject,
                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    mutated = data.draw(mutated_inputs([case for case in CASES if case.product == product]))
    check(mutated, tmp_path_factory.getbasetemp() / f"fuzz-inputs-{product}")


_KUEUE_CASES = [case for case in CASES if case.kueue]
_ENGINE_READ = [(case, i, path) for case in _KUEUE_CASES for i, document in enumerate(case.documents)
                if isinstance(document, dict) for path in _paths(document) if engine_reads(document.get("kind"), path)]


@st.composite
def engine_field_mutations(draw: st.DrawFn) -> Mutated:
    """One field the engine reads set to another value: what validate rejects there, no command reads."""
    case, index, path = draw(st.sampled_from(_ENGINE_READ))
    result = Mutated(case, index, copy.deepcopy(case.documents[index]), set_path=path)
    value = draw(values)
    result.schema_comparable = not _has_null_or_float(value)
    _get(result.document, path[:-1])[path[-1]] = value
    result.steps.append(f"set {list(path)} to {value!r:.80}")
    return result


@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(mutated=engine_field_mutations())
def test_validate_rejecting_a_field_the_engine_reads_means_every_command_refuses(
        mutated: Mutated, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(mutated, tmp_path_factory.getbasetemp() / "fuzz-engine-inputs")


def _every_field() -> list[tuple[Case, int, Path_, str]]:
    """KQCTL_FUZZ_SWEEP=1: every field of every document of every case, deleted and replaced by a value of
    another type; otherwise nothing (thousands of inputs, each through every command)."""
    if not SWEEP:
        return []
    return [(case, index, path, operation) for case in CASES for index, document in enumerate(case.documents)
            for path in _paths(document) if path for operation in ("delete", "retype")]


def _retyped(value: Any) -> Any:
    return {"retyped": [1]} if not isinstance(value, dict) else "retyped"


@pytest.mark.skipif(not SWEEP, reason="set KQCTL_FUZZ_SWEEP=1 to mutate every field of every sample once")
@pytest.mark.parametrize("case,index,path,operation", _every_field(),
                         ids=lambda v: v.name if isinstance(v, Case) else str(v))
def test_every_field_of_every_sample_mutated_through_every_command(
        case: Case, index: int, path: Path_, operation: str, tmp_path: Path) -> None:
    document = copy.deepcopy(case.documents[index])
    parent, key = _get(document, path[:-1]), path[-1]
    mutated = Mutated(case, index, document, set_path=path if operation == "retype" else None)
    if operation == "delete":
        del parent[key]
        mutated.steps.append(f"delete {list(path)}")
    else:
        parent[key] = _retyped(parent[key])
        mutated.steps.append(f"set {list(path)} to {parent[key]!r}")
    mutated.touches_status = path[:1] == ("status",)
    check(mutated, tmp_path)


def test_the_engine_read_fields_are_found_in_the_samples() -> None:
    kinds = {case.documents[i]["kind"] for case, i, _ in _ENGINE_READ}
    assert {"Workload", "Job", "WorkloadPriorityClass"} <= kinds
    assert engine_reads("Workload", ("spec", "podSets", 0, "template", "spec", "containers", 0, "resources",
                                     "requests", "cpu"))
    assert not engine_reads("Workload", ("spec", "podSets", 0, "template", "spec", "containers", 0, "image"))


def test_the_fuzz_covers_every_sample() -> None:
    names = {c.name for c in CASES}
    assert {d.name for d in (REPO / "samples").iterdir() if d.is_dir()} <= names
    assert sum(len(c.documents) for c in CASES) > 30
    assert {c.product for c in CASES} == set(PRODUCTS)


@pytest.mark.parametrize("product", PRODUCTS)
def test_every_command_reads_every_schedulers_samples(product: str) -> None:
    """replay, diff and plan included: the property is checked on each command for each scheduler."""
    case = next(c for c in CASES if c.product == product and (c.cluster_queue is not None or not c.kueue))
    assert set(commands(case, "inputs")) == {"simulate", "explain", "audit", "convert", "replay", "diff", "plan"}


@pytest.mark.parametrize("document, rejected", [
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "a"},
      "spec": {"clusterQueue": "cq"}}, False),
    ({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "a"},
      "spec": {"clusterQueue": ["cq"]}}, True),
    ({"apiVersion": "v9", "kind": "Unknown"}, None),
])
def test_the_schema_oracle_can_say_no(document: dict[str, Any], rejected: bool | None) -> None:
    assert schema_rejects(document) is rejected


def test_the_unmutated_samples_run_cleanly(tmp_path: Path) -> None:
    case = next(c for c in CASES if c.name == "cohort-borrowing")
    inputs = write_inputs(tmp_path, Mutated(case, 0, case.documents[0]))
    assert run_kqctl("validate", inputs).code == EXIT_OK
    simulated = run_kqctl("simulate", inputs, "--now", NOW)
    assert simulated.code == EXIT_OK and "Admitted" in simulated.out
    assert run_kqctl("explain", case.workload, inputs, "--now", NOW).code == EXIT_OK
    broken = run_kqctl("validate", str(REPO / "samples" / "broken"))
    assert broken.code == 1 and "SCHEMA-" in broken.out
