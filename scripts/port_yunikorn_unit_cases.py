"""Write yunikorn-core unit tests, ported by hand, as whole-cluster scenarios under
tests/conformance/data/yunikorn-ported/ (its README.md describes the format and the translation rules).

Each case below was read in the Go source (apache/yunikorn-core at ``COMMIT``) and written down as the test's
queues, nodes, allocations and asks in the test's own resource names; this script only turns them into the
queues.yaml / cluster.yaml / pods.yaml layout of the recorded random clusters. ``expected`` holds only what the Go
test asserts. Run ``python scripts/port_yunikorn_unit_cases.py`` after changing a case; the output is
deterministic.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "conformance" / "data" / "yunikorn-ported"
REPO = "apache/yunikorn-core"
COMMIT = "be3bb487"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
ALLOCATED_AT = NOW - timedelta(minutes=10)  # the Go test's time.Now() for existing allocations
ASKED_AT = NOW - timedelta(minutes=5)  # asks: older than every preemption delay, younger than the allocations
NAMESPACE = "default"
UNBOUNDED_PODS = 110

# The Go tests' resource names in Kubernetes terms: (pod request name, queues.yaml name, unit suffix).
# cpu in whole cores is vcore in the queue config; an extended resource keeps its name in both.
RESOURCE_NAMES = {"first": ("cpu", "vcore", ""), "vcores": ("cpu", "vcore", ""),
                  "mem": ("memory", "memory", "Mi"), "pods": ("pods", "pods", ""),
                  "second": ("example.com/second", "example.com/second", ""),
                  "third": ("example.com/third", "example.com/third", ""),
                  "gpu": ("nvidia.com/gpu", "nvidia.com/gpu", ""),
                  # the scheduler tests' own units: vcore in millicores, memory in bytes
                  "vcore": ("cpu", "vcore", "m"), "memory": ("memory", "memory", "")}

Res = dict[str, int]


@dataclass
class Q:
    """A queue as createManagedQueueGuaranteed builds it (max, guaranteed, properties)."""

    name: str
    max: Res | None = None
    guaranteed: Res | None = None
    properties: dict[str, str] | None = None
    children: list[Q] = field(default_factory=list)
    limits: list[dict[str, Any]] | None = None


@dataclass
class Alloc:
    """An existing allocation (bound pod) or, without ``node``, an ask (pending pod)."""

    key: str
    app: str
    queue: str
    res: Res
    node: str | None = None
    minutes: int = 0  # the Go createTime relative to time.Now(), in minutes (negative: older)
    priority: int = 0
    preempt_other: bool = True  # asks: allowPreemptOther as the test sets it
    preempt_self: bool = False  # allocations: allowPreemptSelf (true only with newAllocationAskPreempt's policy)


@dataclass
class Case:
    file: str
    test: str
    line: int
    slug: str
    queues: list[Q]
    nodes: dict[str, Res]
    allocs: list[Alloc]
    expected: dict[str, Any]
    how: str
    partition: dict[str, Any] | None = None
    root_limits: list[dict[str, Any]] | None = None
    raw_config: str | None = None  # the test's own queues.yaml, used as written (placement rule added)


def pod_name(key: str) -> str:
    return f"{NAMESPACE}/{key}"


def quantity(name: str, value: int) -> str:
    return f"{value}{RESOURCE_NAMES[name][2]}"


def queue_resources(res: Res) -> dict[str, Any]:
    return {RESOURCE_NAMES[k][1]: (value if RESOURCE_NAMES[k][2] == "" else quantity(k, value))
            for k, value in res.items()}


def queue_yaml(queue: Q) -> dict[str, Any]:
    body: dict[str, Any] = {"name": queue.name}
    if queue.children:
        body["parent"] = True
    resources = {}
    if queue.guaranteed:
        resources["guaranteed"] = queue_resources(queue.guaranteed)
    if queue.max:
        resources["max"] = queue_resources(queue.max)
    if resources:
        body["resources"] = resources
    if queue.properties:
        body["properties"] = dict(queue.properties)
    if queue.limits:
        body["limits"] = queue.limits
    if queue.children:
        body["queues"] = [queue_yaml(child) for child in queue.children]
    return body


def config(case: Case) -> dict[str, Any]:
    partition: dict[str, Any] = {"name": "default",
                                 "placementrules": [{"name": "provided", "create": False}]}
    if case.partition:
        partition.update(case.partition)
    root: dict[str, Any] = {"name": "root", "submitacl": "*", "queues": [queue_yaml(q) for q in case.queues]}
    if case.root_limits:
        root["limits"] = case.root_limits
    partition["queues"] = [root]
    return {"partitions": [partition]}


def raw_config(text: str) -> dict[str, Any]:
    """A test's own queue configuration with the placement rule the cluster needs (the test names each
    application's queue when it submits it: the provided rule)."""
    parsed: dict[str, Any] = yaml.safe_load(text)
    for partition in parsed["partitions"]:
        partition.setdefault("placementrules", [{"name": "provided", "create": False}])
    return parsed


def pods_counted(case: Case) -> bool:
    """Whether the test counts pods: only then does a node's pod capacity stay as the test sets it (the shim
    adds ``pods: 1`` to every ask, which the test's allocations do not carry)."""
    return any("pods" in a.res for a in case.allocs)


def node_yaml(case: Case, name: str, res: Res) -> dict[str, Any]:
    allocatable = {RESOURCE_NAMES[k][0]: quantity(k, v) for k, v in res.items() if k != "pods"}
    allocatable["pods"] = str(res["pods"] if pods_counted(case) and "pods" in res else UNBOUNDED_PODS)
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}


