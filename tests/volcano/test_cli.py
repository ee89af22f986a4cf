"""Volcano through the real commands: simulate (formats, filters, --fail-on, errors), explain, --scheduler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support import run_kqctl
from tests.volcano.builders import conf, group, node, pod, queue

TIERS = (["priority", "gang", "conformance"], ["overcommit", "drf", "predicates", "proportion", "nodeorder"])


@pytest.fixture()
def cluster(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    objects = [conf("enqueue, allocate", *TIERS), node("n1", cpu="8", memory="8Gi"),
               queue("team-a", weight=1), queue("team-b", weight=3, capability={"cpu": "2"}),
               group("train", "team-a", min_member=2, phase="Pending", min_resources={"cpu": "2"}),
               pod("train-0", "train"), pod("train-1", "train"),
               group("huge", "team-b", phase="Pending", min_resources={"cpu": "3"}), pod("huge-0", "huge", cpu="3")]
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return path


def test_simulate_table(cluster: Path) -> None:
    run = run_kqctl("simulate", str(cluster))
    assert run.code == 0, run.err
    assert "ns/train   team-a   Running" in run.out
    assert "ns/huge: queue resource quota insufficient: insufficient cpu" in run.out
    assert "pod(s) bound" in run.out.splitlines()[-2] or "session(s)" in run.out


def test_simulate_json_contract(cluster: Path) -> None:
    data = json.loads(run_kqctl("simulate", str(cluster), "-o", "json").out)
    assert data["scheduler"] == "volcano" and data["stopReason"] == "steady state"
    assert data["binds"] == {"ns/train-0": "n1", "ns/train-1": "n1"}
    assert data["podGroups"]["ns/huge"]["reason"]["gate"] == "queue-quota"
    assert data["queues"]["team-b"]["capability"] == {"cpu": "2", "memory": "unlimited"}


def test_simulate_yaml_and_name(cluster: Path) -> None:
    assert yaml.safe_load(run_kqctl("simulate", str(cluster), "-o", "yaml").out)["bindCount"] == 2
    assert run_kqctl("simulate", str(cluster), "-o", "name").out.splitlines() == [
        "podgroup.scheduling.volcano.sh/huge", "podgroup.scheduling.volcano.sh/train"]


def test_simulate_fail_on(cluster: Path) -> None:
    run = run_kqctl("simulate", str(cluster), "--fail-on", "inadmissible")
    assert run.code == 1 and "ns/huge" in run.err


def test_simulate_cycles_and_filters(cluster: Path) -> None:
    data = json.loads(run_kqctl("simulate", str(cluster), "--cycles", "1", "-n", "other", "-o", "json").out)
    assert data["sessions"] == 1 and data["podGroups"] == {}


def test_kueue_only_options_are_refused_for_volcano(cluster: Path) -> None:
    run = run_kqctl("simulate", str(cluster), "--fair-sharing")
    assert run.code == 2 and "--fair-sharing applies to Kueue only" in run.err


def test_scheduler_conf_file(cluster: Path, tmp_path: Path) -> None:
    conf_file = tmp_path / "volcano-scheduler.conf"
    conf_file.write_text('actions: "enqueue"\ntiers:\n- plugins:\n  - name: proportion\n', encoding="utf-8")
    data = json.loads(run_kqctl("simulate", str(cluster), "--scheduler-conf", str(conf_file), "-o", "json").out)
    assert data["configuration"]["actions"] == ["enqueue"] and data["bindCount"] == 0
    missing = run_kqctl("simulate", str(cluster), "--scheduler-conf", str(tmp_path / "nope.conf"))
    assert missing.code == 3 and "cannot read --scheduler-conf" in missing.err


def test_mixing_schedulers_is_a_usage_error(cluster: Path, tmp_path: Path) -> None:
    kueue = tmp_path / "kueue.yaml"
    kueue.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n",
                     encoding="utf-8")
    run = run_kqctl("simulate", str(cluster), str(kueue))
    assert run.code == 2 and "Kueue and Volcano" in run.err


def test_explain_text_and_json(cluster: Path) -> None:
    run = run_kqctl("explain", "ns/huge", str(cluster))
    assert run.code == 0, run.err
    assert "queue-quota (enqueue: queue quota): queue resource quota insufficient: insufficient cpu" in run.out
    assert "  - raise queue team-b's capability to cpu 3" in run.out
    data = json.loads(run_kqctl("explain", "huge-0", "-n", "ns", str(cluster), "-o", "json").out)
    assert data["podGroup"] == "ns/huge" and data["resolvedFrom"] == "Pod ns/huge-0"


def test_explain_selector_lists_every_podgroup_not_running(cluster: Path) -> None:
    data = json.loads(run_kqctl("explain", "-l", "", str(cluster), "-o", "json").out)
    assert [e["podGroup"] for e in data] == ["ns/huge"]


def test_explain_unknown_name(cluster: Path) -> None:
    run = run_kqctl("explain", "ns/hug", str(cluster))
    assert run.code == 2 and "did you mean ns/huge, ns/huge-0?" in run.err


def test_version_names_the_volcano_commit_kqctl_mirrors() -> None:
    run = run_kqctl("version")
    assert "volcano: v1.16.0-devel (after v1.16.0-alpha.1), commit ed72c7c8" in run.out


def test_set_reaches_volcano_queues_podgroups_vcjobs_and_nodes() -> None:
    sample = str(Path(__file__).resolve().parents[2] / "samples" / "volcano-two-teams")
    run = run_kqctl("simulate", sample, "-o", "json", "--set", "pg/team-b/team-b-job-3.spec.minResources.cpu=2",
                    "--set", "queue/team-a.spec.weight=3", "--set", "node/node-1.status.allocatable.cpu=17")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    assert data["queues"]["team-a"]["weight"] == 3
    assert data["podGroups"]["team-b/team-b-job-3"]["phase"] == "Running"
    missing = run_kqctl("simulate", sample, "--set", "queue/team-z.spec.weight=3")
    assert missing.code == 2 and "no LocalQueue or Queue 'team-z'" in missing.err


def test_the_reasons_below_the_table_are_limited_too() -> None:
    sample = str(Path(__file__).resolve().parents[2] / "samples" / "volcano-two-teams")
    out = run_kqctl("simulate", sample, "--limit", "2").out
    reasons = out.split("Why not running:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(reasons) == 3 and reasons[-1].startswith("  ... 5 more (--limit N or --show-all")


KUEUE_CQ = ("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n"
            "  namespaceSelector: {}\n")
VOLCANO_BAD_QUEUE = ("apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: bad}\n"
                     "spec: {guarantee: {resource: {cpu: '2'}}}\n")


@pytest.mark.parametrize("scheduler", [None, "kueue", "volcano", "yunikorn"])
def test_vc_q3_validate_checks_volcano_objects_whatever_scheduler_is_named(tmp_path: Path,
                                                                           scheduler: str | None) -> None:
    # --scheduler must not make another scheduler's objects pass unread as valid.
    path = tmp_path / "bad.yaml"
    path.write_text(VOLCANO_BAD_QUEUE, encoding="utf-8")
    run = run_kqctl("validate", str(path), "-o", "json", *(("--scheduler", scheduler) if scheduler else ()))
    assert run.code == 1, run.out + run.err
    assert [f["ruleId"] for d in json.loads(run.out)["documents"] for f in d["findings"]] == ["VC-Q3"]


@pytest.mark.parametrize("command", [("simulate",), ("audit",), ("explain", "ns/x")])
@pytest.mark.parametrize("scheduler,text,named", [
    ("volcano", KUEUE_CQ, "Kueue (ClusterQueue cq at"),
    ("kueue", VOLCANO_BAD_QUEUE, "Volcano (Queue bad at"),
])
def test_an_explicit_scheduler_with_another_schedulers_objects_is_a_usage_error(
        tmp_path: Path, command: tuple[str, ...], scheduler: str, text: str, named: str) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(text, encoding="utf-8")
    run = run_kqctl(*command, str(path), "--scheduler", scheduler)
    assert run.code == 2 and named in run.err, run.out + run.err


def test_an_input_holding_only_the_volcano_scheduler_configmap_is_volcanos(tmp_path: Path) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all([conf("enqueue, allocate", ["capacity"]), node("n1")]), encoding="utf-8")
    data = json.loads(run_kqctl("simulate", str(path), "-o", "json").out)
    assert data["scheduler"] == "volcano" and data["configuration"]["actions"] == ["enqueue", "allocate"]
    # With another scheduler's objects, those decide (the ConfigMap is a core kind any cluster may hold).
    kueue = tmp_path / "kueue.yaml"
    kueue.write_text(KUEUE_CQ, encoding="utf-8")
    mixed = run_kqctl("simulate", str(path), str(kueue), "-o", "json")
    assert mixed.code == 0, mixed.err
    assert "clusterQueues" in json.loads(mixed.out)  # Kueue's result


@pytest.mark.parametrize("args,message", [
    (("-l", "nothing=here"), "kqctl: no PodGroup matches the selector\n"),
    (("-l", "nothing=here", "-n", "ns"), "kqctl: no PodGroup matches the selector in namespace ns\n"),
    (("-l", ""), ""),  # ns/huge is pending: explained, no message
])
def test_explain_selector_says_when_nothing_matches(cluster: Path, args: tuple[str, ...], message: str) -> None:
    run = run_kqctl("explain", *args, str(cluster))
    assert run.code == 0 and run.err == message
    assert (run.out == "") == bool(message)


def test_explain_selector_says_when_every_match_runs(tmp_path: Path) -> None:
    path = tmp_path / "running.yaml"
    path.write_text(yaml.safe_dump_all([node("n1"), queue("q"), group("g", "q", phase="Running"),
                                        pod("g-0", "g", node_name="n1")]), encoding="utf-8")
    run = run_kqctl("explain", "-l", "", str(path))
    assert run.code == 0 and run.err == "kqctl: every PodGroup that matches is running\n"
