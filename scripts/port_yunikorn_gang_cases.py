"""Write YuniKorn's own gang-scheduling (placeholder) unit tests, ported by hand, as whole-cluster scenarios under
tests/conformance/data/yunikorn-ported/gang/ (its README.md describes the format and the translation rules).

Each case below was read in the Go source (apache/yunikorn-core at ``CORE_COMMIT`` and apache/yunikorn-k8shim at
``SHIM_COMMIT``) and written down as the cluster the test's setup amounts to: one gang application (its task groups,
the placeholder pods it already has, bound or pending, and its real pods), the queues and the nodes. ``expected``
holds only what the Go test asserts. Run ``python scripts/port_yunikorn_gang_cases.py`` after changing a case (or
``python scripts/port_yunikorn_unit_cases.py``, which writes these too); the output is deterministic.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "conformance" / "data" / "yunikorn-ported" / "gang"
CORE, CORE_COMMIT = "apache/yunikorn-core", "be3bb487"
SHIM, SHIM_COMMIT = "apache/yunikorn-k8shim", "23b6b47f"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
FIRST_POD_AGE = 600  # seconds before --now: the first pod of a case; the next ones follow STEP seconds apart
STEP = 30
UNBOUNDED_PODS = "110"

DOMAIN = "yunikorn.apache.org/"
# The shim marks the pods it creates as placeholders with this annotation (k8shim pkg/common/constants/constants.go:79,
# DomainYuniKornInternal + "placeholder", "internal.yunikorn.apache.org/" in the scheduler interface); before
# YUNIKORN-2503 (k8shim 1.6) it was "yunikorn.apache.org/placeholder".
PLACEHOLDER_FLAG = "internal.yunikorn.apache.org/placeholder"
TASK_GROUP_NAME = DOMAIN + "task-group-name"
TASK_GROUPS = DOMAIN + "task-groups"
SCHEDULING_POLICY = DOMAIN + "schedulingPolicyParameters"
USER_INFO = DOMAIN + "user.info"
PAUSE_IMAGE = "registry.k8s.io/pause:3.7"

Res = dict[str, str]  # Kubernetes resource name -> quantity, as a pod requests it or a node offers it


def core(**values: int) -> Res:
    """The core tests' resources in Kubernetes terms (as ../README.md translates them): ``first`` (and ``vcore`` of
    ``NewResourceFromConf``) is cpu in whole cores, ``second`` the extended resource example.com/second."""
    names = {"first": ("cpu", ""), "vcore": ("cpu", ""), "second": ("example.com/second", "")}
    return {names[k][0]: f"{v}{names[k][1]}" for k, v in values.items()}


def scheduler_test(memory: int, vcore: int) -> Res:
    """The scheduler tests' (pkg/scheduler/tests) resources: memory in bytes, vcore in millicores."""
    return {"cpu": f"{vcore}m", "memory": str(memory)}


@dataclass
class TaskGroup:
    name: str
    min_member: int
    min_resource: Res
    node_selector: dict[str, str] | None = None

    def annotation(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.name, "minMember": self.min_member, "minResource": dict(self.min_resource)}
        if self.node_selector:
            body["nodeSelector"] = dict(self.node_selector)
        return body


@dataclass
class P:
    """A pod of the gang application: a real pod or (``placeholder``) one the shim created before the restart;
    bound when ``node`` is set, else pending. ``age``: seconds before --now it was created (default: by its place
    in the case's list, the first one FIRST_POD_AGE seconds old)."""

    name: str
    group: str | None
    requests: Res
    placeholder: bool = False
    node: str | None = None
    age: int | None = None
    node_selector: dict[str, str] | None = None
    notes: dict[str, str] | None = None  # annotations of the test's own


@dataclass
class Case:
    repo: str
    file: str
    test: str
    line: int
    slug: str
    queues: str  # the queue configuration, YAML
    nodes: dict[str, Res]
    groups: list[TaskGroup]
    pods: list[P]  # in creation order; the first real pod is the originator (it carries the task-groups annotation)
    expected: dict[str, Any]
    how: str
    app: str = "app-1"
    queue: str = "root.default"
    namespace: str = "default"
    policy: str | None = None  # the schedulingPolicyParameters annotation
    user: str = "testuser"
    groups_of_user: list[str] = field(default_factory=lambda: ["testgroup"])


def folder_name(case: Case) -> str:
    stem = Path(case.file).stem
    return ("shim_" + stem) if case.repo == SHIM else stem


def node_yaml(name: str, res: Res) -> dict[str, Any]:
    allocatable = {**res, "pods": res.get("pods", UNBOUNDED_PODS)}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"allocatable": allocatable, "capacity": dict(allocatable)}}


def _ages(case: Case) -> dict[str, int]:
    ages, next_age = {}, FIRST_POD_AGE
    for pod in case.pods:
        ages[pod.name] = pod.age if pod.age is not None else next_age
        next_age = ages[pod.name] - STEP
    return ages


