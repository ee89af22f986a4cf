"""YK-DECODE's did-you-mean offers only keys of the struct the unknown key was written in (yunikorn-core's
configs.* types), never the key itself; later errors' hints name YuniKorn's first one in a readable sentence."""

from __future__ import annotations

import pytest

from kqctl.yunikorn.validate.checks import FIRST_HINT, check_config_text, unknown_key_hint


@pytest.mark.parametrize(("message", "hint"), [
    ("field queues not found in type configs.SchedulerConfig",
     "queues is a key of a partition or a queue, not of the top level"),
    ("field placementrules not found in type configs.QueueConfig",
     "placementrules is a key of a partition, not of a queue"),
    ("field partition not found in type configs.SchedulerConfig", "did you mean partitions?"),
    ("field queue not found in type configs.PartitionConfig", "did you mean queues?"),
    ("field maxApplications not found in type configs.QueueConfig", "did you mean maxapplications?"),
    ("field guaranted not found in type configs.Resources", "did you mean guaranteed?"),
    ("field resources not found in type configs.Limit", "did you mean maxresources?"),
    ("field max not found in type configs.QueueConfig", "max is a key of resources, not of a queue"),
    ("field colour not found in type configs.Filter", "a placement rule's filter takes: type, users, groups"),
])
def test_yk_decode_hint_draws_from_the_keys_of_its_struct(message: str, hint: str) -> None:
    found = unknown_key_hint(message)
    assert found.startswith(hint), found
    key = message.split()[1]
    assert f"did you mean {key}?" not in found


def test_yk_decode_later_errors_name_the_first_readably() -> None:
    text = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        queues:\n"
            "          - name: a.b\n            maxApps: 3\n")
    findings = check_config_text(text).findings
    first = [f for f in findings if f.hint and FIRST_HINT in f.hint]
    later = [f for f in findings if f not in first]
    assert [f.rule_id for f in first] == ["YK-DECODE"] and [f.rule_id for f in later] == ["YK-V7"]
    assert later[0].hint == ("YuniKorn reports one error at a time: this one once YK-DECODE at "
                             "partitions[0].queues[0].queues[0].maxApps and the errors it checks earlier are fixed")
