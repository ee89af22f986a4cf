"""YuniKorn conformance, config-validation/ with ``scope: function``: one validator function of YuniKorn's
(``checkQueues``, ``checkLimitResource``, ...) on a fragment, as YuniKorn's own unit tests call it, through
the package API. The whole-config cases (and the ``derived_full_config`` of these) run through
``kqctl validate`` in test_yunikorn_config_validation.py."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from yunikorn_conformance import load

from kqctl.yunikorn.api import configvalidator as cv
from kqctl.yunikorn.api.config import parse_fragment
from kqctl.yunikorn.api.names import QUEUE_NAME_MESSAGE, is_queue_name_valid

CASES = [(name, case) for name, case in load("config-validation") if case["scope"] == "function"]


def _fragment(value: Any, kind: str) -> Any:
    text = value if isinstance(value, str) else yaml.safe_dump(value)
    decoded, errors = parse_fragment(text, kind)
    assert not errors, errors
    if kind == "partition" and decoded.queues == []:
        # The recorder wrote the Go struct with yaml.Marshal, which writes a nil Queues slice (the field has no
        # omitempty) as [] too: in these fragments [] stands for Go's nil.
        decoded.queues = None
    return decoded


def _run(function: str, case: dict[str, Any]) -> tuple[cv.ConfigValidator, Any]:
    """Call the kqctl counterpart of ``function``; returns the validator (its violations) and any result."""
    v = cv.ConfigValidator()
    text = case["input"]
    result: Any = None
    if function == "checkLimitMaxApplications":
        v.check_limit_max_applications(_fragment(text, "queue"), {}, {})
    elif function == "checkLimitResource":
        v.check_limit_resource(_fragment(text, "queue"), {}, {})
    elif function == "checkLimits":
        wrapper = yaml.safe_load(text)
        v.check_limits(_fragment(wrapper.get("limits") or [], "limits"), wrapper.get("obj", ""),
                       _fragment(wrapper["queue"], "queue"))
    elif function == "checkLimitsStructure":
        v.check_limits_structure(_fragment(text, "partition"))
    elif function == "checkNodeSortingPolicy":
        v.check_node_sorting_policy(_fragment(text, "partition"))
    elif function == "checkPlacementRule":
        v.check_placement_rule(_fragment(text, "rule"))
    elif function == "checkPlacementRules":
        v.check_placement_rules(_fragment(text, "partition"))
    elif function == "checkQueueHierarchyForPlacement":
        wrapper = yaml.safe_load(text)
        result = cv.check_queue_hierarchy_for_placement(
            wrapper["path"], wrapper["create"], wrapper["hasDynamicPart"],
            _fragment(wrapper.get("queues") or [], "queues"), None)
    elif function == "checkQueueMaxApplications":
        v.check_queue_max_applications(_fragment(text, "queue"))
    elif function == "checkQueues":
        v.check_queues(_fragment(text, "queue"), case["level"])
    elif function == "checkQueuesStructure":
        v.check_queues_structure(_fragment(text, "partition"))
    elif function == "checkQueueResource":
        assert case["parent_max"] == "nil resource"
        v.check_queue_resource(_fragment(text, "queue"), None)
    elif function == "getLongestPlacementPaths":
        result = v.get_longest_placement_paths(_fragment(text, "rules"))
    elif function == "checkPlacementFilter":
        v.check_placement_filter(_fragment(text, "filter"))
    elif function == "IsQueueNameValid":
        if not is_queue_name_valid(str(text)):
            v.violations.append(cv.Violation("YK-V7", QUEUE_NAME_MESSAGE, (), 1))
    else:
        raise AssertionError(f"no kqctl counterpart for {function}")
    return v, result


@pytest.mark.parametrize("name,case", CASES, ids=[name for name, _ in CASES])
def test_validator_function_matches_yunikorn(name: str, case: dict[str, Any]) -> None:
    function, expected = case["function"], case["expected"]
    validator, result = _run(function, case)
    if function == "checkQueueHierarchyForPlacement":
        assert result == (expected["result_code"], expected["last_queue"])
        return
    first = validator.first
    if expected["valid"]:
        assert first is None, first
    else:
        assert first is not None and first.message == expected["error"]
    if function == "getLongestPlacementPaths" and expected["valid"]:
        assert [{"create": p.create, "hasDynamicPart": p.has_dynamic_part, "path": p.path, "ruleChain": p.rule_chain,
                 "ruleNo": p.rule_no} for p in result] == expected["result"]