def pod_yaml(case: Case, pod: P, age: int, originator: bool) -> dict[str, Any]:
    created = NOW - timedelta(seconds=age)
    notes: dict[str, str] = {USER_INFO: json.dumps({"user": case.user, "groups": case.groups_of_user})}
    if pod.placeholder:
        # what the shim's placeholder carries: its own labels, the flag, its group, and the application's task
        # groups and policy (copied there to aid recovery)
        labels = {DOMAIN + "app-id": case.app, DOMAIN + "queue": case.queue}
        notes[PLACEHOLDER_FLAG] = "true"
    else:
        labels = {"applicationId": case.app, "queue": case.queue}
    if pod.group is not None:
        notes[TASK_GROUP_NAME] = pod.group
    notes.update(pod.notes or {})
    if pod.placeholder or originator:
        notes[TASK_GROUPS] = json.dumps([group.annotation() for group in case.groups])
        if case.policy:
            notes[SCHEDULING_POLICY] = case.policy
    extended = {name: value for name, value in pod.requests.items() if "/" in name}
    resources: dict[str, Any] = {"requests": dict(pod.requests)}
    if pod.placeholder and pod.requests:
        resources["limits"] = dict(pod.requests)  # the shim sets the placeholder's limits to its requests
    elif extended:  # Kubernetes: an extended resource's limit must be set and equal its request
        resources["limits"] = extended
    spec: dict[str, Any] = {"schedulerName": "yunikorn"}
    if pod.node:
        spec["nodeName"] = pod.node
    if pod.node_selector:
        spec["nodeSelector"] = dict(pod.node_selector)
    if pod.placeholder:
        spec["restartPolicy"] = "Never"
        spec["containers"] = [{"name": "pause", "image": PAUSE_IMAGE, "resources": resources}]
    else:
        spec["containers"] = [{"name": "main", "image": "busybox", "resources": resources}]
    body: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": pod.name, "namespace": case.namespace,
                     "creationTimestamp": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "labels": labels, "annotations": notes},
        "spec": spec}
    body["status"] = {"phase": "Running" if pod.node else "Pending"}
    return body


def write_case(case: Case, out: Path) -> None:
    folder = out / folder_name(case) / case.slug
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    queues = yaml.safe_load(case.queues)
    for partition in queues["partitions"]:
        partition.setdefault("placementrules", [{"name": "provided", "create": False}])
    (folder / "queues.yaml").write_text(_dump([queues]))
    (folder / "cluster.yaml").write_text(_dump([node_yaml(name, res) for name, res in case.nodes.items()]))
    ages = _ages(case)
    originator = next(pod.name for pod in case.pods if not pod.placeholder)
    (folder / "pods.yaml").write_text(_dump([pod_yaml(case, pod, ages[pod.name], pod.name == originator)
                                             for pod in case.pods]))
    commit = CORE_COMMIT if case.repo == CORE else SHIM_COMMIT
    source = {"repo": case.repo, "commit": commit, "file": case.file, "test": case.test, "line": case.line,
              "ported": "by hand from the Go test's setup and assertions (scripts/port_yunikorn_gang_cases.py)",
              "how": case.how}
    command = ("kqctl simulate --scheduler yunikorn --now " + NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
               + " -o json queues.yaml cluster.yaml pods.yaml")
    expected = {"source": source, "command": command, "expected": case.expected}
    (folder / "expected.yaml").write_text(_dump([expected], flow=False))


def _dump(documents: list[dict[str, Any]], flow: bool | None = None) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False, default_flow_style=flow, width=120)


def ns(name: str, namespace: str = "default") -> str:
    return f"{namespace}/{name}"


# ---------------------------------------------------------------------------------------------------------------
# yunikorn-core pkg/scheduler/partition_test.go
# ---------------------------------------------------------------------------------------------------------------
PARTITION = "pkg/scheduler/partition_test.go"


def _limit(name: str, max_apps: int, size: int) -> str:
    return (f"- limit: {name}\n  users: [testuser]\n  groups: [testgroup]\n"
            f"  maxresources: {{memory: '{size}', vcores: '{size}'}}\n  maxapplications: {max_apps}\n")


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


BASE_PARTITION = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
                  "        limits:\n" + _indent(_limit("root queue limit", 10, 10), 10)
                  + "        queues:\n          - name: default\n            limits:\n"
                  + _indent(_limit("default queue limit", 8, 5), 14))
CONFIGURED_PARTITION = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
                        "        limits:\n" + _indent(_limit("root queue limit", 10, 10), 10)
                        + "        queues:\n          - name: leaf\n            limits:\n"
                        + _indent(_limit("leaf queue limit", 1, 5), 14)
                        + "          - name: parent\n            limits:\n"
                        + _indent(_limit("parent queue limit", 8, 5), 14)
                        + "            queues:\n              - name: sub-leaf\n                limits:\n"
                        + _indent(_limit("sub-leaf queue limit", 2, 3), 18))
BASE_HOW = ("newBasePartition (root.default, user limits for testuser/testgroup in `memory` and `vcores`, resources "
            "these pods do not request) and one node. ")
PH_ASKS = ("The test adds each placeholder ask itself (the shim's part): here they are the application's placeholder "
           "pods, pending, already created by the shim before the restart, so kqctl creates none. ")
PH_TOTAL = ("The test's application asks for {total} in all (`newApplicationTG`); the cluster's is what its task "
            "groups declare ({declared}), which changes nothing the test asserts. ")

