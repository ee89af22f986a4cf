"""validate's verdict is the API server's (issue 19, Kueue): each test is named after the rule it mirrors, and every
command says the same thing (the gate, kqctl.validate.gate).

Settled from the source (kubernetes-sigs/kueue ff69552e, controller-runtime v0.24.1): the API server decodes a
CRD object (pruning, CRD defaults), runs the mutating webhooks, then drops status and validates (schema, CEL), then
the validating webhooks. Kueue's ClusterQueue webhook adds its finalizer to a new ClusterQueue, so controller-
runtime answers with a patch that carries the re-encoded object; its Workload webhook changes nothing (with
PartialAdmission on), so no patch is sent and the Workload is validated as written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from support import Run

Kq = Callable[..., Run]

FLAVOR = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
"""


def cluster_queue(resource: str, finalizers: str = "") -> str:
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq{finalizers}}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {resource}
"""


def _findings(kqctl: Kq, path: str) -> list[dict[str, str]]:
    report = json.loads(kqctl("validate", path, "-o", "json").out)
    return [f for d in report["documents"] for f in d["findings"]]


@pytest.mark.parametrize("resource,stored", [
    ("{name: cpu, nominalQuota: 1.5}", "1500m"),
    ("{name: cpu}", "0"),
])
def test_def3_a_new_cluster_queue_is_stored_as_the_webhook_re_encodes_it(kqctl: Kq, write: Callable[..., str],
                                                                          resource: str, stored: str) -> None:
    path = write("cq.yaml", FLAVOR + "---\n" + cluster_queue(resource))
    assert kqctl("validate", path).code == 0
    data = json.loads(kqctl("simulate", path, "--now", "2026-01-01T00:00:00Z", "-o", "json").out)
    assert data["clusterQueues"]["cq"]["default/cpu"]["nominal"] == stored


def test_def3_a_cluster_queue_holding_the_finalizer_is_not_patched_so_the_schema_sees_1_5(
        kqctl: Kq, write: Callable[..., str]) -> None:
    # Default() changes nothing, so controller-runtime answers without a patch: 1.5 reaches the schema as a number.
    path = write("cq.yaml", FLAVOR + "---\n" + cluster_queue("{name: cpu, nominalQuota: 1.5}",
                                                             ", finalizers: [kueue.x-k8s.io/resource-in-use]"))
    assert kqctl("validate", path).code == 1
    refused = kqctl("simulate", path)
    assert refused.code == 3 and "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota" in refused.err


WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: w, namespace: default}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - CONTAINER
"""


def test_schema_required_a_workload_container_without_name_is_refused(kqctl: Kq, write: Callable[..., str]) -> None:
    path = write("w.yaml", WORKLOAD.replace("CONTAINER", "{image: busybox, resources: {requests: {cpu: '1'}}}"))
    [finding] = [f for f in _findings(kqctl, path) if f["severity"] == "error"]
    assert finding["ruleId"] == "SCHEMA-REQUIRED"
    assert finding["field"] == "spec.podSets[0].template.spec.containers[0].name"
    refused = kqctl("simulate", path)
    assert refused.code == 3 and "containers[0].name: Required value (SCHEMA-REQUIRED" in refused.err


ADMITTED_STATUS = """status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: "",
     lastTransitionTime: "2026-01-01T00:00:00Z"}
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: main, count: 1, flavors: {cpu: default}, resourceUsage: {cpu: "1"}}
    - {name: extra, count: 1, flavors: {cpu: default}, resourceUsage: {cpu: "1"}}
"""


def test_cel_a_rule_only_the_written_status_breaks_does_not_refuse_a_create(kqctl: Kq,
                                                                            write: Callable[..., str]) -> None:
    # Two podSetAssignments for one pod set break the root CEL rule, but a create drops status before CEL runs.
    body = WORKLOAD.replace("CONTAINER", "{name: c, resources: {requests: {cpu: '1'}}}") + ADMITTED_STATUS
    path = write("w.yaml", FLAVOR + "---\n" + cluster_queue("{name: cpu, nominalQuota: 4}") + "---\n" + body)
    assert kqctl("validate", path).code == 0
    found = [f for f in _findings(kqctl, path) if "podSetAssignments must have the same number" in f["message"]]
    assert found and all(f["severity"] == "info" for f in found)
    assert all("ignored when the object is created" in f["message"] for f in found)
    # simulate does not take that status as the cluster's state either: it says so, and simulates the workload.
    run = kqctl("simulate", path, "--now", "2026-01-01T00:00:00Z", "-o", "json")
    assert run.code == 0 and "the written status is not one the cluster could hold" in run.err
    assert json.loads(run.out)["workloads"]["default/w"]["decision"]


COHORTS = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: loop}
spec: {parentName: loop}
"""


def test_xo_co_cycle_a_cohort_that_is_its_own_parent_is_a_warning(kqctl: Kq, write: Callable[..., str]) -> None:
    path = write("cohorts.yaml", COHORTS)
    [finding] = _findings(kqctl, path)
    assert (finding["ruleId"], finding["severity"]) == ("XO-CO-CYCLE", "warning")
    assert "the API server accepts it" in finding["message"] and "inactive" in finding["message"]
    assert kqctl("validate", path).code == 0
    assert kqctl("validate", path, "--fail-on", "warning").code == 1  # CI can be strict about it
    assert kqctl("audit", path).code == 0


def test_kueue_cross_object_checks_never_refuse_without_closed(kqctl: Kq) -> None:
    # The gate skips them (ValidationProfile.cross_object_refusals): the broken sample holds every XO kind.
    from support import REPO

    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.findings import Severity
    from kqctl.kueue.validate.crossobject import cross_object_findings
    from kqctl.load.objects import load_paths

    loaded = load_paths(ALL_KINDS, [str(REPO / "samples" / "broken")], recursive=True)
    found = cross_object_findings(loaded.known_objects, closed=False)
    assert {f.rule_id for _, f in found} >= {"XO-CO-CYCLE", "XO-CQ-FLAVOR", "XO-WL-LQ"}
    assert not [f for _, f in found if f.severity is Severity.ERROR]


def test_as_given_reads_what_the_api_server_would_refuse(kqctl: Kq, tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(FLAVOR + "---\n" + cluster_queue("{name: cpu, nominalQuota: 4}") + "---\n"
                    + WORKLOAD.replace("CONTAINER", "{image: busybox, resources: {requests: {cpu: '1'}}}"))
    assert kqctl("simulate", str(path)).code == 3
    assert kqctl("simulate", str(path), "--as-given").code == 0
