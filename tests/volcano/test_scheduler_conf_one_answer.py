"""A volcano-scheduler.conf given with --scheduler-conf gets one answer from every command: simulate refuses what
validate reports as an error at the same line with the same rule ID, and writes the fields of its warnings as
validate does (tiers[0].plugins[1]); an empty action is one plain finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import run_kqctl

SAMPLE = str(Path(__file__).resolve().parents[2] / "samples" / "volcano-two-teams")
CONFLICT = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n' \
           "  - {name: drf, enableHierarchy: true}\n  - name: proportion\n"
UNKNOWN_ACTION = 'tiers:\n- plugins:\n  - name: gang\nactions: "enqueue, alocate"\n'
EMPTY_ACTION = 'actions: "enqueue,,allocate, "\ntiers:\n- plugins:\n  - name: gang\n'
WARNINGS = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: barplugin\n' \
           "  - {name: proportion, enableFoo: true}\n"


@pytest.mark.parametrize("text,line,rule", [
    (CONFLICT, 3, "VC-CONF-CONFLICT"),
    (UNKNOWN_ACTION, 4, "VC-CONF-ACTION"),
    (EMPTY_ACTION, 1, "VC-CONF-ACTION"),
])
def test_simulate_refuses_a_conf_file_where_and_as_validate_reports_it(tmp_path: Path, text: str, line: int,
                                                                       rule: str) -> None:
    conf = tmp_path / "scheduler.conf"
    conf.write_text(text, encoding="utf-8")
    validated = run_kqctl("validate", SAMPLE, "--scheduler-conf", str(conf))
    assert validated.code == 1 and f"{conf}:{line} " in validated.out and rule in validated.out, validated.out
    simulated = run_kqctl("simulate", SAMPLE, "--scheduler-conf", str(conf))
    assert simulated.code == 3 and f"{conf}:{line}:" in simulated.err and f"({rule};" in simulated.err, simulated.err


def test_conf_warnings_name_fields_and_rules_as_validate_does(tmp_path: Path) -> None:
    conf = tmp_path / "scheduler.conf"
    conf.write_text(WARNINGS, encoding="utf-8")
    simulated = run_kqctl("simulate", SAMPLE, "--scheduler-conf", str(conf))
    validated = run_kqctl("validate", SAMPLE, "--scheduler-conf", str(conf))
    assert simulated.code == 0, simulated.err
    said = simulated.out + simulated.err
    for field, rule in (("tiers[0].plugins[1].name", "VC-CONF-PLUGIN"), ("tiers[0].plugins[2].enableFoo",
                                                                         "VC-CONF-KEY")):
        assert f"volcano-scheduler.conf {field}: " in said and f"({rule}" in said, said
        assert field in validated.out and rule in validated.out
    assert "tiers.0" not in said


def test_an_empty_action_is_one_finding_in_plain_words(tmp_path: Path) -> None:
    conf = tmp_path / "scheduler.conf"
    conf.write_text(EMPTY_ACTION, encoding="utf-8")
    run = run_kqctl("validate", SAMPLE, "--scheduler-conf", str(conf), "-o", "json")
    messages = [f["message"] for d in json.loads(run.out)["documents"] for f in d["findings"]
                if f["ruleId"] == "VC-CONF-ACTION"]
    assert len(messages) == 1 and "  " not in messages[0] and 'Action ""' in messages[0], messages