PARTITION_CASES: list[Case] = [
    Case(CORE, PARTITION, "TestPlaceholderSmallerThanReal", 3025, "placeholder-smaller-than-real", BASE_PARTITION,
         {"node-1": core(first=5, second=5)},
         [TaskGroup("tg-1", 1, core(first=2, second=2))],
         [P("alloc-1", "tg-1", core(first=5, second=5)),
          P("ph-1", "tg-1", core(first=2, second=2), placeholder=True)],
         {"states": {ns("ph-1"): "Released"}, "reason_contains": {ns("ph-1"): "resource incompatible"},
          "not_replaced": [ns("alloc-1")]},
         BASE_HOW + PH_ASKS + PH_TOTAL.format(total="first: 5, second: 5", declared="first: 2, second: 2")
         + "The placeholder (first: 2, second: 2) is allocated; the real pod of its group asks for more (first: 5, "
         "second: 5), so the placeholder cannot be replaced: the core releases it as resource incompatible (a "
         "timeout release; the group's placeholder then counts as timed out) and the real pod replaces nothing. "
         "What becomes of the real pod afterwards is not asserted."),
    Case(CORE, PARTITION, "TestPlaceholderSmallerMulti", 3091, "placeholder-smaller-multi", BASE_PARTITION,
         {"node-1": core(first=10, second=10)},
         [TaskGroup("tg-1", 5, core(first=2, second=2))],
         [P("alloc-1", "tg-1", core(first=10, second=10)),
          *[P(f"ph-{i}", "tg-1", core(first=2, second=2), placeholder=True) for i in range(5)]],
         {"states": {ns(f"ph-{i}"): "Released" for i in range(5)},
          "reason_contains": {ns(f"ph-{i}"): "resource incompatible" for i in range(5)},
          "not_replaced": [ns("alloc-1")]},
         BASE_HOW + PH_ASKS
         + "Five placeholders (first: 2, second: 2 each) fill the node (first: 10, second: 10); the real pod of "
         "their group asks for first: 10, second: 10, larger than each: one real pod releases all five as resource "
         "incompatible (each counts as timed out) and replaces none."),
    Case(CORE, PARTITION, "TestPlaceholderBiggerThanReal", 3165, "placeholder-bigger-than-real", BASE_PARTITION,
         {"node-1": core(first=5, second=5)},
         [TaskGroup("tg-1", 1, core(first=2, second=2))],
         [P("alloc-1", "tg-1", core(first=1, second=1)),
          P("ph-1", "tg-1", core(first=2, second=2), placeholder=True)],
         {"replaced": {ns("alloc-1"): ns("ph-1")}, "states": {ns("ph-1"): "Replaced", ns("alloc-1"): "Allocated"},
          "nodes": {ns("alloc-1"): "node-1"},
          "queue_allocated": {"root.default": {"vcore": 1000, "example.com/second": 1}}},
         BASE_HOW + PH_ASKS + PH_TOTAL.format(total="first: 5, second: 5", declared="first: 2, second: 2")
         + "The real pod (first: 1, second: 1) is smaller than the placeholder: it replaces it on the placeholder's "
         "node, and once the replacement is confirmed the queue holds the real pod's size only (the test's `first`, "
         "cpu, is kqctl's vcore in millicores)."),
    Case(CORE, PARTITION, "TestPlaceholderMatch", 3240, "placeholder-match", BASE_PARTITION,
         {"node-1": core(first=10, second=10)},
         [TaskGroup("tg-1", 1, core(first=2, second=2))],
         [P("alloc-2", "tg-1", core(first=2, second=2)),
          P("ph-1", "tg-1", core(first=2, second=2), placeholder=True),
          P("alloc-1", "unknown", core(first=2, second=2)),
          P("no-ph-used", "tg-1", core(first=2, second=2))],
         {"replaced": {ns("alloc-2"): ns("ph-1")}, "not_replaced": [ns("alloc-1"), ns("no-ph-used")],
          "states": {ns("ph-1"): "Replaced", ns("alloc-1"): "Allocated", ns("alloc-2"): "Allocated",
                     ns("no-ph-used"): "Allocated"},
          "allocated_count": 3},
         BASE_HOW + PH_ASKS + PH_TOTAL.format(total="first: 10, second: 10", declared="first: 2, second: 2")
         + "A real pod of a task group the application does not declare (alloc-1, group `unknown`) is allocated as "
         "an ordinary pod; a real pod of the placeholder's group (alloc-2) is not allocated normally but replaces "
         "the placeholder; a later real pod of that group (no_ph_used in the test: an underscore is no Kubernetes "
         "name) finds every placeholder used and is allocated normally. Three allocations in the end, no "
         "placeholder. In the cluster all real pods exist at once: alloc-2 is the oldest (the originator), so it is "
         "the one that takes the placeholder, as in the test."),
    Case(CORE, PARTITION, "TestTryPlaceholderAllocate", 3418, "try-placeholder-allocate", BASE_PARTITION,
         {"node-1": core(vcore=10)},
         [TaskGroup("tg-1", 2, core(vcore=1))],
         [P("alloc-2", "tg-1", core(vcore=1)),
          P("ph-1", "tg-1", core(vcore=1), placeholder=True),
          P("ph-2", "tg-1", core(vcore=1), placeholder=True),
          P("alloc-1", "tg-unk", core(vcore=1))],
         {"replaced_any": {ns("alloc-2"): [ns("ph-1"), ns("ph-2")]}, "not_replaced": [ns("alloc-1")],
          "placeholder_states": {"Replaced": 1, "Allocated": 1}},
         BASE_HOW + PH_ASKS + PH_TOTAL.format(total="vcore: 10", declared="vcore: 2")
         + "Two placeholders of vcore: 1 are allocated (the test's `vcore` of NewResourceFromConf is cpu in cores). "
         "A real pod of another group (tg-unk) replaces nothing; the real pod of the placeholders' group replaces "
         "one of them (the test does not say which), the other stays allocated."),
    Case(CORE, PARTITION, "TestFailReplacePlaceholder", 3545, "fail-replace-placeholder", BASE_PARTITION,
         {"node-1": core(vcore=10), "node-2": core(vcore=10)},
         [TaskGroup("tg-1", 1, core(vcore=1))],
         [P("alloc-1", "tg-1", core(vcore=1), node_selector={"kubernetes.io/hostname": "node-2"}),
          P("ph-1", "tg-1", core(vcore=1), placeholder=True, node="node-1")],
         {"replaced": {ns("alloc-1"): ns("ph-1")}, "states": {ns("ph-1"): "Replaced"},
          "nodes": {ns("alloc-1"): "node-2"}},
         BASE_HOW.replace("one node", "two nodes")
         + "The test allocates the placeholder on node-1, adds node-2 and then lets the predicate check fail on "
         "node-1 for the real pod (a mock plugin): the real pod cannot take the placeholder's place on its node, so "
         "it replaces the placeholder from the first node that fits, node-2. In the cluster the placeholder is "
         "bound to node-1 (the shim's placeholder pod, running) and the real pod's nodeSelector "
         "(kubernetes.io/hostname: node-2) is what fails the predicates on node-1."),
    Case(CORE, PARTITION, "TestPlaceholderAllocationTracking", 4455, "placeholder-allocation-tracking",
         CONFIGURED_PARTITION, {"node-1": core(vcore=10), "node-2": core(vcore=10)},
         [TaskGroup("tg-1", 3, core(vcore=1))],
         [P("alloc-1", "tg-1", core(vcore=1)),
          *[P(f"ph-{i}", "tg-1", core(vcore=1), placeholder=True) for i in (1, 2, 3)]],
         {"replaced_any": {ns("alloc-1"): [ns(f"ph-{i}") for i in (1, 2, 3)]},
          "placeholder_states": {"Replaced": 1, "Allocated": 2}, "allocated_count": 3},
         "createQueuesNodes (newConfiguredPartition, two nodes of vcore: 10); the application is in "
         "root.parent.sub-leaf. " + PH_ASKS
         + "Three placeholders and one real pod of their group, all vcore: 1: the real pod replaces one placeholder "
         "(the test replaces the first one allocated, before the other two are; in the cluster the shim submits "
         "the real pod only once all three are allocated, so which one is left open), leaving three allocations, "
         "two of them placeholders. The test's later releases (stopped by the RM, timed out) are not ported: the "
         "test makes them itself. The test builds the application without a placeholder ask (`newApplication`).",
         queue="root.parent.sub-leaf"),
    Case(CORE, PARTITION, "TestPlaceholderAllocationAndReplacementAfterRecovery", 4952,
         "placeholder-allocation-and-replacement-after-recovery", BASE_PARTITION,
         {"node-1": core(first=10)},
         [TaskGroup("tg-1", 1, core(first=1)), TaskGroup("tg-2", 1, core(first=1))],
         [P("real-alloc", "tg-1", core(first=1)),
          P("placeholder", "tg-1", core(first=1), placeholder=True, node="node-1"),
          P("placeholder2", "tg-2", core(first=1), placeholder=True)],
         {"states": {ns("placeholder2"): "Allocated", ns("placeholder"): "Replaced",
                     ns("real-alloc"): "Allocated"},
          "nodes": {ns("placeholder2"): "node-1", ns("real-alloc"): "node-1"},
          "replaced": {ns("real-alloc"): ns("placeholder")}},
         BASE_HOW + "After a restart the placeholder of tg-1 is a recovered allocation on node-1 (a bound "
         "placeholder pod); the placeholder of tg-2 is still pending, and so is a real pod of tg-1. The pending "
         "placeholder is allocated on node-1, then the real pod replaces the recovered placeholder of its group. "
         "The test builds the application without a placeholder ask (`newApplication`); the cluster's task groups "
         "declare one placeholder per group."),
]