def pod_yaml(alloc: Alloc) -> dict[str, Any]:
    created = (ALLOCATED_AT if alloc.node else ASKED_AT) + timedelta(minutes=alloc.minutes)
    notes = {"yunikorn.apache.org/user.info": '{"user":"testuser","groups":["testgroup"]}'}
    spec: dict[str, Any] = {"schedulerName": "yunikorn", "priority": alloc.priority}
    if alloc.node and not alloc.preempt_self:
        # NewAllocationFromSI without a PreemptionPolicy: the allocation does not allow itself to be preempted
        notes["yunikorn.apache.org/allow-preemption"] = "false"
    if alloc.node:
        spec["nodeName"] = alloc.node
    elif not alloc.preempt_other:
        spec["preemptionPolicy"] = "Never"
    requests = {RESOURCE_NAMES[k][0]: quantity(k, v) for k, v in alloc.res.items() if k != "pods"}
    resources: dict[str, Any] = {"requests": requests}
    extended = {name: value for name, value in requests.items() if "/" in name}
    if extended:  # Kubernetes: an extended resource's limit must be set and equal its request
        resources["limits"] = extended
    spec["containers"] = [{"name": "main", "image": "busybox", "resources": resources}]
    body: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": alloc.key, "namespace": NAMESPACE,
                     "creationTimestamp": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "labels": {"applicationId": alloc.app, "queue": alloc.queue}, "annotations": notes},
        "spec": spec}
    if alloc.node:
        body["status"] = {"phase": "Running"}
    return body


def write(case: Case) -> None:
    folder = OUT / Path(case.file).stem / case.slug
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / "queues.yaml").write_text(_dump([raw_config(case.raw_config) if case.raw_config else config(case)]))
    (folder / "cluster.yaml").write_text(_dump([node_yaml(case, name, res) for name, res in case.nodes.items()]))
    pods = sorted(case.allocs, key=lambda a: (a.node is None, a.minutes, a.key))
    (folder / "pods.yaml").write_text(_dump([pod_yaml(a) for a in pods]))
    source = {"repo": REPO, "commit": COMMIT, "file": case.file, "test": case.test, "line": case.line,
              "ported": "by hand from the Go test's setup and assertions (scripts/port_yunikorn_unit_cases.py)",
              "how": case.how}
    command = ("kqctl simulate --scheduler yunikorn --now " + NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
               + " -o json queues.yaml cluster.yaml pods.yaml")
    expected = {"source": source, "command": command, "expected": case.expected}
    (folder / "expected.yaml").write_text(_dump([expected], flow=False))


def _dump(documents: list[dict[str, Any]], flow: bool | None = None) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False, default_flow_style=flow, width=120)


PREEMPTION = "pkg/scheduler/objects/preemption_test.go"


def _two_children(child1: dict[str, Res | None], child2: dict[str, Res | None],
                  parent: dict[str, Res | None], child3: dict[str, Res | None] | None = None) -> list[Q]:
    children = [Q("child1", **child1), Q("child2", **child2)]  # type: ignore[arg-type]
    if child3 is not None:
        children.append(Q("child3", **child3))  # type: ignore[arg-type]
    return [Q("parent", children=children, **parent)]  # type: ignore[arg-type]


def _nested(parent: dict[str, Res | None], parent1: dict[str, Res | None], parent2: dict[str, Res | None],
            child1: dict[str, Res | None], child2: dict[str, Res | None],
            victims_under_parent1: bool = False) -> list[Q]:
    """root.parent.{parent1.child1, parent2.{child2, child3}} (the AskResTypes tests: the ask in child1, victims
    in child2) or, with ``victims_under_parent1``, root.parent.{parent1.child1, parent2.child2} (victims in child1,
    the ask in child2)."""
    leaves2 = [Q("child2", **child2)]  # type: ignore[arg-type]
    if not victims_under_parent1:
        leaves2.append(Q("child3"))
    return [Q("parent", children=[Q("parent1", children=[Q("child1", **child1)], **parent1),  # type: ignore[arg-type]
                                  Q("parent2", children=leaves2, **parent2)], **parent)]  # type: ignore[arg-type]


def _siblings(child1: dict[str, Res | None], child2: dict[str, Res | None]) -> list[Q]:
    """The UGParent tests: root.parent (max vcores: 20).{parent1 (guaranteed vcores: 10).{child1, child2},
    parent2.child3}."""
    return [Q("parent", max={"vcores": 20}, children=[
        Q("parent1", guaranteed={"vcores": 10}, children=[Q("child1", **child1), Q("child2", **child2)]),  # type: ignore[arg-type]
        Q("parent2", children=[Q("child3")])])]


ORIGINATOR = ("The test's app-2 (alloc2) and app-3 (alloc3, application ID app-2) sit in the same queue as app-1; "
              "the port puts both in app-1, whose oldest pod alloc5 is its originator: the shim would make alloc2 "
              "the originator of an app-2 of its own, and the core sorts originators last among victims, while no "
              "allocation of the test is an originator.")
C1, C2, C3 = "root.parent.child1", "root.parent.child2", "root.parent.child3"
NC1, NC2 = "root.parent.parent1.child1", "root.parent.parent2.child2"
SC1, SC2 = "root.parent.parent1.child1", "root.parent.parent1.child2"

