"""--feature-gates: every gate Kueue defines is accepted, with Kueue's defaults at the reference commit."""

from __future__ import annotations

import pytest
from support import REPO

from kqctl.kueue.engine.feature_gates import KUEUE_FEATURE_GATES
from kqctl.kueue.engine.features import ADMISSION_GATES, DEFAULTS, FeatureGateError, FeatureGates, has_effect


@pytest.mark.parametrize("text, name, expected", [
    ("PartialAdmission=false", "PartialAdmission", False),
    ("TASFailedNodeReplacement=true", "TASFailedNodeReplacement", True),  # accepted, no effect on admission
    (" ConcurrentAdmission = TRUE ", "ConcurrentAdmission", True),
    ("", "PartialAdmission", True),  # Kueue's default
])
def test_known_gates_are_accepted(text: str, name: str, expected: bool) -> None:
    assert FeatureGates.parse(text).enabled(name) is expected


@pytest.mark.parametrize("overrides", [
    {},
    {"PartialAdmission": False, "TopologyAwareScheduling": False},
    {"ConcurrentAdmission": True},
])
def test_every_gate_reads_its_override_else_kueues_default(overrides: dict[str, bool]) -> None:
    gates = FeatureGates(overrides)
    for name in KUEUE_FEATURE_GATES:
        assert gates.enabled(name) is overrides.get(name, DEFAULTS[name]), name
    assert gates.enabled("NotAGateOfKueues") is False


def test_gates_compare_by_their_overrides_alone() -> None:
    assert FeatureGates({"PartialAdmission": False}) == FeatureGates({"PartialAdmission": False})
    assert FeatureGates({"PartialAdmission": False}) != FeatureGates({})
    assert FeatureGates({}).over({"ConcurrentAdmission": True}).enabled("ConcurrentAdmission") is True
    assert "_values" not in repr(FeatureGates({}))


@pytest.mark.parametrize("text, message", [
    ("PartialAdmision=false", "did you mean PartialAdmission"),
    ("NoSuchGateAtAll=true", "unknown feature gate 'NoSuchGateAtAll'"),
    ("PartialAdmission=maybe", "expected Name=true or Name=false"),
    ("PartialAdmission", "expected Name=true or Name=false"),
])
def test_unknown_or_malformed_gates_are_errors(text: str, message: str) -> None:
    with pytest.raises(FeatureGateError, match=message):
        FeatureGates.parse(text)


def test_a_gate_locked_to_its_default_cannot_be_changed() -> None:
    locked = sorted(name for name, (_, _, is_locked) in KUEUE_FEATURE_GATES.items() if is_locked)
    assert locked, "the reference commit has GA gates locked to their default"
    name = locked[0]
    default = DEFAULTS[name]
    assert FeatureGates.parse(f"{name}={str(default).lower()}").enabled(name) is default
    with pytest.raises(FeatureGateError, match="locked"):
        FeatureGates.parse(f"{name}={str(not default).lower()}")


def test_every_gate_the_engine_reads_is_one_kueue_defines() -> None:
    assert ADMISSION_GATES <= set(KUEUE_FEATURE_GATES)
    assert has_effect("PartialAdmission") and not has_effect("LocalQueueMetrics")


def test_the_generated_table_is_what_the_generator_makes_of_kueues_source() -> None:
    import importlib.util
    path = REPO / "scripts" / "generate_feature_gates.py"
    spec = importlib.util.spec_from_file_location("generate_feature_gates", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    go = '''var defaultVersionedFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
\tPartialAdmission: {
\t\t{Version: version.MustParse("0.4"), Default: false, PreRelease: featuregate.Alpha},
\t\t{Version: version.MustParse("0.5"), Default: true, PreRelease: featuregate.Beta},
\t},
\tFuture: {
\t\t{Version: version.MustParse("0.99"), Default: true, PreRelease: featuregate.Alpha},
\t},
\tDone: {
\t\t{Version: version.MustParse("0.16"), Default: true, PreRelease: featuregate.Beta},
\t\t{Version: version.MustParse("0.20"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
\t},
}'''
    assert module.parse(go) == {"PartialAdmission": (True, "Beta", False), "Done": (True, "GA", True)}