# ---------------------------------------------------------------------------------------------------------------
# yunikorn-core pkg/scheduler/objects/application_test.go
# ---------------------------------------------------------------------------------------------------------------
APPLICATION = "pkg/scheduler/objects/application_test.go"
ROOT_A = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n" \
         "        queues:\n          - name: a\n"
GANG_ALLOC_HOW = ("The application's placeholder ask is first: 4 (`app.placeholderAsk`), placeholders of first: 2: a "
                  "task group of minMember 2 and minResource first: 2 asks exactly that. The core moves the "
                  "application to Running (and counts it among its queue's running applications, kqctl's "
                  "`runningApps`) when the placeholders allocated add up to the placeholder ask; real allocations keep "
                  "it Running. ")

APPLICATION_CASES: list[Case] = [
    Case(CORE, APPLICATION, "TestGangAllocChange", 958, "gang-alloc-change-one-placeholder", ROOT_A,
         {"node-1": core(first=2)},
         [TaskGroup("tg", 2, core(first=2))],
         [P("alloc-3", None, core(first=2)),
          P("ph-1", "tg", core(first=2), placeholder=True),
          P("ph-2", "tg", core(first=2), placeholder=True)],
         {"placeholder_states": {"Allocated": 1, "Pending": 1}, "queue_running_apps": {"root.a": 0},
          "states": {ns("alloc-3"): "Pending"}},
         GANG_ALLOC_HOW + "The test's first step: one placeholder allocated (the node, first: 2, holds one), the "
         "application stays Accepted: root.a has no running application, and the real pod is held back. (For "
         "maxapplications the core still counts such an application, separately: `allocatingAcceptedApps` in "
         "`canRunApp`; the queue's running applications are only those in the Running state.)",
         queue="root.a"),
    Case(CORE, APPLICATION, "TestGangAllocChange", 958, "gang-alloc-change-all-placeholders", ROOT_A,
         {"node-1": core(first=8)},
         [TaskGroup("tg", 2, core(first=2))],
         [P("alloc-3", None, core(first=2)),
          P("ph-1", "tg", core(first=2), placeholder=True),
          P("ph-2", "tg", core(first=2), placeholder=True)],
         {"placeholder_states": {"Allocated": 2}, "queue_running_apps": {"root.a": 1},
          "states": {ns("alloc-3"): "Allocated"}, "not_replaced": [ns("alloc-3")]},
         GANG_ALLOC_HOW + "The test's next steps: both placeholders allocated, the application is Running (root.a "
         "has one running application); a real allocation without a task group (the test's `newAllocation`) is "
         "then made and the application stays Running. The test's fourth allocation (a second real one) is left "
         "out: one shows the same.",
         queue="root.a"),
]

