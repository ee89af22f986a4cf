"""YuniKorn conformance, config-validation/: every whole configuration (``scope: full-config``, and the
``derived_full_config`` of the function-level cases) through the real ``kqctl validate --scheduler yunikorn``.

``effective.validateConf`` of a document is YuniKorn's own answer (``allowed``, ``reason``: the first error,
word for word, for ``error_stage: validate``; any decode failure for ``yaml-decode``). Probes of valid configs
also pin what fails only when the queues are built (``queue_creation_error``: a YK-V20 finding with that
text) and the queues' parsed limits (``effective_queues``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support import run_kqctl
from yunikorn_conformance import load

from kqctl.yunikorn.validate.checks import FIRST_HINT

# YuniKorn's messages and the rule of the spec's validation table each belongs to (§4): the first error's ruleId
# must be that rule. Written from the table, not from kqctl's code.
RULE_OF_MESSAGE = [
    (r"duplicate partition name", "YK-V1"),
    (r"queue config is not set", "YK-V2"),
    (r"top queue name is", "YK-V3"),
    (r"root queue must not have resource limits set", "YK-V4"),
    (r"partition limits and root queue limits are not equivalent", "YK-V5"),
    (r"multiple spaces found in ACL", "YK-V6"),
    (r"invalid queue name", "YK-V7"),
    (r"duplicate child name", "YK-V8"),
    (r"invalid (quantity|suffix)|parse queue \S+ max resource failed", "YK-V9"),
    (r"guaranteed resource map\[", "YK-V10"),
    (r"max resource of parent", "YK-V11"),
    (r"guaranteed resource of parent", "YK-V12"),
    (r"max resource map\[.* is smaller than sum of guaranteed", "YK-V13"),
    (r"invalid rule name", "YK-V14"),
    (r"invalid rule filter", "YK-V15"),
    (r"placement rule no\.|illegal fully qualified 'fixed' rule", "YK-V16"),
    (r"undefined policy|negative resource weight", "YK-V17"),
    (r"maxApplications is either undefined|parent maxApplications must be larger", "YK-V18"),
    (r"empty user and group lists|invalid limit (user|group) name|duplicated (user|group) name|should not |"
     r"MaxResources should be|invalid resource combination|invalid MaxApplications|invalid MaxResources|"
     r"(user|group) \S+ max (resource|applications)", "YK-V19"),
]


def yunikorns_words(message: str, error: str) -> str:
    """The finding's message without the human hint kqctl may add after YuniKorn's exact words (``(vcore 8 >
    4)``): the words themselves must be YuniKorn's, character for character."""
    if message.startswith(error + " (") and message.endswith(")"):
        hint = message[len(error) + 2:-1]
        assert re.fullmatch(r"[\w./-]+ [\w.]+ > [\w.]+(, [\w./-]+ [\w.]+ > [\w.]+)*|\d+ > \d+", hint), hint
        return error
    return message


def rule_of(message: str) -> str | None:
    return next((rule for pattern, rule in RULE_OF_MESSAGE if re.match(pattern, message)), None)


WHOLE: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = []
for _name, _case in load("config-validation"):
    if _case["scope"] == "full-config":
        WHOLE.append((_name, _case["input"], _case["expected"], _case))
    if "derived_full_config" in _case:
        _derived = _case["derived_full_config"]
        WHOLE.append((f"{_name}.derived", _derived["input"], _derived["expected"], {}))


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """One ``kqctl validate`` over a directory holding every case as its own queues.yaml file."""
    directory = tmp_path_factory.mktemp("yunikorn-configs")
    for name, text, _, _ in WHOLE:
        (directory / f"{name}.yaml").write_text(text)
    run = run_kqctl("validate", "--scheduler", "yunikorn", "-o", "json", str(directory))
    assert run.code in (0, 1, 3), run.err
    by_file: dict[str, list[dict[str, Any]]] = {}
    for document in json.loads(run.out)["documents"]:
        by_file.setdefault(Path(document["file"]).stem, []).append(document)
    return by_file


@pytest.mark.parametrize("name,text,expected,case", WHOLE, ids=[w[0] for w in WHOLE])
def test_validate_gives_yunikorns_answer(reports: dict[str, list[dict[str, Any]]], name: str, text: str,
                                         expected: dict[str, Any], case: dict[str, Any]) -> None:
    [document] = reports[name]
    findings = document["findings"]
    if any(f["ruleId"] == "LOAD-UNREADABLE" for f in findings):
        # kqctl's own reader refuses text that is not YAML: YuniKorn's decode fails on it too.
        assert expected["valid"] is False and expected.get("error_stage") == "yaml-decode"
        return
    answer = document["effective"]["validateConf"]
    assert answer["allowed"] is expected["valid"]
    if expected["valid"]:
        assert not [f for f in findings if f["hint"] == FIRST_HINT]
    elif expected.get("error_stage") == "yaml-decode":
        assert answer["reason"].startswith("yaml:")
        firsts = [f for f in findings if f["hint"] and f["hint"].endswith(FIRST_HINT)]
        assert [f["ruleId"] for f in firsts] in (["YK-DECODE"], ["YK-PARSE"])
    else:
        assert answer["reason"] == expected["error"]
        firsts = [f for f in findings if f["hint"] == FIRST_HINT]
        assert [yunikorns_words(f["message"], expected["error"]) for f in firsts] == [expected["error"]]
        rule = rule_of(expected["error"])
        if rule is not None:
            assert firsts[0]["ruleId"] == rule
    if "queue_creation_error" in expected:
        created = [f["message"] for f in findings
                   if f["ruleId"] == "YK-V20" and f["message"].startswith("configured queue creation failed")]
        assert created == ([expected["queue_creation_error"]] if expected["queue_creation_error"] else [])
    for path, limits in (case.get("effective_queues") or {}).items():
        [queue] = [q for q in document["effective"]["partitions"][0]["queues"] if q["path"] == path]
        assert {"guaranteed": queue["guaranteed"], "leaf": queue["leaf"], "max": queue["max"],
                "max_apps": queue["maxApplications"]} == limits
