"""explain's suggestions for YuniKorn (issue 18): each one lets the pod run when applied and simulated again, and
each is the smallest change that does, found by bisection on the amount in units a person writes."""

from __future__ import annotations

from datetime import timedelta

from yunikorn_build import node, pod, snapshot

from kqctl.yunikorn.engine import suggestions as suggest
from kqctl.yunikorn.engine.explain import explain_pod
from kqctl.yunikorn.engine.simulation import simulate

QUEUES = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources:
              max: {{vcore: 2}}
{limits}          - name: b
"""


def _changes(config: str, *pods: dict, key: str = "default/target") -> list[str]:  # type: ignore[type-arg]
    explanation = explain_pod(snapshot(config, node("n1", cpu="8", memory="32Gi"), *pods), key)
    assert all(s.verified and s.outcome == "Allocated" for s in explanation.suggestions)
    return [s.change for s in explanation.suggestions]


def _running(name: str, queue: str = "root.a", **extra: object) -> dict:  # type: ignore[type-arg]
    return pod(name, queue, name, node_name="n1", age=timedelta(hours=1), **extra)  # type: ignore[arg-type]


def test_yk_g3_a_max_is_raised_past_the_pods_that_would_take_the_room_first() -> None:
    # root.a's max (2) is full; a higher-priority pod waits ahead of the target: a max of 3 lets only that one in,
    # 4 is the smallest that lets the target run (the search goes past "in use + asked" and bisects back)
    config = QUEUES.format(limits="")
    changes = _changes(config, _running("r1"), _running("r2"), pod("ahead", "root.a", "ahead", priority=10),
                       pod("target", "root.a", "target"))
    assert changes[0] == "raise the max of root.a to vcore 4 (root.a vcore: it allows 2, 2 in use)"


def test_yk_g3_the_smallest_max_is_the_one_a_new_simulation_confirms() -> None:
    config = QUEUES.format(limits="")
    for vcore, state in (("3.999", "Pending"), ("4", "Allocated")):
        raised = config.replace("max: {vcore: 2}", f"max: {{vcore: {int(float(vcore) * 1000)}m}}")
        result = simulate(snapshot(raised, node("n1", cpu="8", memory="32Gi"), _running("r1"), _running("r2"),
                                   pod("ahead", "root.a", "ahead", priority=10), pod("target", "root.a", "target")))
        assert {p.name: p.state for p in result.pods}["target"] == state


def test_yk_p4_a_priority_offset_is_raised_by_the_smallest_amount_that_puts_the_queue_ahead() -> None:
    # the cluster has room for one more pod; root.b's pod (priority 10) goes before root.a's (priority 0) unless
    # root.a's offset lifts it to 10: a tie, which root.a's lower fair share wins (YK-S1) — not the 1000 more kqctl
    # used to offer
    config = QUEUES.format(limits="").replace("max: {vcore: 2}", "max: {vcore: 8}")
    pods = [_running(f"r{i}", "root.b", cpu="1") for i in range(7)]
    changes = _changes(config, *pods, pod("other", "root.b", "other", priority=10), pod("target", "root.a", "target"))
    assert "raise priority.offset of root.a from 0 to 10" in changes


def test_yk_g2_a_users_limit_on_applications_is_offered_raised() -> None:
    limits = ("            limits:\n              - limit: one-app\n                users: [alice]\n"
              "                maxapplications: 1\n")
    alice = {"yunikorn.apache.org/user.info": '{"user": "alice", "groups": ["devs"]}'}
    changes = _changes(QUEUES.format(limits=limits), _running("r1", annotations=alice),
                       pod("target", "root.a", "target", annotations=alice))
    assert changes[0] == "raise the maxapplications of user alice's limit one-app on root.a to 2 (root.a: it allows " \
        "1, 1 running)"


def test_yk_g2_limits_at_two_levels_are_raised_together() -> None:
    # one raised alone is not enough (and a child's above its parent's, YK-V19, would be refused)
    limits = ("            limits:\n              - limit: leaf\n                users: [alice]\n"
              "                maxresources: {vcore: 1}\n")
    config = QUEUES.format(limits=limits).replace("max: {vcore: 2}", "max: {vcore: 8}").replace(
        "        queues:\n          - name: a",
        "        limits:\n          - limit: top\n            users: [alice]\n            maxresources: {vcore: 1}\n"
        "        queues:\n          - name: a", 1)
    alice = {"yunikorn.apache.org/user.info": '{"user": "alice", "groups": ["devs"]}'}
    changes = _changes(config, _running("r1", annotations=alice), pod("target", "root.a", "target", annotations=alice))
    assert changes[0] == ("raise the maxresources of user alice's limit top on root to vcore 2 and of user alice's "
                          "limit leaf on root.a to vcore 2 (root vcore: it allows 1; root.a vcore: it allows 1)")


def test_v19_a_change_yunikorn_would_refuse_is_never_offered() -> None:
    # alice's limit on root.a (max vcore 2) is 1: a limit of 2 lets her second pod run; so would 3, but YuniKorn's
    # validator refuses a limit above its queue's max (YK-V19), so that change is not verified
    limits = ("            limits:\n              - limit: one-core\n                users: [alice]\n"
              "                maxresources: {vcore: 1}\n")
    alice = {"yunikorn.apache.org/user.info": '{"user": "alice", "groups": ["devs"]}'}
    inputs = snapshot(QUEUES.format(limits=limits), node("n1", cpu="8", memory="32Gi"),
                      _running("r1", annotations=alice), pod("target", "root.a", "target", annotations=alice))
    ref = suggest.LimitRef("user", "alice", "root.a", "one-core")
    found = suggest.verify(inputs, "default/target", [
        suggest.Fixed(f"limit {value}", suggest.set_limits({(ref, "vcore"): value * 1000}, {})) for value in (3, 2)])
    assert [s.change for s in found] == ["limit 2"]