# ---------------------------------------------------------------------------------------------------------------
# yunikorn-core pkg/scheduler/tests: recovery_test.go and smoke_test.go (the whole scheduler, mock RM)
# ---------------------------------------------------------------------------------------------------------------
RECOVERY = "pkg/scheduler/tests/recovery_test.go"
SMOKE = "pkg/scheduler/tests/smoke_test.go"
QUEUE_A = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n" \
          "        queues:\n          - name: a\n"
SMOKE_CONFIG = ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
                "        queues:\n          - name: leaf\n            resources:\n"
                "              max: {memory: 150M, vcore: 20}\n")
NODE_NAMES = "The test's node IDs node-<n>:1234 are node-<n> (a colon is no Kubernetes name)."
TINY = scheduler_test(memory=10, vcore=1)
SMOKE_ASK = scheduler_test(memory=10000000, vcore=1000)

MOCK_CASES: list[Case] = [
    Case(CORE, RECOVERY, "TestPlaceholderRecovery", 441, "placeholder-recovery", QUEUE_A,
         {"node-1": scheduler_test(memory=100, vcore=20)},
         [TaskGroup("tg-1", 1, TINY), TaskGroup("tg-2", 1, TINY)],
         [P("real-alloc-1", "tg-1", TINY),
          P("ph-alloc-1", "tg-1", TINY, placeholder=True, node="node-1"),
          P("ph-alloc-2", "tg-2", TINY, placeholder=True),
          P("real-alloc-2", "tg-2", TINY)],
         {"replaced": {ns("real-alloc-1"): ns("ph-alloc-1"), ns("real-alloc-2"): ns("ph-alloc-2")},
          "placeholder_states": {"Replaced": 2}},
         "The recovery tests' config (root.a) and node (memory 100, vcore 20: bytes and millicores). After the "
         "restart the placeholder of tg-1 is a recovered allocation (bound placeholder pod), the placeholder of "
         "tg-2 a new ask (pending placeholder pod); then a real pod of each group arrives and the test waits for "
         "both placeholders to be released for replacement: each real pod replaces its group's placeholder. "
         "What the test does after it releases the real pods (the application completing) is not ported. "
         + NODE_NAMES, queue="root.a"),
    Case(CORE, SMOKE, "TestDupReleasesInGangScheduling", 1288, "dup-releases-in-gang-scheduling", SMOKE_CONFIG,
         {"node-1": scheduler_test(memory=100000000, vcore=20000),
          "node-2": scheduler_test(memory=100000000, vcore=20000)},
         [TaskGroup("tg", 1, SMOKE_ASK)],
         [P("alloc-2", "tg", SMOKE_ASK),
          P("alloc-1", "tg", SMOKE_ASK, placeholder=True)],
         {"replaced": {ns("alloc-2"): ns("alloc-1")},
          "states": {ns("alloc-1"): "Replaced", ns("alloc-2"): "Allocated"},
          "queue_allocated": {"root.leaf": {"memory": 10000000}},
          "queue_pending_empty": ["root.leaf", "root"]},
         "The smoke tests' configDataSmokeTest (root.leaf, max memory 150M, vcore 20) and two nodes (memory 100M, "
         "vcore 20000m). The shim's placeholder (alloc-1, memory 10M, vcore 1000m, group tg) is a pending "
         "placeholder pod; it is allocated, then the real pod of its group (alloc-2) replaces it: the application "
         "holds the real pod's 10M (the only application of root.leaf, so the queue holds the same) and no queue "
         "has anything pending. The duplicate release the test sends afterwards is not ported. " + NODE_NAMES,
         queue="root.leaf"),
]

# ---------------------------------------------------------------------------------------------------------------
# yunikorn-k8shim pkg/cache: application_test.go and placeholder_manager_test.go (the shim's side of a restart)
# ---------------------------------------------------------------------------------------------------------------
SHIM_APP = "pkg/cache/application_test.go"
SHIM_PH = "pkg/cache/placeholder_manager_test.go"


def _one_queue(name: str) -> str:
    return ("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n"
            f"        queues:\n          - name: {name}\n")


SMALL_TG = {"cpu": "500m", "memory": "500Mi"}
LARGE_TG = {"cpu": "1000m", "memory": "1000Mi"}
BIG_NODE = {"cpu": "40", "memory": "64Gi"}
TWO_GROUPS = [TaskGroup("test-group-1", 10, SMALL_TG), TaskGroup("test-group-2", 20, LARGE_TG)]
ONE_GROUP = [TaskGroup("test-group-1", 1, SMALL_TG)]
SHIM_HOW = ("kqctl reads the snapshot as the shim does after a restart: an application whose task groups are declared "
            "goes through the reservation stage (creating the placeholders it lacks) unless one of its real pods is "
            "already bound. ")
ONE_REAL = ("The test's application has no pods of its own (the test sets its task groups directly); in a cluster an "
            "application is its pods, so it gets one pending real pod, its originator, which carries the "
            "task-groups annotation. ")


