"""--set queue/root.PATH.FIELD=VALUE goes through validate's checks: what validate warns of the edited field in a
file (an unknown property key, a value that does not parse, cpu for vcore) is a usage error naming the --set with
validate's words and hint; an error YuniKorn refuses the configuration for (a bad quantity, guaranteed above max)
ends the command with exit 3 as the API server's rejections do for Kueue and Volcano; a misspelt field gets a
did-you-mean, a dynamic queue is named as one."""

from __future__ import annotations

import pytest
from support import run_kqctl

PRIORITY = "samples/yunikorn-priority"
TENANTS = "samples/yunikorn-multi-tenant"
NOW = ("--now", "2026-01-01T12:00:00Z")

REFUSED = [
    # (id, sample, --set, words the error must hold)
    ("unknown-property-key", PRIORITY, "queue/root.tenant1.properties.priority.ofset=11",
     ["property priority.ofset is not one YuniKorn knows", "YK-V23", "did you mean priority.offset?"]),
    ("bad-property-value", PRIORITY, "queue/root.tenant1.properties.priority.policy=bogus",
     ["'bogus' is not default or fence", "YK-V22"]),
    ("offset-not-a-number", PRIORITY, "queue/root.tenant1.properties.priority.offset=high",
     ["'high' is not a 32-bit decimal integer", "YK-V22"]),
    ("cpu-for-vcore", PRIORITY, "queue/root.tenant1.resources.max.cpu=10", ["YK-V24", "write 'vcore' instead"]),
    ("misspelt-resources", PRIORITY, "queue/root.tenant1.resource.max.vcore=10",
     ["resource.max.vcore is not a queue field", "did you mean resources.max.vcore?"]),
    ("misspelt-max", PRIORITY, "queue/root.tenant1.resources.maximum.vcore=10",
     ["did you mean resources.max.vcore?"]),
    ("misspelt-property-head", PRIORITY, "queue/root.tenant1.propertes.priority.offset=3",
     ["did you mean properties.priority.offset?"]),
    ("misspelt-queue", PRIORITY, "queue/root.tenant9.properties.priority.offset=1", ["did you mean tenant2?"]),
    ("dynamic-queue", TENANTS, "queue/root.ml.training.resources.max.vcore=10",
     ["root.ml.training is a dynamic queue, not in the configuration", "created by placement", "giant",
      "add root.ml.training to the configuration"]),
]


@pytest.mark.parametrize(("sample", "setting", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
@pytest.mark.parametrize("command", ["diff", "simulate"])
def test_a_queue_override_validate_would_flag_is_a_usage_error(command: str, sample: str, setting: str,
                                                               words: list[str]) -> None:
    run = run_kqctl(command, sample, "--set", setting, *NOW)
    assert run.code == 2, run.out + run.err
    assert f"--set {setting!r}" in run.err
    assert all(word in run.err for word in words), run.err
    assert "Traceback" not in run.err


REJECTED = [
    # (id, sample, --set, words the error must hold): errors YuniKorn refuses the configuration for
    ("decimal-quantity", PRIORITY, "queue/root.tenant1.resources.max.vcore=2.5", ["invalid quantity", "YK-V9"]),
    ("guaranteed-above-max", PRIORITY, "queue/root.tenant1.resources.guaranteed.vcore=100",
     ["is larger than maximum resource", "(vcore 100 > 8)", "YK-V10"]),
]


@pytest.mark.parametrize(("sample", "setting", "words"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
@pytest.mark.parametrize("command", ["diff", "simulate", "replay"])
def test_a_queue_override_yunikorn_would_reject_ends_with_exit_3_at_the_configuration(
        command: str, sample: str, setting: str, words: list[str]) -> None:
    # As a value the API server rejects for Kueue and Volcano (README, --set): exit 3, located at the configuration
    # the --set changes, the --set named.
    run = run_kqctl(command, sample, "--set", setting, *NOW)
    assert run.code == 3, run.out + run.err
    assert run.err.startswith(f"kqctl: error: {sample}/yunikorn-configs.yaml:3 (document 1): --set {setting!r}: "
                              "YuniKorn would reject the queue configuration: "), run.err
    assert all(word in run.err for word in words), run.err


@pytest.mark.parametrize("setting", ["queue/root.tenant1.properties.priority.offset=11",
                                     "queue/root.tenant1.properties.priority.policy=default",
                                     "queue/root.tenant1.resources.max.vcore=12",
                                     "queue/root.tenant1.a.maxapplications=3",
                                     "queue/root.system.submitacl=alice"])
def test_a_queue_override_validate_accepts_goes_through(setting: str) -> None:
    assert run_kqctl("diff", PRIORITY, "--set", setting, *NOW).code == 0


def test_an_override_of_a_file_with_problems_of_its_own_is_checked_on_its_own_field() -> None:
    """Only what the override brings is refused: the broken sample's queue data keeps its V22 and V23 (validate
    reports them), and an override of another field of it goes through the checks of its own field only."""
    run = run_kqctl("validate", "samples/yunikorn-broken/queues.yaml",
                    "--set", "queue/root.data.properties.priority.offset=3")
    assert run.code != 2, run.err
