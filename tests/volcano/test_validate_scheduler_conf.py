"""kqctl validate --scheduler-conf FILE: a bare volcano-scheduler.conf checked (VC-CONF-*) with lines in that file,
and used by the lints that depend on the configuration (VC-LINT-DESERVED-IGNORED, -WEIGHT-IGNORED,
-UNRECLAIMABLE) in place of a ConfigMap in the input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import run_kqctl
from tests.volcano.builders import conf, queue

PROPORTION = 'actions: "enqueue, allocate, reclaim"\ntiers:\n- plugins:\n  - name: proportion\n'
CAPACITY = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: capacity\n'


def validate(tmp_path: Path, objects: list[dict[str, Any]], conf_text: str,
             *args: str) -> tuple[int, list[tuple[str, str, int]]]:
    """(exit code, [(rule, file name, line)]) of validate with the text as --scheduler-conf."""
    inputs = tmp_path / "in.yaml"
    inputs.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    conf_file = tmp_path / "volcano-scheduler.conf"
    conf_file.write_text(conf_text, encoding="utf-8")
    run = run_kqctl("validate", str(inputs), "--scheduler-conf", str(conf_file), "-o", "json", *args)
    assert run.code in (0, 1), run.err
    found = [(f["ruleId"], Path(d["file"]).name, f["line"]) for d in json.loads(run.out)["documents"]
             for f in d["findings"]]
    return run.code, found


@pytest.mark.parametrize("conf_text,expected", [
    ('actions: "enqueue, alocate"\ntiers:\n- plugins:\n  - name: proportion\n', [("VC-CONF-ACTION", 1)]),
    ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: proportion\n  - name: drf\n'
     '    enableHierarchy: true\n', [("VC-CONF-CONFLICT", 3)]),
    ('actions: "enqueue, allocate"\ntiers: 5\n', [("VC-CONF-INVALID", 2)]),
    ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: proportion\n  - name: slaa\n',
     [("VC-CONF-PLUGIN", 5)]),
    ('actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: proportion\n    enabledJobEnqueued: true\n',
     [("VC-CONF-KEY", 5)]),
])
def test_vc_conf_action_conflict_invalid_plugin_key_in_a_bare_file(tmp_path: Path, conf_text: str,
                                                                   expected: list[tuple[str, int]]) -> None:
    code, found = validate(tmp_path, [queue("q")], conf_text)
    assert [(rule, line) for rule, name, line in found if name == "volcano-scheduler.conf"] == expected
    assert code == (1 if any(r in ("VC-CONF-ACTION", "VC-CONF-CONFLICT", "VC-CONF-INVALID") for r, _ in expected)
                    else 0)


@pytest.mark.parametrize("objects,conf_text,rule", [
    ([queue("a", deserved={"cpu": "4"})], PROPORTION, "VC-LINT-DESERVED-IGNORED"),
    ([queue("a", deserved={"cpu": "4"})], CAPACITY, None),
    ([queue("a", weight=3)], CAPACITY, "VC-LINT-WEIGHT-IGNORED"),
    ([queue("a", weight=3)], PROPORTION, None),
    ([queue("a", reclaimable=False)], PROPORTION, "VC-LINT-UNRECLAIMABLE"),
    ([queue("a", reclaimable=False)], CAPACITY, None),  # no reclaim action
    # --scheduler-conf wins over a ConfigMap in the input, as in simulate.
    ([conf("enqueue, allocate", ["proportion"]), queue("a", weight=3)], CAPACITY, "VC-LINT-WEIGHT-IGNORED"),
])
def test_vc_lint_deserved_ignored_weight_ignored_unreclaimable_follow_the_scheduler_conf(
        tmp_path: Path, objects: list[dict[str, Any]], conf_text: str, rule: str | None) -> None:
    _, found = validate(tmp_path, objects, conf_text)
    lints = [r for r, _, _ in found if r.startswith("VC-LINT")]
    assert lints == ([rule] if rule else [])


def test_vc_conf_scheduler_conf_errors(tmp_path: Path) -> None:
    inputs = tmp_path / "in.yaml"
    inputs.write_text(yaml.safe_dump(queue("q")), encoding="utf-8")
    missing = run_kqctl("validate", str(inputs), "--scheduler-conf", str(tmp_path / "nope.conf"))
    assert missing.code == 3 and "cannot read --scheduler-conf" in missing.err
    empty = tmp_path / "empty.conf"
    empty.write_text("", encoding="utf-8")
    run = run_kqctl("validate", str(inputs), "--scheduler-conf", str(empty))
    assert run.code == 3 and "holds no configuration" in run.err
    kueue = run_kqctl("validate", str(inputs), "--scheduler", "kueue", "--scheduler-conf", str(empty))
    assert kueue.code == 2 and "--scheduler-conf applies to Volcano only" in kueue.err


@pytest.mark.parametrize("written, shown", [
    ("1.5", "1.5"), ("1.33", "1.33"), ("1.50", "1.5"), ("-0.25", "-0.25"), ("2.0", "2"), ("1.0e-3", "0.001"),
    ("3", "3"), ("true", "true"), ("null", "null"), ("text", "text"), ("[1.5, a]", "[1.5, a]"),
    ("{a: 0.5}", "{a: 0.5}"),
])
def test_a_plugin_argument_reads_as_the_decimal_written_never_as_a_fraction(written: str, shown: str) -> None:
    from kqctl.volcano.api.config import argument_text
    from kqctl.volcano.load import conf_from_text

    text = f"actions: allocate\ntiers:\n- plugins:\n  - name: overcommit\n    arguments:\n      key: {written}\n"
    plugin = conf_from_text(text, "test", "volcano-scheduler.conf", 1).tiers[0][0]
    assert argument_text(plugin.argument("key")) == shown