def _timeout_case(test: str, line: int, slug: str, policy: str | None, age: int, created: int, how: str,
                  expected: dict[str, Any] | None = None) -> Case:
    return Case(SHIM, SHIM_APP, test, line, slug, _one_queue("abc"), {"node-1": BIG_NODE}, ONE_GROUP,
                [P("pod-0001", "test-group-1", SMALL_TG, age=age)],
                {"placeholders_created": {"test-group-1": created}, **(expected or {})},
                SHIM_HOW + ONE_REAL + how, app="app00001", queue="root.abc", policy=policy,
                user="test-user", groups_of_user=["dev", "yunikorn"])


SHIM_CASES: list[Case] = [
    Case(SHIM, SHIM_APP, "TestTryReserve", 678, "try-reserve", _one_queue("abc"), {"node-1": BIG_NODE}, TWO_GROUPS,
         [P("pod-0001", "test-group-1", SMALL_TG)],
         {"placeholders_created": {"test-group-1": 10, "test-group-2": 20}},
         SHIM_HOW + ONE_REAL + "Two task groups (minMember 10 of cpu 500m, memory 500Mi; minMember 20 of cpu "
         "1000m, memory 1000Mi) and no placeholder yet: the application reserves, 30 placeholders are created.",
         app="app00001", queue="root.abc", user="test-user", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_APP, "TestTryReservePostRestart", 745, "try-reserve-post-restart", _one_queue("abc"),
         {"fake-host": {"cpu": "4", "memory": "8Gi"}}, TWO_GROUPS,
         [P("pod-test-00000", None, {}, node="fake-host"),
          P("pod-test-00001", None, {}),
          P("pod-test-00002", None, {})],
         {"placeholders_created": {"test-group-1": 0, "test-group-2": 0},
          "states": {ns("pod-test-00001"): "Allocated", ns("pod-test-00002"): "Allocated"},
          "not_replaced": [ns("pod-test-00001"), ns("pod-test-00002")]},
         SHIM_HOW + "After the restart one of the three pods (no requests, no task group) is already allocated on "
         "fake-host (bound) and two are new: the reservation stage is skipped, no placeholder is created and the "
         "application runs at once, so the two pending pods are scheduled as ordinary pods (the node has room).",
         app="app00001", queue="root.abc", user="test-user", groups_of_user=["dev", "yunikorn"]),
    _timeout_case("TestIsPlaceholderTimeoutElapsed/no timeout configured", 871,
                  "is-placeholder-timeout-elapsed-no-timeout", None, 60, 1,
                  "No placeholder timeout in the schedulingPolicyParameters (the shim's 0): never elapsed, even for "
                  "an application created 60 s before --now, so its placeholder is created. (The subtests with a "
                  "missing or unparsable creation time are not ported: a pod always has a creationTimestamp.)"),
    _timeout_case("TestIsPlaceholderTimeoutElapsed/timeout not yet elapsed", 871,
                  "is-placeholder-timeout-elapsed-not-yet", "placeholderTimeoutInSeconds=60", 0, 1,
                  "A 60 s timeout for an application created at --now: not elapsed, the placeholder is created."),
    _timeout_case("TestIsPlaceholderTimeoutElapsed/timeout elapsed", 871,
                  "is-placeholder-timeout-elapsed", "placeholderTimeoutInSeconds=10", 60, 0,
                  "A 10 s timeout for an application created 60 s before --now: elapsed, so no placeholder is "
                  "created (the default style, Soft, follows; the test asserts only the elapsed check)."),
    _timeout_case("TestOnReservingCreatesPlaceholdersWhenTimeoutNotElapsed", 932,
                  "on-reserving-creates-placeholders-when-timeout-not-elapsed", "placeholderTimeoutInSeconds=300", 0,
                  1, "A 300 s timeout for an application created at --now: the application reserves and its one "
                  "placeholder is created."),
    Case(SHIM, SHIM_APP, "TestOnReservingWithExistingPlaceholders", 978, "on-reserving-with-existing-placeholders",
         _one_queue("abc"), {"node-1": BIG_NODE}, [TaskGroup("test-group-1", 2, SMALL_TG)],
         [P("pod-0001", "test-group-1", SMALL_TG, age=60),
          P("placeholder-pod-01", "test-group-1", SMALL_TG, placeholder=True, age=50)],
         {"placeholders_created": {"test-group-1": 1}, "not_failed": [ns("pod-0001")]},
         SHIM_HOW + "minMember 2, one placeholder already there (pending), a 10 s timeout with the Hard style for an "
         "application created 60 s before --now: because a placeholder exists the shim does not look at the "
         "timeout, it creates the one missing placeholder and the application does not fail. The real pod "
         "pod-0001 is the originator (the test's application has only the placeholder). The core's own placeholder "
         "timer starts when it accepts the application after the restart, so it has not fired at --now either.",
         app="app00001", queue="root.abc", policy="placeholderTimeoutInSeconds=10 gangSchedulingStyle=Hard",
         user="test-user", groups_of_user=["dev", "yunikorn"]),
    _timeout_case("TestOnReservingSkipsTimedOutPlaceholders/soft", 1035,
                  "on-reserving-skips-timed-out-placeholders-soft",
                  "placeholderTimeoutInSeconds=1 gangSchedulingStyle=Soft", 60, 0,
                  "A 1 s timeout for an application created 60 s before --now, Soft style: no placeholder is created "
                  "and the application runs as an ordinary one: its real pod is allocated (the node has room) and "
                  "replaces nothing.",
                  {"states": {ns("pod-0001"): "Allocated"}, "not_replaced": [ns("pod-0001")]}),
    _timeout_case("TestOnReservingSkipsTimedOutPlaceholders/hard", 1035,
                  "on-reserving-skips-timed-out-placeholders-hard",
                  "placeholderTimeoutInSeconds=1 gangSchedulingStyle=Hard", 60, 0,
                  "As the soft subtest with the Hard style: no placeholder is created and the application fails; the "
                  "shim fails its pending pods (pod status Failed, reason ResourceReservationTimeout).",
                  {"states": {ns("pod-0001"): "Failed"}}),
    Case(SHIM, SHIM_APP, "TestSkipReservationStage/allocated task", 1153, "skip-reservation-stage-allocated-task",
         _one_queue("queue"), {"node-1": BIG_NODE}, [TaskGroup("test-group-1", 10, SMALL_TG)],
         [P("task0001", None, {}), P("task0002", None, {}, node="node-1")],
         {"placeholders_created": {"test-group-1": 0}},
         SHIM_HOW + "Task groups declared, one task new (pending pod) and one allocated (bound pod): the "
         "reservation stage is skipped, no placeholder is created. (The first check of the test, an application "
         "without task groups, is any ordinary application: not ported.)",
         app="app00001", queue="root.queue", user="test-user", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_APP, "TestSkipReservationStage/new tasks", 1153, "skip-reservation-stage-new-tasks",
         _one_queue("queue"), {"node-1": BIG_NODE}, [TaskGroup("test-group-1", 10, SMALL_TG)],
         [P("task0001", None, {}), P("task0002", None, {})],
         {"placeholders_created": {"test-group-1": 10}},
         SHIM_HOW + "Task groups declared and both tasks new (pending pods): the reservation stage is not skipped, "
         "the group's 10 placeholders are created.",
         app="app00001", queue="root.queue", user="test-user", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_APP, "TestApplication_onReservationStateChange", 1441,
         "on-reservation-state-change-unknown-group", _one_queue("a"),
         {"node-1": {"cpu": "1500m", "memory": "1500Mi"}},
         [TaskGroup("test-group-1", 1, SMALL_TG), TaskGroup("test-group-2", 2, SMALL_TG)],
         [P("real-0001", "test-group-1", SMALL_TG),
          P("task0001", "test-group-1", SMALL_TG, placeholder=True, node="node-1"),
          P("task0002", "test-group-2", SMALL_TG, placeholder=True, node="node-1"),
          P("task0003", "unknown", SMALL_TG, placeholder=True, node="node-1")],
         {"states": {ns("real-0001"): "Pending"}, "reason_contains": {ns("real-0001"): "placeholder"}},
         SHIM_HOW + "Groups test-group-1 (minMember 1) and test-group-2 (minMember 2); bound placeholders: one of "
         "each group and one of a group the application does not declare (`unknown`). The bound placeholder of an "
         "unknown group counts for no group, so test-group-2 still lacks one and the application keeps waiting. "
         "In the cluster the missing placeholder is created but the node (cpu 1500m, memory 1500Mi) is full, so "
         "it is never allocated and the real pod real-0001 (not in the test: it shows the application waiting) is "
         "never submitted; it is the oldest pod, the originator (the test makes a placeholder the originator, "
         "which only decides where the shim's events go). The test's intermediate step with a bound real pod of "
         "an unknown group is not ported (a bound real pod skips the reservation stage altogether).",
         app="app01", queue="root.a", user="testuser", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_APP, "TestApplication_onReservationStateChange", 1441,
         "on-reservation-state-change-all-bound", _one_queue("a"),
         {"node-1": {"cpu": "1500m", "memory": "1500Mi"}},
         [TaskGroup("test-group-1", 1, SMALL_TG), TaskGroup("test-group-2", 2, SMALL_TG)],
         [P("real-0001", "test-group-1", SMALL_TG),
          P("task0001", "test-group-1", SMALL_TG, placeholder=True, node="node-1"),
          P("task0002", "test-group-2", SMALL_TG, placeholder=True, node="node-1"),
          P("task0003", "test-group-2", SMALL_TG, placeholder=True, node="node-1")],
         {"states": {ns("real-0001"): "Allocated"}, "replaced": {ns("real-0001"): ns("task0001")}},
         SHIM_HOW + "The test's last step: every group has its minMember of bound placeholders, so the application "
         "runs and its real pods are submitted; the real pod real-0001 (not in the test) then takes the place of "
         "the one placeholder of its group on the full node.",
         app="app01", queue="root.a", user="testuser", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_PH, "TestCreateAppPlaceholders", 57, "create-app-placeholders", _one_queue("default"),
         {"node-1": BIG_NODE},
         [TaskGroup("test-group-1", 10, {"cpu": "500m", "memory": "1024M"}),
          TaskGroup("test-group-2", 20, {"cpu": "1000m", "memory": "2048M"})],
         [P("pod-0001", "test-group-1", {"cpu": "500m", "memory": "1024M"})],
         {"placeholders_created": {"test-group-1": 10, "test-group-2": 20},
          "placeholder_name_prefix": {"test-group-1": "tg-app01-test-group-1-",
                                      "test-group-2": "tg-app01-test-group-2-"}},
         SHIM_HOW + ONE_REAL + "Application app01 in namespace test: 10 placeholders for test-group-1 and 20 for "
         "test-group-2. The test finds a test-group-2 placeholder by its name's prefix tg-<app ID>-<group>-, which "
         "is the name the shim generates (a random suffix follows). Owner references are not ported.",
         app="app01", queue="root.default", namespace="test", user="bob", groups_of_user=["dev", "yunikorn"]),
    Case(SHIM, SHIM_PH, "TestCreateAppPlaceholdersWithExistingPods", 79, "create-app-placeholders-with-existing-pods",
         _one_queue("default"), {"node-1": BIG_NODE},
         [TaskGroup("test-group-1", 10, {"cpu": "500m", "memory": "1024M"}),
          TaskGroup("test-group-2", 20, {"cpu": "1000m", "memory": "2048M"})],
         [P("pod-0001", "test-group-1", {"cpu": "500m", "memory": "1024M"}),
          P("tg-app01-test-group-1-0", "test-group-1", {"cpu": "500m", "memory": "1024M"}, placeholder=True),
          P("tg-app01-test-group-1-1", "test-group-1", {"cpu": "500m", "memory": "1024M"}, placeholder=True),
          P("tg-app01-test-group-2-0", "test-group-2", {"cpu": "1000m", "memory": "2048M"}, placeholder=True)],
         {"placeholders_created": {"test-group-1": 8, "test-group-2": 19}},
         SHIM_HOW + "As TestCreateAppPlaceholders with three placeholders already there (pending, named as in the "
         "test): two of test-group-1, one of test-group-2; only the missing 27 are created (8 and 19). The test's "
         "originator is a placeholder; here it is a real pending pod, pod-0001. The priority class the test checks "
         "on the created pods is not ported.",
         app="app01", queue="root.default", namespace="test", user="bob", groups_of_user=["dev", "yunikorn"]),
]

