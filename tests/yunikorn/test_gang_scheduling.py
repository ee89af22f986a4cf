"""Gang scheduling, rule by rule (YK-GANG-1..5): the shim's placeholders and reservation, the core's replacement
and its placeholder timeout (kqctl.yunikorn.engine.gang)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from support import run_kqctl
from yunikorn_build import NOW, configmap, node, pod, snapshot, text

from kqctl.yunikorn.api.snapshot import HARD, SOFT, GangPolicy, TaskGroup
from kqctl.yunikorn.engine.gang import PlaceholderData, placeholder_name
from kqctl.yunikorn.engine.simulation import SimulationResult, simulate
from kqctl.yunikorn.load import gang_policy, read_task_groups

CONFIG = """partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: spark
          - name: other
"""
TASK_GROUPS = "yunikorn.apache.org/task-groups"
TASK_GROUP = "yunikorn.apache.org/task-group-name"
POLICY = "yunikorn.apache.org/schedulingPolicyParameters"
PLACEHOLDER = "internal.yunikorn.apache.org/placeholder"
EXECUTORS = [{"name": "executors", "minMember": 2, "minResource": {"cpu": "2", "memory": "2Gi"}}]


def _driver(groups: list[dict[str, Any]] = EXECUTORS, policy: str = "", age: timedelta = timedelta(minutes=5),
            **extra: Any) -> dict[str, Any]:
    notes = {TASK_GROUPS: json.dumps(groups), **({POLICY: policy} if policy else {})}
    return pod("driver", "root.spark", "spark", cpu="1", memory="1Gi", annotations=notes, age=age, **extra)


def _executor(i: int, cpu: str = "2", group: str = "executors", **extra: Any) -> dict[str, Any]:
    return pod(f"exec-{i}", "root.spark", "spark", cpu=cpu, memory="2Gi", annotations={TASK_GROUP: group}, **extra)


def _placeholder(name: str, node_name: str = "", cpu: str = "2", group: str = "executors") -> dict[str, Any]:
    return pod(name, "root.spark", "spark", cpu=cpu, memory="2Gi", node_name=node_name,
               annotations={PLACEHOLDER: "true", TASK_GROUP: group, TASK_GROUPS: json.dumps(EXECUTORS)})


def _states(result: SimulationResult) -> dict[str, str]:
    return {p.name: p.state for p in result.pods}


# --- reading the annotations ---------------------------------------------------------------------------------


def test_task_groups_are_read_with_their_node_constraints() -> None:
    raw = json.dumps([{"name": "w", "minMember": 2, "minResource": {"cpu": "500m", "memory": "1Gi"},
                       "nodeSelector": {"zone": "a"}, "tolerations": [{"key": "gpu", "operator": "Exists"}],
                       "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                           "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Exists"}]}]}}}}])
    total, groups, why = read_task_groups(raw)
    assert why == "" and total == {"pods": 2, "vcore": 1000, "memory": 2 * 2**30}
    assert groups == (TaskGroup("w", 2, {"vcore": 500, "memory": 2**30}, {"zone": "a"},
                                ({"matchExpressions": [{"key": "k", "operator": "Exists"}]},),
                                ({"key": "gpu", "operator": "Exists"},)),)


@pytest.mark.parametrize(("raw", "expected"), [
    ("", GangPolicy(0, SOFT)),
    ("placeholderTimeoutInSeconds=60 gangSchedulingStyle=Hard", GangPolicy(60, HARD)),
    ("gangSchedulingStyle=hard", GangPolicy(0, SOFT)),  # only Hard as written is Hard
    ("placeholderTimeoutInSeconds=abc", GangPolicy(0, SOFT)),  # ParseInt fails: 0, the core's default
    ("placeholderTimeoutInSeconds=-5", GangPolicy(-5, SOFT)),  # the core's default applies (not > 0)
    ("placeholderTimeoutInSeconds", GangPolicy(0, SOFT)),  # not a pair: skipped
])
def test_scheduling_policy_parameters_as_the_shim_reads_them(raw: str, expected: GangPolicy) -> None:
    assert gang_policy(raw) == expected


@pytest.mark.parametrize(("data", "replaceable"), [
    (PlaceholderData(2, 0, 0), True), (PlaceholderData(2, 1, 0), True), (PlaceholderData(2, 1, 1), False),
    (PlaceholderData(2, 2, 0), False), (PlaceholderData(0, 0, 0), False),
])
def test_yk_gang_3_can_replace_while_placeholders_outnumber_replaced_and_timed_out(data: PlaceholderData,
                                                                                 replaceable: bool) -> None:
    assert data.replaceable() is replaceable


def test_placeholder_names_are_cut_as_the_shim_cuts_them() -> None:
    name = placeholder_name("a" * 40, "g" * 30, 12)
    assert name == f"tg-{'a' * 28}-{'g' * 20}-12" and len(name) <= 63


# --- YK-GANG-1: reserve or not -----------------------------------------------------------------------------


def test_yk_gang_1_the_shim_makes_min_member_placeholders_per_task_group() -> None:
    groups = [{"name": "executors", "minMember": 2, "minResource": {"cpu": "2", "memory": "2Gi"},
               "nodeSelector": {"pool": "batch"}},
              {"name": "driver", "minMember": 1, "minResource": {"cpu": "1"}}]
    result = simulate(snapshot(CONFIG, node("n1", cpu="16", memory="32Gi", metadata={"name": "n1",
                                                                                     "labels": {"pool": "batch"}}),
                               _driver(groups)))
    made = {p.name: p for p in result.pods if p.placeholder}
    assert sorted(made) == ["tg-spark-driver-1", "tg-spark-executors-1", "tg-spark-executors-2"]
    assert made["tg-spark-executors-1"].resource == {"vcore": 2000, "memory": 2 * 2**30, "pods": 1}
    assert made["tg-spark-driver-1"].task_group == "driver"
    assert {p.state for p in made.values()} == {"Allocated"}


def test_yk_gang_1_placeholders_carry_the_groups_node_selector() -> None:
    groups = [{"name": "executors", "minMember": 1, "minResource": {"cpu": "1"}, "nodeSelector": {"pool": "gpu"}}]
    plain = node("n1", cpu="8")
    result = simulate(snapshot(CONFIG, plain, _driver(groups)))
    placeholder = next(p for p in result.pods if p.placeholder)
    assert placeholder.state == "Pending" and "predicates" in placeholder.reason


def test_yk_gang_1_no_placeholders_once_a_real_pod_is_bound() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(node_name="n1"), _executor(0)))
    assert not any(p.placeholder for p in result.pods)
    assert _states(result) == {"driver": "Running", "exec-0": "Allocated"}


def test_yk_gang_1_placeholders_in_the_cluster_are_taken_and_only_the_missing_made() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(), _executor(0),
                               _placeholder("tg-spark-executors-x1", "n1")))
    placeholders = sorted(p.name for p in result.pods if p.placeholder)
    assert placeholders == ["tg-spark-executors-1", "tg-spark-executors-x1"]


@pytest.mark.parametrize(("style", "expected"), [
    ("Hard", {"driver": "Failed", "exec-0": "Failed"}),
    ("Soft", {"driver": "Allocated", "exec-0": "Allocated"}),
])
def test_yk_gang_1_timeout_passed_before_any_placeholder(style: str, expected: dict[str, str]) -> None:
    driver = _driver(policy=f"placeholderTimeoutInSeconds=60 gangSchedulingStyle={style}")
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), driver, _executor(0)))
    assert _states(result) == expected  # no placeholders either way
    if style == "Hard":
        assert result.pods[0].reason.startswith("Scheduling has timed out due to insufficient resources")


def test_yk_gang_1_the_core_default_timeout_does_not_stop_the_shim_on_a_restart() -> None:
    # no timeout given: the shim's own check is off, whatever the application's age
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(age=timedelta(hours=5)), _executor(0)))
    assert any(p.placeholder for p in result.pods)


def test_yk_gang_1_a_rejected_application_gets_no_placeholders() -> None:
    small = CONFIG.replace("- name: spark", "- name: spark\n            resources: {max: {vcore: 1}}")
    result = simulate(snapshot(small, node("n1", cpu="8"), _driver(), _executor(0)))
    assert _states(result) == {"driver": "Rejected", "exec-0": "Rejected"}


# --- YK-GANG-2: only placeholders while Reserving ---------------------------------------------------------------


def test_yk_gang_2_real_pods_wait_until_every_placeholder_is_allocated() -> None:
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), busy, _driver(), _executor(0), _executor(1)))
    states = _states(result)
    assert states["driver"] == states["exec-0"] == "Pending"
    assert sorted(p.state for p in result.pods if p.placeholder) == ["Allocated", "Pending"]
    driver = next(p for p in result.pods if p.name == "driver")
    assert "task group executors 1 of 2 allocated (YK-GANG-2)" in driver.reason


def test_yk_gang_2_then_the_real_pods_are_sent() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(), _executor(0), _executor(1)))
    kinds = [(e.kind, e.pod.split("/")[1]) for e in result.events]
    assert kinds[:2] == [("allocated", "tg-spark-executors-1"), ("allocated", "tg-spark-executors-2")]
    assert {pod for kind, pod in kinds[2:]} == {"exec-0", "exec-1", "driver"}


# --- YK-GANG-3 and YK-GANG-4: replacement --------------------------------------------------------------------


def test_yk_gang_4_a_real_pod_takes_its_placeholders_node() -> None:
    # n2 is emptier (fair node sorting would pick it), but the real pod goes where its placeholder is
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), node("n2", cpu="16"), _driver(node_name="n2"),
                               _placeholder("tg-spark-executors-a", "n1"), _executor(0)))
    by_name = {p.name: p for p in result.pods}
    assert by_name["exec-0"].node == "n1" and by_name["exec-0"].replaced == "default/tg-spark-executors-a"
    assert by_name["tg-spark-executors-a"].state == "Replaced"
    assert by_name["tg-spark-executors-a"].reason == "replaced by default/exec-0 (YK-GANG-4)"
    assert [e.kind for e in result.events] == ["replaced"]


def test_yk_gang_4_a_smaller_placeholder_is_released_and_the_real_pod_allocated_as_any() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(node_name="n1"),
                               _placeholder("tg-spark-executors-a", "n1", cpu="1"), _executor(0, cpu="2")))
    by_name = {p.name: p for p in result.pods}
    assert by_name["tg-spark-executors-a"].state == "Released"
    assert "resource incompatible: default/exec-0 asks more than it holds" in by_name["tg-spark-executors-a"].reason
    assert by_name["exec-0"].state == "Allocated" and by_name["exec-0"].replaced == ""


def test_yk_gang_4_a_placeholders_node_failing_the_real_pods_predicates_sends_it_to_the_first_fit() -> None:
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), node("n2", cpu="8", metadata={
        "name": "n2", "labels": {"disk": "ssd"}}), _driver(node_name="n2"), _placeholder("tg-spark-executors-a", "n1"),
        _executor(0, nodeSelector={"disk": "ssd"})))
    by_name = {p.name: p for p in result.pods}
    assert by_name["exec-0"].node == "n2" and by_name["exec-0"].replaced == "default/tg-spark-executors-a"
    assert by_name["tg-spark-executors-a"].state == "Replaced"


def test_yk_gang_3_a_real_pod_of_a_group_with_placeholders_waits_for_a_replacement() -> None:
    # its placeholder's node fails its predicates and no other node fits it: as an ordinary ask it would not run
    # either, but the reason names the replacement it waits for
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), _driver(node_name="n1"),
                               _placeholder("tg-spark-executors-a", "n1"), _executor(0, nodeSelector={"disk": "ssd"})))
    exec0 = next(p for p in result.pods if p.name == "exec-0")
    assert exec0.state == "Pending" and "(YK-GANG-3, YK-GANG-4)" in exec0.reason


# --- explain, replay (YK-GANG-5) -------------------------------------------------------------------------------


def _write(tmp_path: Path, *objects: dict[str, Any]) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(text([configmap(CONFIG), *objects]))
    return path


def _busy_cluster(tmp_path: Path, policy: str) -> Path:
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")
    young = timedelta(seconds=30)  # the application's age counts from its first pod (YK-GANG-1)
    return _write(tmp_path, node("n1", cpu="8"), busy, _driver(policy=policy, age=young),
                  _executor(0, age=young), _executor(1, age=young))


def test_explain_shows_the_gang_and_the_placeholder_it_waits_for(tmp_path: Path) -> None:
    path = _busy_cluster(tmp_path, "placeholderTimeoutInSeconds=120")
    out = run_kqctl("explain", "default/exec-0", str(path), "--now", NOW.isoformat()).out
    assert "Gang scheduling (YK-GANG-1): the shim reserves: placeholders first" in out
    assert "task group executors: minMember 2 of vcore 2, memory 2Gi; placeholders: 1 allocated, 1 pending" in out
    assert "the gang waits for default/tg-spark-executors-2" in out
    assert "placeholder timeout 2m from the first placeholder allocation (here: 2m after --now)" in out
    data = json.loads(run_kqctl("explain", "default/exec-0", str(path), "--now", NOW.isoformat(), "-o", "json").out)
    assert data["gang"]["blocker"] == "default/tg-spark-executors-2" and data["gang"]["timeoutSeconds"] == 120
    assert data["gang"]["timesOutAt"] == "2026-05-01T12:02:00Z"


def _replayed(path: Path) -> dict[str, Any]:
    out = run_kqctl("replay", str(path), "--now", NOW.isoformat(), "--runtime", "5m", "-o", "json").out
    return json.loads(out)["pods"]  # type: ignore[no-any-return]


def test_yk_gang_5_hard_fails_the_application_when_its_placeholders_time_out(tmp_path: Path) -> None:
    pods = _replayed(_busy_cluster(tmp_path, "placeholderTimeoutInSeconds=120 gangSchedulingStyle=Hard"))
    assert {key: p["state"] for key, p in pods.items()} == {
        "default/big": "Finished", "default/driver": "Failed", "default/exec-0": "Failed", "default/exec-1": "Failed"}


def test_yk_gang_5_soft_releases_the_placeholders_and_runs_the_application(tmp_path: Path) -> None:
    pods = _replayed(_busy_cluster(tmp_path, "placeholderTimeoutInSeconds=120"))
    assert pods["default/driver"]["startedMs"] == 120_000  # released at the timeout: the driver fits at once
    assert all(p["state"] == "Finished" for p in pods.values())


def test_yk_gang_5_without_a_timeout_the_gang_waits_for_room(tmp_path: Path) -> None:
    pods = _replayed(_busy_cluster(tmp_path, ""))  # 15 minutes: the big pod leaves at 5m first
    assert {p["startedMs"] for key, p in pods.items() if key != "default/big"} == {300_000}


@pytest.mark.parametrize(("runtime", "state"), [("10m", "Finished"), ("20m", "Failed")])
def test_yk_gang_5_the_readme_replay_of_the_gang_sample(runtime: str, state: str) -> None:
    # README: with 10m runs spark-pi ends first and spark-etl gets in; with 20m its Hard timeout (15m) comes first
    out = run_kqctl("replay", "samples/yunikorn-gang", "--now", "2025-12-31T04:00:00Z", "--runtime", runtime,
                    "-o", "json").out
    pods = json.loads(out)["pods"]
    assert {p["state"] for key, p in pods.items() if key.startswith("spark/spark-etl")} == {state}


def test_diff_compares_the_gangs_real_pods_not_their_placeholders() -> None:
    # a placeholder replaced after the change is no regression: the real pods that replaced it show the change
    run = run_kqctl("diff", "samples/yunikorn-gang", "--set", "queue/root.spark.resources.max.vcore=19", "--now",
                    "2025-12-31T04:00:00Z", "--fail-on", "regression")
    assert run.code == 0 and "tg-" not in run.out
    assert "spark/spark-etl-exec-1   Pending" in run.out


def test_yk_g1_a_gang_still_reserving_counts_against_maxapplications_without_running() -> None:
    # yunikorn-core's allocatingAcceptedApps: the gang is Accepted (not Running) until its last placeholder, yet
    # another application may not start past the queue's maxapplications
    limited = CONFIG.replace("- name: spark", "- name: spark\n            maxapplications: 1")
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")
    later = pod("later", "root.spark", "later", cpu="1", age=timedelta(minutes=1))
    result = simulate(snapshot(limited, node("n1", cpu="8"), busy, _driver(), _executor(0), _executor(1), later))
    spark = next(q for q in result.queues if q.path == "root.spark")
    assert spark.running_apps == 0
    waiting = next(p for p in result.pods if p.name == "later")
    assert waiting.state == "Pending"
    assert waiting.reason == ("waiting to run: queue root.spark runs 1 applications (1 of them gangs reserving), "
                              "its maxapplications is 1")


def _replay_until(*objects: dict[str, Any], until_ms: int, runtime: str = "") -> Any:
    from kqctl.replay.durations import parse_distribution
    from kqctl.yunikorn.replay.report import YuniKornReplayOptions, replay_timeline
    from kqctl.yunikorn.replay.timeline import TimelineOptions

    options = YuniKornReplayOptions(TimelineOptions(parse_distribution(runtime) if runtime else None), until=until_ms)
    return replay_timeline(snapshot(CONFIG, *objects), options)[1]


def test_yk_gang_5_placeholders_no_real_pod_replaced_are_released_at_the_timeout() -> None:
    # every placeholder allocated, one real executor of two: the other placeholder holds its room until the timeout
    driver = _driver(policy="placeholderTimeoutInSeconds=60", age=timedelta(seconds=10))
    objects = (node("n1", cpu="8"), driver, _executor(0, age=timedelta(seconds=10)))
    before = _replay_until(*objects, until_ms=59_000)
    placeholders = [ask for ask in before.partition.asks.values() if ask.pod.is_placeholder]
    assert [ask.allocated for ask in placeholders] == [True]  # one replaced, one still held
    after = _replay_until(*objects, until_ms=61_000)
    assert not [ask for ask in after.partition.asks.values() if ask.pod.is_placeholder]
    assert after.partition.tree.get("root.spark").allocated["vcore"] == 3000  # the driver and exec-0


def test_a_gang_arriving_during_a_replay_gets_its_placeholders_first() -> None:
    later = timedelta(seconds=-60)  # created a minute after the start
    timeline = _replay_until(node("n1", cpu="8"), _driver(age=later), _executor(0, age=later), _executor(1, age=later),
                             until_ms=120_000)
    asks = timeline.partition.asks
    assert {key for key, ask in asks.items() if ask.pod.is_placeholder} == set()  # both replaced
    assert asks["default/exec-0"].replaced and asks["default/exec-1"].replaced
    assert asks["default/driver"].allocated and not asks["default/driver"].replaced


def test_yk_r2_placeholders_are_made_one_shim_run_before_they_are_sent() -> None:
    # k8shim: run 1 submits the application, run 2 (Accepted -> Reserving) creates the placeholder pods, run 3 sends
    # them; the core ages their asks (the reservation and preemption delays) from their creation
    later = timedelta(seconds=-60)  # created a minute after the start: the shim's runs at 60 s, 61 s and 62 s
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")  # room for one placeholder: the other waits
    timeline = _replay_until(node("n1", cpu="8"), busy, _driver(age=later), _executor(0, age=later),
                             _executor(1, age=later), until_ms=62_000)
    made = [ask.created - timeline.start_ns for ask in timeline.partition.asks.values() if ask.pod.is_placeholder]
    assert made == [61_000 * 1_000_000] * 2


def test_yk_gang_1_the_shim_checks_the_placeholder_timeout_when_it_takes_the_gang_to_reserving() -> None:
    # created at 60.5 s: the shim's runs at 61, 62 and 63 s. At 62 s, where it reserves, 1.5 s of a 2 s Hard timeout
    # have passed: it makes the placeholders (at 63 s, where it sends them, it would have failed the application)
    later = timedelta(seconds=-60.5)
    driver = _driver(policy="placeholderTimeoutInSeconds=2 gangSchedulingStyle=Hard", age=later)
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")  # room for one placeholder: the other waits
    timeline = _replay_until(node("n1", cpu="8"), busy, driver, _executor(0, age=later), _executor(1, age=later),
                             until_ms=63_000)
    gang = timeline.partition.apps["spark"].gang
    assert gang is not None and not gang.failed
    assert sum(1 for ask in timeline.partition.asks.values() if ask.pod.is_placeholder) == 2


def test_yk_gang_1_a_gang_the_shim_fails_as_it_arrives_during_a_replay_ends_failed(tmp_path: Path) -> None:
    # created at 60.5 s: at the shim's second run (62 s) 1.5 s of a 1 s Hard timeout have passed: no placeholders,
    # the application fails, as one present at the start would (its pods were left pending to the end)
    later = timedelta(seconds=-60.5)
    busy = pod("big", "root.other", "other", cpu="5", node_name="n1")
    driver = _driver(policy="placeholderTimeoutInSeconds=1 gangSchedulingStyle=Hard", age=later)
    path = _write(tmp_path, node("n1", cpu="8"), busy, driver, _executor(0, age=later), _executor(1, age=later))
    pods = _replayed(path)
    assert {key: p["state"] for key, p in pods.items()} == {
        "default/big": "Finished", "default/driver": "Failed", "default/exec-0": "Failed", "default/exec-1": "Failed"}
    out = run_kqctl("replay", str(path), "--now", NOW.isoformat(), "--runtime", "5m").out
    assert "1 never allocated (1 failed)." in out and "still waiting" not in out


def test_validate_warns_of_the_placeholder_annotation_yunikorn_no_longer_reads(tmp_path: Path) -> None:
    old = pod("tg-old", "root.spark", "spark", annotations={"yunikorn.apache.org/placeholder": "true",
                                                            TASK_GROUP: "executors"})
    data = json.loads(run_kqctl("validate", str(_write(tmp_path, node("n1"), _driver(), old)), "-o", "json").out)
    messages = [f["message"] for d in data["documents"] for f in d["findings"] if f["ruleId"] == "YK-POD-ANNOTATION"]
    assert len(messages) == 1 and "before YuniKorn 1.6" in messages[0]


# --- generated gang clusters: the properties every answer keeps ---------------------------------------------------

GANG_SEEDS = range(0, 40, 2)


@pytest.mark.parametrize("seed", GANG_SEEDS)
def test_generated_gangs_replay_starts_where_simulate_ends(seed: int) -> None:
    import yaml
    from yunikorn_build import start_state_matches_simulate
    from yunikorn_random import NOW as RANDOM_NOW
    from yunikorn_random import cluster

    start_state_matches_simulate(yaml.safe_dump_all(cluster(seed, gangs=0.6), sort_keys=False), RANDOM_NOW)


@pytest.mark.parametrize("seed", GANG_SEEDS)
def test_generated_gangs_keep_the_gang_rules(seed: int) -> None:
    import yaml
    from yunikorn_random import NOW as RANDOM_NOW
    from yunikorn_random import cluster

    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_text
    from kqctl.yunikorn.load import build_snapshot

    text = yaml.safe_dump_all(cluster(seed, gangs=0.6), sort_keys=False)
    result = simulate(build_snapshot(load_text(ALL_KINDS, text, "c.yaml"), RANDOM_NOW))
    by_key = {p.key: p for p in result.pods}
    for outcome in result.pods:
        if outcome.replaced:  # YK-GANG-4: it took a placeholder of its own group and application, at least its size
            placeholder = by_key[outcome.replaced]
            assert placeholder.state == "Replaced" and placeholder.task_group == outcome.task_group
            assert placeholder.app_id == outcome.app_id
            assert all(value <= placeholder.resource.get(name, 0) for name, value in outcome.resource.items())
        if outcome.state == "Released":
            assert outcome.placeholder and "resource incompatible" in outcome.reason
    # YK-GANG-2: a gang's real pods run only once its reservation is over (or without one)
    for app in {p.app_id for p in result.pods if p.placeholder}:
        members = [p for p in result.pods if p.app_id == app]
        if any(not p.placeholder and p.state == "Allocated" for p in members):
            assert not any(p.placeholder and p.state == "Pending" for p in members) or any(
                p.state in ("Replaced", "Released") for p in members)
    # the queues hold exactly what their pods hold, placeholders included
    allocated = sum(p.resource.get("vcore", 0) for p in result.pods if p.state in ("Running", "Allocated"))
    assert next(q for q in result.queues if q.path == "root").allocated.get("vcore", 0) == allocated


@pytest.mark.parametrize("seed", GANG_SEEDS[:8])
def test_generated_gangs_replay_to_the_end(seed: int) -> None:
    import yaml
    from yunikorn_random import NOW as RANDOM_NOW
    from yunikorn_random import cluster

    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_text
    from kqctl.replay.durations import parse_distribution
    from kqctl.yunikorn.load import build_snapshot
    from kqctl.yunikorn.replay.report import YuniKornReplayOptions, replay_snapshot
    from kqctl.yunikorn.replay.timeline import TimelineOptions

    text = yaml.safe_dump_all(cluster(seed, gangs=0.6), sort_keys=False)
    options = YuniKornReplayOptions(TimelineOptions(parse_distribution("10m"), seed))
    report = replay_snapshot(build_snapshot(load_text(ALL_KINDS, text, "c.yaml"), RANDOM_NOW), options)
    states = {times.state for times in report.pods}
    assert states <= {"Finished", "Failed", "Rejected", "Deleted"}, states  # nothing waits forever: timeouts end gangs


def test_explain_of_a_mistyped_placeholder_name_suggests_the_placeholders_kqctl_made() -> None:
    run = run_kqctl("explain", "spark/tg-spark-etl-executor-9", "samples/yunikorn-gang")
    assert run.code == 2 and "did you mean spark/tg-spark-etl-executor-3" in run.err


def test_yk_gang_4_a_first_pair_whose_placeholder_a_larger_pod_released_is_not_used() -> None:
    # exec-0 (1 core, higher priority) fits the 1-core placeholder but not its node's predicates; exec-1 (2 cores)
    # then releases that placeholder as incompatible: exec-0 must not be linked to the released placeholder
    result = simulate(snapshot(CONFIG, node("n1", cpu="8"), node("n2", cpu="8", metadata={
        "name": "n2", "labels": {"disk": "ssd"}}), _driver(node_name="n2"),
        _placeholder("tg-spark-executors-a", "n1", cpu="1"),
        _executor(0, cpu="1", priority=10, nodeSelector={"disk": "ssd"}), _executor(1, cpu="2")))
    by_name = {p.name: p for p in result.pods}
    assert by_name["tg-spark-executors-a"].state == "Released"
    assert by_name["exec-0"].state == by_name["exec-1"].state == "Allocated"
    assert by_name["exec-0"].replaced == by_name["exec-1"].replaced == ""


@pytest.mark.parametrize(("sample", "gangs"), [("samples/yunikorn-gang", True), ("samples/yunikorn-priority", False)])
def test_replay_names_the_gang_rules_it_followed_only_where_gangs_took_part(sample: str, gangs: bool) -> None:
    data = json.loads(run_kqctl("replay", sample, "--now", "2025-12-31T04:00:00Z", "--runtime", "10m", "-o",
                                "json").out)
    assert ("YK-GANG-5" in data["model"]["rules"]) is gangs and "YK-R1" in data["model"]["rules"]
