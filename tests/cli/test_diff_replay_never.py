"""diff --replay never presents a regression as an improvement (SIM-R1): a workload that never gets in counts as the
longest wait ("never") and is named; waits count from the replay's start for workloads created before it (their age
is no wait); the headline, the tables and --fail-on regression agree."""

from __future__ import annotations

import json
from collections.abc import Callable

from support import Run

Kq = Callable[..., Run]
Write = Callable[[str, "str | bytes"], str]

QUEUE = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  queueingStrategy: BestEffortFIFO
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: "QUOTA"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: ns}
spec: {clusterQueue: cq}
"""
WORKLOAD = """---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: ns, creationTimestamp: "{created}", annotations: {{kqctl.dev/runtime: 1m}}}}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]}}}}
"""
# Four small workloads pending for 78 days, and a big one created at --now: in BEFORE (8 cpu) the big one gets in
# once the small ones finish; in AFTER (4 cpu) it never does.
WORKLOADS = "".join(WORKLOAD.format(name=f"old-{i}", created="2026-06-01T00:00:00Z", cpu="1") for i in range(4)) \
    + WORKLOAD.format(name="big", created="2026-08-18T00:00:00Z", cpu="6")
NOW = ("--now", "2026-08-18T00:00:00Z")


def _sides(write: Write) -> tuple[str, str]:
    return (write("base/all.yaml", QUEUE.replace("QUOTA", "8") + WORKLOADS),
            write("head/all.yaml", QUEUE.replace("QUOTA", "4") + WORKLOADS))


def test_a_workload_that_never_gets_in_after_is_a_regression_everywhere(kqctl: Kq, write: Write) -> None:
    base, head = _sides(write)
    run = kqctl("diff", base, head, "--replay", *NOW, "--fail-on", "regression")
    assert run.code == 1, run.err
    assert run.out.splitlines()[0] == ("0 of 5 workloads change; 1 admitted in the replay before is never admitted "
                                       "in the replay after.")
    assert "→ never (worse)" in run.out and "(-78d" not in run.out
    assert "regression: ns/big: admitted in the replay before, never admitted in the replay after" in run.out
    assert "(--fail-on regression): ns/big" in run.err


def test_json_names_the_never_admitted_and_waits_start_at_the_replay(kqctl: Kq, write: Write) -> None:
    base, head = _sides(write)
    data = json.loads(kqctl("diff", base, head, "--replay", *NOW, "-o", "json").out)
    assert data["regressions"] == ["ns/big"]
    assert data["neverAdmittedInReplay"] == {"before": [], "after": ["ns/big"]}
    shift = next(s for s in data["timeToAdmission"] if s["by"] == "clusterQueue")
    assert shift["after"]["never"] == 1 and shift["after"]["p95Ms"] is None
    # The small ones were created 78 days before the replay: their waits count from its start (seconds, not days).
    assert shift["before"]["never"] == 0 and shift["before"]["maxMs"] < 120_000


def test_markdown_says_regression_for_a_replay_regression(kqctl: Kq, write: Write) -> None:
    base, head = _sides(write)
    out = kqctl("diff", base, head, "--replay", *NOW, "-o", "markdown").out
    assert out.startswith("### kqctl diff: ⚠️ regression")
    assert "→ never (worse)" in out and "ns/big" in out


def test_replay_counts_a_workload_never_admitted_as_never_and_names_it(kqctl: Kq, write: Write) -> None:
    _, head = _sides(write)
    run = kqctl("replay", head, *NOW)
    assert run.code == 0, run.err
    assert "(1 never admitted)" in run.out.splitlines()[1] and "never" in run.out
    data = json.loads(kqctl("replay", head, *NOW, "-o", "json").out)
    assert data["overall"]["neverAdmitted"] == ["ns/big"] and data["overall"]["timeToAdmission"]["never"] == 1
    assert data["workloads"]["ns/big"]["neverAdmitted"] is True
    assert data["workloads"]["ns/big"]["timeToAdmissionMs"] is None
    # The small ones, 78 days old, wait from the replay's start: seconds, not 78 days.
    assert all(w["timeToAdmissionMs"] < 120_000 for k, w in data["workloads"].items() if k != "ns/big")