SHIM_UTILS = "pkg/common/utils/utils_test.go"
FLAG_HOW = ("GetPlaceholderFlagFromPodSpec decides which of an application's pods are placeholders: the annotation "
            f"{PLACEHOLDER_FLAG} parsed as a boolean. ")
FLAG_CASES: list[Case] = [
    Case(SHIM, SHIM_UTILS, "TestGetPlaceholderFlagFromPodSpec/Setting by annotation", 1115,
         "placeholder-flag-set-by-annotation", QUEUE_A, {"node-1": {"cpu": "4", "memory": "8Gi"}},
         [TaskGroup("tg-1", 1, {"cpu": "1"})],
         [P("pod-00", "tg-1", {"cpu": "1"}), P("pod-01", "tg-1", {"cpu": "1"}, placeholder=True)],
         {"placeholder": {ns("pod-01"): True, ns("pod-00"): False}, "placeholders_created": {"tg-1": 0}},
         FLAG_HOW + "The test's pod pod-01 carries it set to true: it is a placeholder (of the group of its "
         "task-group-name), so the application has its one placeholder and none is created. pod-00 is the "
         "application's real pod (the test's pod belongs to no application).", queue="root.a"),
    Case(SHIM, SHIM_UTILS, "TestGetPlaceholderFlagFromPodSpec/Pod without placeholder annotation", 1115,
         "placeholder-flag-without-annotation", QUEUE_A, {"node-1": {"cpu": "4", "memory": "8Gi"}},
         [TaskGroup("tg-1", 1, {"cpu": "1"})],
         [P("pod-00", "tg-1", {"cpu": "1"}), P("pod-01", "tg-1", {"cpu": "1"}),
          P("pod-02", "tg-1", {"cpu": "1"}, notes={DOMAIN + "placeholder": "true"})],
         {"placeholder": {ns("pod-01"): False, ns("pod-02"): False}},
         FLAG_HOW + "The test's pod pod-01 has no annotation at all: not a placeholder. pod-02 (not in the test) "
         "carries yunikorn.apache.org/placeholder, the flag's name before YUNIKORN-2503 (k8shim 1.6): the function "
         "reads only the internal annotation, so pod-02 is no placeholder either; both are real pods of the "
         "application (which therefore gets a placeholder of its own).", queue="root.a"),
]