CASES: list[Case] = [
    Case(PREEMPTION, "TestTryPreemptionOnNode", 426, "try-preemption-on-node",
         _two_children({"max": {"first": 10}, "guaranteed": {"first": 5}},
                       {"max": {"first": 10}, "guaranteed": {"first": 5}},
                       {"max": {"first": 20}, "guaranteed": {"first": 10}}),
         {"node-1": {"first": 5, "pods": 1}, "node-2": {"first": 5, "pods": 1}},
         [Alloc("alloc1", "app-1", C1, {"first": 5, "pods": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 5, "pods": 1}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5, "pods": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated", "node": "node-2"}},
         "Both nodes are full; the ask fits only after a victim leaves. The mock predicate plugin offers node-2 "
         "with alloc2 as victim; in the cluster alloc1 is app-1's originator (its oldest pod), so node-2 is also "
         "the only best solution. The result's node is where the ask goes once alloc2 is released."),
    Case(PREEMPTION, "TestTryPreemption_NodeWithCapacityLesserThanAsk", 476, "node-with-capacity-lesser-than-ask",
         _two_children({"max": {"first": 10}, "guaranteed": {"first": 5}},
                       {"max": {"first": 10}, "guaranteed": {"first": 6}},
                       {"max": {"first": 20}, "guaranteed": {"first": 11}}),
         {"node-1": {"first": 5, "pods": 1}, "node-2": {"first": 5, "pods": 1}},
         [Alloc("alloc1", "app-1", C1, {"first": 5, "pods": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 5, "pods": 1}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 6, "pods": 1})],
         {"preempted": [], "not_preempted": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Pending"}},
         "The ask (first: 6) is larger than either node: no preemption result, so the ask stays pending. The test "
         "gives root.parent guaranteed first: 10 below its children's 5 + 6, a queue config YuniKorn refuses "
         "(YK-V12); the port raises it to 11, which the outcome does not depend on (no node can hold the ask)."),
    Case(PREEMPTION, "TestTryPreemptionOnQueue", 584, "try-preemption-on-queue",
         _two_children({"guaranteed": {"first": 5}}, {"guaranteed": {"first": 5}}, {"max": {"first": 10}}),
         {"node-1": {"first": 10, "pods": 2}, "node-2": {"first": 10, "pods": 2}},
         [Alloc("alloc1", "app-1", C1, {"first": 5, "pods": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 5, "pods": 1}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5, "pods": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "Nodes have room; root.parent's max (first: 10) is used up, so the ask triggers preemption on the queue. "
         "The test's node assertion (node-2) comes from the mock predicate plugin, which answers for node-2 only; "
         "in the cluster both nodes fit, so only the victims and that the ask is placed are kept."),
    Case(PREEMPTION, "TestTryPreemption_VictimsOnDifferentNodes_InsufficientResource", 673,
         "victims-on-different-nodes-insufficient-resource",
         _two_children({}, {"guaranteed": {"first": 5}}, {"max": {"first": 6}}),
         {"node-1": {"first": 5, "pods": 1}, "node-2": {"first": 5, "pods": 1}},
         [Alloc("alloc1", "app-1", C1, {"first": 2, "pods": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 2, "pods": 1}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5})],
         {"preempted": [], "not_preempted": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Pending",
                  "log": "Preemption helped but short of resources"}},
         "Victims on two nodes hold first: 4 in all, less than the ask's 5: nothing is preempted and the ask stays "
         "pending."),
    Case(PREEMPTION, "TestTryPreemption_VictimsAvailableOnDifferentNodes", 800,
         "victims-available-on-different-nodes",
         _two_children({}, {"guaranteed": {"first": 5}}, {"max": {"first": 6}}),
         {"node-1": {"first": 5, "pods": 1}, "node-2": {"first": 4, "pods": 1}},
         [Alloc("alloc1", "app-1", C1, {"first": 4, "pods": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 2, "pods": 1}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5})],
         {"preempted": [], "not_preempted": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Pending",
                  "log": "Preemption helped but short of resources"}},
         "The test hands the preemptor a headroom of first: 10; in the cluster root.parent's max leaves none, "
         "which only makes preemption harder, so the test's outcome (no victims, the ask pending) stands."),
    Case(PREEMPTION, "TestTryPreemption_OnQueue_VictimsOnDifferentNodes", 870, "on-queue-victims-on-different-nodes",
         _two_children({}, {"guaranteed": {"first": 15}}, {"max": {"first": 18}}, child3={}),
         {"node-1": {"first": 30}, "node-2": {"first": 30}},
         [Alloc("alloc1", "app-1", C1, {"first": 5}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 5}, "node-2", 0),
          Alloc("alloc4", "app-3", C3, {"first": 5}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 10})],
         {"preempted": ["default/alloc2", "default/alloc4"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "root.parent's max (first: 18) is the limit; two victims of first: 5 are needed. alloc4 is created at the "
         "same instant as alloc2 (both time.Now()). The mock predicate answers for node-2 only; both nodes fit in "
         "the cluster, so the node assertion is left out."),
    Case(PREEMPTION, "TestTryPreemption_OnQueue_VictimsAvailable_LowerPriority", 941,
         "on-queue-victims-available-lower-priority",
         _two_children({}, {"guaranteed": {"first": 15}}, {"max": {"first": 18}}, child3={}),
         {"node-1": {"first": 30}, "node-2": {"first": 30}},
         [Alloc("alloc1", "app-1", C1, {"first": 5}, "node-1", -2),
          Alloc("alloc2", "app-1", C1, {"first": 5}, "node-1", -1),
          Alloc("alloc4", "app-3", C3, {"first": 5}, "node-2", 0, priority=1000),
          Alloc("alloc3", "app-2", C2, {"first": 10})],
         {"preempted": ["default/alloc1", "default/alloc2"], "not_preempted": ["default/alloc4"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "As the previous case but alloc4 has priority 1000, above the ask's 0, so it is no victim. The mock "
         "predicate answers for node-1 only; both nodes fit in the cluster, so the node assertion is left out."),

    Case(PREEMPTION, "TestTryPreemption_AskResTypesDifferent_GuaranteedSetOnPreemptorSide", 1030,
         "ask-res-types-different-guaranteed-on-preemptor-side",
         _nested({"max": {"vcores": 2}}, {"guaranteed": {"vcores": 1}}, {}, {}, {}),
         {"node-1": {"vcores": 3, "mem": 400}},
         [Alloc("alloc1", "app-1", NC2, {"vcores": 1, "mem": 200}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1, "mem": 200}, "node-1", 0),
          Alloc("alloc3", "app-2", NC1, {"vcores": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated", "node": "node-1"}},
         "The node has room for the ask; root.parent's max (vcores: 2) is used up, so the ask preempts on the "
         "queue. One node: the result's node is where the ask goes."),
    Case(PREEMPTION, "TestTryPreemption_OnNode_AskResTypesDifferent_GuaranteedSetOnPreemptorSide", 1106,
         "on-node-ask-res-types-different-guaranteed-on-preemptor-side",
         _nested({"max": {"vcores": 2}}, {"guaranteed": {"vcores": 1}}, {}, {}, {}),
         {"node-1": {"vcores": 2, "mem": 400}},
         [Alloc("alloc1", "app-1", NC2, {"vcores": 1, "mem": 200}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1, "mem": 200}, "node-1", 0),
          Alloc("alloc3", "app-2", NC1, {"vcores": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated", "node": "node-1"}},
         "As the previous case with a full node: the victim is needed on the node as well as in the queue."),
    Case(PREEMPTION, "TestTryPreemption_AskResTypesDifferent_GuaranteedSetOnVictimAndPreemptorSides", 1185,
         "ask-res-types-different-guaranteed-on-victim-and-preemptor-sides",
         _nested({"max": {"vcores": 3}}, {}, {}, {"guaranteed": {"vcores": 2}}, {"guaranteed": {"vcores": 1}}),
         {"node-1": {"vcores": 5, "mem": 700}},
         [*[Alloc(f"alloc{i}", "app-1", NC2, {"mem": 100}, "node-1", -2) for i in (5, 6, 7)],
          Alloc("alloc1", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", 0),
          Alloc("alloc3", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", 0),
          Alloc("alloc4", "app-4", NC1, {"vcores": 2})],
         {"preempted": ["default/alloc2", "default/alloc3"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc4", "state": "Allocated", "node": "node-1"}},
         "The node has room; root.parent's max (vcores: 3) is used up: queue preemption. " + ORIGINATOR),
    Case(PREEMPTION, "TestTryPreemption_OnNode_AskResTypesDifferent_GuaranteedSetOnVictimAndPreemptorSides", 1283,
         "on-node-ask-res-types-different-guaranteed-on-victim-and-preemptor-sides",
         _nested({"max": {"vcores": 3}}, {}, {}, {"guaranteed": {"vcores": 2}}, {"guaranteed": {"vcores": 1}}),
         {"node-1": {"vcores": 3, "mem": 600}},
         [*[Alloc(f"alloc{i}", "app-1", NC2, {"mem": 100}, "node-1", -2) for i in (5, 6, 7)],
          Alloc("alloc1", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", 0),
          Alloc("alloc3", "app-1", NC2, {"vcores": 1, "mem": 100}, "node-1", 0),
          Alloc("alloc4", "app-4", NC1, {"vcores": 2})],
         {"preempted": ["default/alloc2", "default/alloc3"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc4", "state": "Allocated", "node": "node-1"}},
         "As the previous case with a full node (the mock predicate offers alloc3 and alloc2 from index 1). "
         + ORIGINATOR),
    Case(PREEMPTION, "TestTryPreemption_OnNode_AskResTypesSame_GuaranteedSetOnPreemptorSide", 1498,
         "on-node-ask-res-types-same-guaranteed-on-preemptor-side",
         _nested({}, {}, {}, {"guaranteed": {"vcores": 2}}, {}),
         {"node-1": {"vcores": 3, "gpu": 300, "mem": 200}},
         [*[Alloc(f"alloc{i}", "app-1", NC2, {"gpu": 100}, "node-1", -2) for i in (5, 6, 7)],
          Alloc("alloc1", "app-1", NC2, {"vcores": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1}, "node-1", 0),
          Alloc("alloc3", "app-1", NC2, {"vcores": 1}, "node-1", 0),
          Alloc("alloc4", "app-4", NC1, {"vcores": 2, "mem": 200})],
         {"preempted": ["default/alloc2", "default/alloc3"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc4", "state": "Allocated", "node": "node-1"}},
         "The node's vcores are used up; no queue has a max. gpu is nvidia.com/gpu in the cluster. " + ORIGINATOR),
    Case(PREEMPTION, "TestTryPreemption_OnNode_AskResTypesSame_GuaranteedSetOnVictimAndPreemptorSides", 1696,
         "on-node-ask-res-types-same-guaranteed-on-victim-and-preemptor-sides",
         _nested({}, {}, {}, {"guaranteed": {"vcores": 2}}, {"guaranteed": {"vcores": 1}}),
         {"node-1": {"vcores": 3, "gpu": 700, "mem": 200}},
         [*[Alloc(f"alloc{i}", "app-1", NC2, {"gpu": 100}, "node-1", -2) for i in (5, 6, 7)],
          Alloc("alloc1", "app-1", NC2, {"vcores": 1}, "node-1", -1),
          Alloc("alloc2", "app-1", NC2, {"vcores": 1}, "node-1", 0),
          Alloc("alloc3", "app-1", NC2, {"vcores": 1}, "node-1", 0),
          Alloc("alloc4", "app-4", NC1, {"vcores": 2, "mem": 200})],
         {"preempted": ["default/alloc2", "default/alloc3"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc4", "state": "Allocated", "node": "node-1"}},
         "As the previous case with guaranteed vcores: 1 on the victims' queue. " + ORIGINATOR),
    Case(PREEMPTION, "TestTryPreemption_OnNode_UGParent_With_UGPreemptorChild_GNotSetOnVictimChild_As_Siblings", 1792,
         "on-node-ug-parent-ug-preemptor-child-victim-child-without-guaranteed",
         _siblings({}, {"guaranteed": {"vcores": 1}}),
         {"node-1": {"vcores": 2}},
         [Alloc("alloc1", "app-1", SC1, {"vcores": 1}, "node-1", -2),
          Alloc("alloc2", "app-2", SC1, {"vcores": 1}, "node-1", -1),
          Alloc("alloc3", "app-3", SC2, {"vcores": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated", "node": "node-1"}},
         "root.parent.parent1 (guaranteed vcores: 10) is under its guaranteed; its child1 has none, child2 (the "
         "ask's) has vcores: 1. The node is full."),
    Case(PREEMPTION, "TestTryPreemption_OnNode_UGParent_With_GNotSetOnBothChilds", 1873,
         "on-node-ug-parent-no-guaranteed-on-either-child",
         _siblings({}, {}),
         {"node-1": {"vcores": 2}},
         [Alloc("alloc1", "app-1", SC1, {"vcores": 1}, "node-1", -2),
          Alloc("alloc2", "app-2", SC1, {"vcores": 1}, "node-1", -1),
          Alloc("alloc3", "app-3", SC2, {"vcores": 1})],
         {"preempted": [], "not_preempted": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Pending"}},
         "Neither child has a guaranteed and their parent is under its own: no preemption, the ask stays pending "
         "on the full node."),
    Case(PREEMPTION, "TestTryPreemption_OnNode_UGParent_With_UGPreemptorChild_OGVictimChild_As_Siblings", 1948,
         "on-node-ug-parent-ug-preemptor-child-og-victim-child",
         _siblings({"guaranteed": {"vcores": 1}}, {"guaranteed": {"vcores": 1}}),
         {"node-1": {"vcores": 2}},
         [Alloc("alloc1", "app-1", SC1, {"vcores": 1}, "node-1", -2),
          Alloc("alloc2", "app-2", SC1, {"vcores": 1}, "node-1", -1),
          Alloc("alloc3", "app-3", SC2, {"vcores": 1})],
         {"preempted": ["default/alloc2"], "not_preempted": ["default/alloc1"],
          "ask": {"pod": "default/alloc3", "state": "Allocated", "node": "node-1"}},
         "child1 (guaranteed vcores: 1) uses 2: over its guaranteed, under a parent that is under its own."),
    Case(PREEMPTION, "TestTryPreemption_VictimQueue_With_OG_And_UG_ResTypes", 2031,
         "victim-queue-with-og-and-ug-res-types",
         _two_children({"guaranteed": {"first": 10, "second": 2}}, {"guaranteed": {"first": 10}},
                       {"max": {"first": 20, "second": 4}}),
         {"node-1": {"first": 10, "second": 2}, "node-2": {"first": 10, "second": 2}},
         [Alloc("alloc1", "app-1", C1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 10}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "Both nodes are full. The test asserts that alloc1 or alloc2 is preempted and that preemption has a "
         "result (the ask is then placed). second is example.com/second in the cluster."),
    Case(PREEMPTION, "TestTryPreemption_VictimQueue_Under_Diff_Parent_With_OG_And_UG_ResTypes", 2071,
         "victim-queue-under-diff-parent-with-og-and-ug-res-types-1",
         _nested({"max": {"first": 20, "second": 4}}, {"guaranteed": {"first": 10, "second": 2}},
                 {"guaranteed": {"first": 10}},
                 {"guaranteed": None}, {"guaranteed": None}, victims_under_parent1=True),
         {"node-1": {"first": 10, "second": 2}, "node-2": {"first": 10, "second": 2}},
         [Alloc("alloc1", "app-1", NC1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", NC1, {"first": 10}, "node-2", 0),
          Alloc("alloc3", "app-2", NC2, {"first": 5})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "Subtest 1 of 2 (guaranteed on the parents). Both nodes "
         "are full; the test asserts alloc1 or alloc2 is preempted and preemption has a result."),
    Case(PREEMPTION, "TestTryPreemption_VictimQueue_Under_Diff_Parent_With_OG_And_UG_ResTypes", 2071,
         "victim-queue-under-diff-parent-with-og-and-ug-res-types-2",
         _nested({"max": {"first": 20, "second": 4}}, {"guaranteed": None}, {"guaranteed": None},
                 {"guaranteed": {"first": 10, "second": 2}}, {"guaranteed": {"first": 10}}, victims_under_parent1=True),
         {"node-1": {"first": 10, "second": 2}, "node-2": {"first": 10, "second": 2}},
         [Alloc("alloc1", "app-1", NC1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", NC1, {"first": 10}, "node-2", 0),
          Alloc("alloc3", "app-2", NC2, {"first": 5})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc3", "state": "Allocated"}},
         "Subtest 2 of 2 (guaranteed on the leaves). Both nodes "
         "are full; the test asserts alloc1 or alloc2 is preempted and preemption has a result."),
    Case(PREEMPTION, "TestTryPreemption_AskQueue_With_OG_And_UG_ResTypes", 2128,
         "ask-queue-with-og-and-ug-res-types",
         _two_children({"guaranteed": {"first": 10}}, {"guaranteed": {"first": 10, "second": 2}},
                       {"max": {"first": 20, "second": 6}}),
         {"node-1": {"first": 10, "second": 3, "third": 10}, "node-2": {"first": 10, "second": 3, "third": 10}},
         [Alloc("alloc1", "app-1", C1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", C1, {"first": 5}, "node-2", 0),
          Alloc("alloc3", "app-2", C2, {"first": 5, "second": 3}, "node-2", 0),
          Alloc("alloc4", "app-3", C2, {"first": 5, "third": 10})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc4", "state": "Allocated"}},
         "The ask's queue is over its guaranteed in second and under it in first. The test's app-2 also keeps "
         "alloc3 as a pending ask next to the allocation of the same key; the cluster has the bound pod only."),
    Case(PREEMPTION, "TestTryPreemption_AskQueue_Under_DiffParent_With_OG_And_UG_ResTypes", 2185,
         "ask-queue-under-diff-parent-with-og-and-ug-res-types-1",
         _nested({"max": {"first": 20, "second": 6}}, {"guaranteed": {"first": 10}},
                 {"guaranteed": {"first": 10, "second": 2}},
                 {"guaranteed": None}, {"guaranteed": None}, victims_under_parent1=True),
         {"node-1": {"first": 10, "second": 3, "third": 10}, "node-2": {"first": 10, "second": 3, "third": 10}},
         [Alloc("alloc1", "app-1", NC1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", NC1, {"first": 5}, "node-2", 0),
          Alloc("alloc3", "app-2", NC2, {"first": 5, "second": 3}, "node-2", 0),
          Alloc("alloc4", "app-3", NC2, {"first": 5, "third": 10})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc4", "state": "Allocated"}},
         "Subtest 1 of 2 (guaranteed on the parents). The test "
         "asserts alloc1 or alloc2 is preempted and preemption has a result."),
    Case(PREEMPTION, "TestTryPreemption_AskQueue_Under_DiffParent_With_OG_And_UG_ResTypes", 2185,
         "ask-queue-under-diff-parent-with-og-and-ug-res-types-2",
         _nested({"max": {"first": 20, "second": 6}}, {"guaranteed": None}, {"guaranteed": None},
                 {"guaranteed": {"first": 10}}, {"guaranteed": {"first": 10, "second": 2}}, victims_under_parent1=True),
         {"node-1": {"first": 10, "second": 3, "third": 10}, "node-2": {"first": 10, "second": 3, "third": 10}},
         [Alloc("alloc1", "app-1", NC1, {"first": 10}, "node-1", -1),
          Alloc("alloc2", "app-1", NC1, {"first": 5}, "node-2", 0),
          Alloc("alloc3", "app-2", NC2, {"first": 5, "second": 3}, "node-2", 0),
          Alloc("alloc4", "app-3", NC2, {"first": 5, "third": 10})],
         {"preempted_any_of": ["default/alloc1", "default/alloc2"],
          "ask": {"pod": "default/alloc4", "state": "Allocated"}},
         "Subtest 2 of 2 (guaranteed on the leaves). The test "
         "asserts alloc1 or alloc2 is preempted and preemption has a result."),
]


PARTITION = "pkg/scheduler/partition_test.go"


def _user_limit(name: str, max_apps: int, size: int) -> list[dict[str, Any]]:
    """The test partitions' limit for user testuser / group testgroup (``maxresources`` in memory and vcores,
    resource names no ask of these tests uses)."""
    return [{"limit": name, "users": ["testuser"], "groups": ["testgroup"],
             "maxresources": {"memory": str(size), "vcores": str(size)}, "maxapplications": max_apps}]


def _configured_partition() -> list[Q]:
    """``newConfiguredPartition``: root.{leaf, parent.sub-leaf} with user limits."""
    return [Q("leaf", limits=_user_limit("leaf queue limit", 1, 5)),
            Q("parent", limits=_user_limit("parent queue limit", 8, 5),
              children=[Q("sub-leaf", limits=_user_limit("sub-leaf queue limit", 2, 3))])]


def _preemption_partition() -> list[Q]:
    """``createPreemptionQueuesNodes``: root.parent (max vcore: 10).{leaf1, leaf2} (guaranteed vcore: 5,
    preemption.delay 1ms)."""
    leaf = {"guaranteed": {"vcores": 5}, "properties": {"preemption.delay": "1ms"}}
    return [Q("parent", max={"vcores": 10}, limits=_user_limit("parent queue limit", 8, 5), children=[
        Q("leaf1", limits=_user_limit("leaf1 queue limit", 8, 5), **leaf),  # type: ignore[arg-type]
        Q("leaf2", limits=_user_limit("leaf2 queue limit", 6, 5), **leaf)])]  # type: ignore[arg-type]


TWO_NODES = {"node-1": {"vcores": 10}, "node-2": {"vcores": 10}}
ROOT_LIMIT = _user_limit("root queue limit", 10, 10)

PARTITION_CASES: list[Case] = [
    Case(PARTITION, "TestTryAllocate", 1603, "try-allocate", _configured_partition(), TWO_NODES,
         [Alloc("app-1-alloc-1", "app-1", "root.parent.sub-leaf", {"vcores": 1}, minutes=0),
          Alloc("app-1-alloc-2", "app-1", "root.parent.sub-leaf", {"vcores": 1}, minutes=1, priority=2),
          Alloc("app-2-alloc-1", "app-2", "root.leaf", {"vcores": 1}, minutes=2, priority=2)],
         {"allocation_order": ["default/app-1-alloc-2", "default/app-2-alloc-1", "default/app-1-alloc-1"]},
         "Three asks of vcore: 1 on two empty nodes of vcore: 10; the test asserts which ask each of three "
         "tryAllocate calls places. Both applications use the key alloc-1, so a pod is named <app>-<key>.",
         root_limits=ROOT_LIMIT),
    Case(PARTITION, "TestPreemption", 2027, "preemption", _preemption_partition(), TWO_NODES,
         [Alloc("alloc-1", "app-1", "root.parent.leaf1", {"vcores": 5}, "node-1", -1, priority=2,
                preempt_self=True),
          Alloc("alloc-2", "app-1", "root.parent.leaf1", {"vcores": 5}, "node-2", 0, priority=1,
                preempt_self=True),
          Alloc("alloc-3", "app-2", "root.parent.leaf2", {"vcores": 5}, priority=1)],
         {"preempted": ["default/alloc-2"], "not_preempted": ["default/alloc-1"],
          "ask": {"pod": "default/alloc-3", "state": "Allocated"}},
         "setupPreemption places alloc-1 (priority 2) on node-1 and alloc-2 (priority 1) on node-2 through the "
         "scheduler (the test asserts those nodes): here they are bound pods. Both and the ask carry the policy of "
         "newAllocationAskPreempt (allowPreemptSelf and allowPreemptOther true). The test then asserts that alloc-2 "
         "is preempted, alloc-1 not, and that the ask is placed from its reservation once alloc-2 is released.",
         root_limits=ROOT_LIMIT),
    Case(PARTITION, "TestTryAllocateLarge", 2342, "try-allocate-large", _configured_partition(), TWO_NODES,
         [Alloc("alloc-1", "app-1", "root.parent.sub-leaf", {"vcores": 100})],
         {"ask": {"pod": "default/alloc-1", "state": "Pending", "reserved": False}},
         "An ask of vcore: 100, larger than either node (vcore: 10): nothing is placed and nothing reserved.",
         root_limits=ROOT_LIMIT),
]


MOCK_RESERVATION = "pkg/scheduler/tests/reservation_test.go"
SINGLE_QUEUE_CONFIG = """
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: leaf-1
            resources:
              guaranteed: {memory: 100M, vcore: 100}
              max: {memory: 200M, vcore: 200}
    preemption:
      enabled: false
"""
DUAL_QUEUE_CONFIG = """
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: leaf-1
            resources:
              guaranteed: {memory: 100M, vcore: 100}
              max: {memory: 500M, vcore: 500}
          - name: leaf-2
            resources:
              guaranteed: {memory: 100M, vcore: 100}
              max: {memory: 500M, vcore: 500}
    preemption:
      enabled: false
"""
MOCK_NODES = {"node-1": {"memory": 50000000, "vcore": 50000}, "node-2": {"memory": 50000000, "vcore": 50000}}
LARGE = {"memory": 20000000, "vcore": 20000}
SMALL = {"memory": 5000000, "vcore": 5000}


def _asks(app: str, prefix: str, res: Res, repeat: int, queue: str, minutes: int = 0) -> list[Alloc]:
    """``mockScheduler.addAppRequest``: ``repeat`` asks keyed <prefix>-<i>, no priority, no preemption policy."""
    return [Alloc(f"{prefix}-{i}", app, queue, dict(res), minutes=minutes, preempt_other=False) for i in range(repeat)]


MOCK_CASES: list[Case] = [
    Case(MOCK_RESERVATION, "TestBasicReservation", 85, "basic-reservation", [], MOCK_NODES,
         _asks("app-1", "alloc-1", LARGE, 6, "root.leaf-1"),
         {"allocated_count": 4, "reserved_per_node": {"node-1": 1, "node-2": 1},
          "reservations_per_app": {"app-1": 2}},
         "The test's own queue config (SingleQueueConfig) and mock nodes (memory 50M, vcore 50000m). Six asks of "
         "memory 20M, vcore 20000m; after the scheduling steps four are allocated and the two left reserve one "
         "node each. What the test does after removing the application is not ported.",
         raw_config=SINGLE_QUEUE_CONFIG),
    Case(MOCK_RESERVATION, "TestReservationForTwoQueues", 160, "reservation-for-two-queues", [], MOCK_NODES,
         [*[Alloc(f"alloc-1-{i}", "app-1", "root.leaf-1", dict(LARGE), f"node-{i // 2 + 1}", -1, preempt_other=False)
            for i in range(4)],
          *_asks("app-2", "alloc-2", LARGE, 2, "root.leaf-2"),
          *_asks("app-3", "alloc-3", SMALL, 2, "root.leaf-2", minutes=1)],
         {"allocated_count": 4, "reservations_per_app": {"app-2": 2, "app-3": 0}},
         "The test's own queue config (DualQueueConfig). app-1's four large asks are allocated first (the test "
         "asserts four allocations and 80M on the nodes: two per node); here they are bound pods. Then app-2's two "
         "large asks reserve both nodes and app-3's small asks, which would fit, get nothing: still four "
         "allocations. What the test does after removing app-1 is not ported.",
         raw_config=DUAL_QUEUE_CONFIG),
]


MOCK_SMOKE = "pkg/scheduler/tests/smoke_test.go"
SMALL_ASK = {"memory": 10000000, "vcore": 1000}
NODE_100M = {"memory": 100000000, "vcore": 20000}


def _spread(count: int, apps: list[str], queues: list[str]) -> list[Alloc]:
    """One request of ``count`` asks alloc-<i> (memory 10M, vcore 1000m), the first half for the first
    application and queue, the second half for the second."""
    per = count // len(apps)
    return [Alloc(f"alloc-{i}", apps[i // per], queues[i // per], dict(SMALL_ASK), preempt_other=False)
            for i in range(count)]


def _config(queues: str, extra: str = "") -> str:
    return f"""
partitions:
  - name: default{extra}
    queues:
      - name: root
        submitacl: "*"
        queues:
{queues}"""


OVER_MAX_PARENT = _config("""          - name: parent
            resources:
              max: {memory: 100M, vcore: 10}
            queues:
              - name: child-1
              - name: child-2
""")
OVER_MAX_LEAF = _config("""          - name: default
            resources:
              max: {memory: 100M, vcore: 10}
""")
NODE_NAMES = "The test's node IDs node-<n>:1234 are node-<n> (a colon is no Kubernetes name)."

SMOKE_CASES: list[Case] = [
    Case(MOCK_SMOKE, "TestBasicSchedulerAutoAllocation", 415, "basic-scheduler-auto-allocation", [],
         {"node-1": NODE_100M, "node-2": NODE_100M},
         [Alloc(f"alloc-{i}", "app-1", "root.leaf", dict(SMALL_ASK), preempt_other=False) for i in range(20)],
         {"allocated_count": 15},
         "The smoke tests' configDataSmokeTest (root.leaf, max memory 150M, vcore 20): twenty asks of memory 10M, "
         "fifteen fit the leaf's max. " + NODE_NAMES,
         raw_config=_config("""          - name: leaf
            resources:
              max: {memory: 150M, vcore: 20}
""")),
    Case(MOCK_SMOKE, "TestFairnessAllocationForQueues", 512, "fairness-allocation-for-queues", [],
         {"node-1": NODE_100M, "node-2": NODE_100M},
         _spread(40, ["app-1", "app-2"], ["root.leaf1", "root.leaf2"]),
         {"allocated_count": 20, "allocated_per_app": {"app-1": 10, "app-2": 10}},
         "40 asks, 20 per application in two sibling leaves; the nodes hold 20: each queue gets 10. " + NODE_NAMES,
         raw_config=_config("          - name: leaf1\n          - name: leaf2\n")),
    Case(MOCK_SMOKE, "TestFairnessAllocationForApplications", 625, "fairness-allocation-for-applications", [],
         {"node-1": NODE_100M, "node-2": NODE_100M},
         _spread(40, ["app-1", "app-2"], ["root.leaf", "root.leaf"]),
         {"allocated_count": 20, "allocated_per_app": {"app-1": 10, "app-2": 10}},
         "40 asks, 20 per application in one leaf with application.sort.policy fair; the nodes hold 20: each "
         "application gets 10. " + NODE_NAMES,
         raw_config=_config("""          - name: leaf
            properties:
              application.sort.policy: fair
""")),
    Case(MOCK_SMOKE, "TestRejectApplications", 740, "reject-applications", [], {"node-1": NODE_100M},
         [Alloc("app-reject-1-0", "app-reject-1", "root.non-exist-queue", dict(SMALL_ASK), preempt_other=False),
          Alloc("app-added-2-0", "app-added-2", "root.leaf", dict(SMALL_ASK), preempt_other=False, minutes=1)],
         {"rejected": ["default/app-reject-1-0"], "not_rejected": ["default/app-added-2-0"]},
         "An application submitted to a queue that does not exist is rejected, one submitted to root.leaf "
         "accepted. The test's applications have no asks; in the cluster an application is its pods, so each has "
         "one (memory 10M, vcore 1000m), its application submitted in the test's order. " + NODE_NAMES,
         raw_config=_config("""          - name: leaf
            properties:
              application.sort.policy: fair
""")),
    Case(MOCK_SMOKE, "TestSchedulingOverMaxCapacity/scheduleOverParentQueueCapacity", 800,
         "scheduling-over-max-capacity-parent", [], {"node-1": {"memory": 150000000, "vcore": 15000}},
         [Alloc(f"alloc-{i}", "app-1", "root.parent.child-1", dict(SMALL_ASK), preempt_other=False)
          for i in range(12)],
         {"allocated_count": 10},
         "Twelve asks of memory 10M under a parent of max memory 100M: ten are allocated, two stay pending. What "
         "the test does after releasing them is not ported. " + NODE_NAMES,
         raw_config=OVER_MAX_PARENT),
    Case(MOCK_SMOKE, "TestSchedulingOverMaxCapacity/scheduleOverLeafQueueCapacity", 800,
         "scheduling-over-max-capacity-leaf", [], {"node-1": {"memory": 150000000, "vcore": 15000}},
         [Alloc(f"alloc-{i}", "app-1", "root.default", dict(SMALL_ASK), preempt_other=False) for i in range(12)],
         {"allocated_count": 10},
         "As the previous subtest with the max on the leaf itself. " + NODE_NAMES,
         raw_config=OVER_MAX_LEAF),
    Case(MOCK_SMOKE, "TestBinPackingAllocationForApplications", 1066, "bin-packing-allocation-for-applications", [],
         {"node-1": NODE_100M, "node-2": NODE_100M},
         _spread(40, ["app-1", "app-2"], ["root.leaf", "root.leaf"]),
         {"first_allocations_on_one_node": 9},
         "nodesortpolicy binpacking; after nine scheduling steps the test finds all nine allocations on one node "
         "(either): here the first nine in allocation order. " + NODE_NAMES,
         raw_config=_config("          - name: leaf\n", "\n    nodesortpolicy:\n        type: binpacking")),
    Case(MOCK_SMOKE, "TestFairnessAllocationForNodes", 1179, "fairness-allocation-for-nodes", [],
         {f"node-{i}": NODE_100M for i in range(10)},
         [Alloc(f"alloc-{i}", "app-1", "root.leaf", dict(SMALL_ASK), preempt_other=False) for i in range(20)],
         {"allocated_count": 20, "allocated_per_node": {f"node-{i}": 2 for i in range(10)}},
         "Ten equal nodes and twenty asks under the default (fair) node sorting: two on every node. " + NODE_NAMES,
         raw_config=_config("          - name: leaf\n")),
]


def main() -> None:
    for case in CASES + PARTITION_CASES + MOCK_CASES + SMOKE_CASES:
        write(case)
    _write_gang_cases(OUT / "gang")


def _write_gang_cases(out: Path) -> None:
    """The gang-scheduling cases (scripts/port_yunikorn_gang_cases.py) live in this tree too, under gang/."""
    import importlib.util
    import sys

    path = Path(__file__).resolve().parent / "port_yunikorn_gang_cases.py"
    spec = importlib.util.spec_from_file_location("port_yunikorn_gang_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    previous = sys.modules.get(spec.name)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        if previous is None:
            del sys.modules[spec.name]
        else:
            sys.modules[spec.name] = previous
    module.write_all(out)


if __name__ == "__main__":
    main()