SHIM_GANG_UTILS = "pkg/cache/gang_utils_test.go"
NAME_HOW = ("GeneratePlaceholderName names a placeholder tg-<application ID, its first 28 characters>-<task group, its "
            "first 20>-<a random suffix of 10 characters>; the test checks the name up to the suffix. The application "
            "gets one placeholder (minMember 1) and no placeholder pod of its own, so kqctl creates it. ")


def _name_case(slug: str, app: str, group: str, prefix: str, how: str) -> Case:
    return Case(SHIM, SHIM_GANG_UTILS, "TestGeneratePlaceholderName", 74, slug, QUEUE_A,
                {"node-1": {"cpu": "4", "memory": "8Gi"}}, [TaskGroup(group, 1, {"cpu": "100m"})],
                [P("pod-0001", group, {"cpu": "100m"})],
                {"placeholders_created": {group: 1}, "placeholder_name_prefix": {group: prefix + "-"}},
                NAME_HOW + how, app=app, queue="root.a")


NAME_CASES: list[Case] = [
    _name_case("generate-placeholder-name", "app0001", "my-group", "tg-app0001-my-group",
               "Application app0001, group my-group: nothing is cut."),
    _name_case("generate-placeholder-name-long-app-id", "app" + "0" * 43 + "1", "my-group",
               "tg-app" + "0" * 25 + "-my-group", "An application ID of 47 characters is cut to its first 28."),
]

ALL_CASES = PARTITION_CASES + APPLICATION_CASES + MOCK_CASES + SHIM_CASES + FLAG_CASES + NAME_CASES


def write_all(out: Path = OUT) -> None:
    """Write every case under ``out`` (removing what is there but the README)."""
    if out.exists():
        for child in out.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    for case in ALL_CASES:
        write_case(case, out)


def main() -> None:
    write_all(OUT)


if __name__ == "__main__":
    main()
