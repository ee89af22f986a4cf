"""Volcano's checks across objects: the Queue webhook over the whole set of queues, the workloads' queues,
scheduler-side tree errors, the scheduler configuration and lints.

The Queue webhook needs the queues that exist (its lister), so it cannot judge a queue alone: the input's
queues are applied one request at a time, parents before children (the order in which a ``kubectl apply``
of the input can succeed; ties keep input order), each as a CREATE, or, with ``--against``, as a CREATE,
UPDATE (or DELETE with ``--prune``) of what the old state holds. A queue the API server or the webhook
refuses does not exist for the requests after it, as in a real apply.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kqctl.findings import Finding, Severity, error, warning
from kqctl.k8s.kinds import split_api_version
from kqctl.load.objects import LoadedObject
from kqctl.origin import FieldPath
from kqctl.volcano.api.models import DEFAULT_QUEUE, GROUP_NAME_ANNOTATION, ROOT_QUEUE, VOLCANO_SCHEDULER
from kqctl.volcano.kinds import BATCH_GROUP, GROUP, SCHEDULER_CONF_FILE, SCHEDULER_CONFIGMAP
from kqctl.volcano.validate import admission_policy
from kqctl.volcano.validate.queue_mutate import mutated_on_create
from kqctl.volcano.validate.queue_webhook import (
    CREATE,
    DELETE,
    UPDATE,
    Denial,
    Lister,
    QueueView,
    WebhookFlags,
    admit,
    not_found,
)

Found = list[tuple[LoadedObject, Finding]]


@dataclass(frozen=True)
class Context:
    """How to validate: the webhook's flags, the chart's admission policy, and the old state for a diff."""

    flags: WebhookFlags = WebhookFlags()
    vap: bool = False
    old: tuple[dict[str, Any], ...] | None = None  # --against: the Volcano queues the cluster holds now
    prune: bool = False  # --prune: queues of the old state missing from the input are deleted


@dataclass
class Request:
    """One admission request of the apply: its operation and the queue before and after."""

    operation: str
    name: str
    obj: LoadedObject | None  # the input object (None for a deletion)
    body: dict[str, Any] | None
    old_body: dict[str, Any] | None
    old_obj: LoadedObject | None = None


@dataclass
class ApplyResult:
    lister: Lister
    states: dict[str, str] = field(default_factory=dict)  # queue -> status.state after the apply
    # queue -> a status.state other than Open that the input writes on a queue it creates: the API server drops
    # it on create, but in a snapshot of a cluster it is the queue's real state.
    written_states: dict[str, str] = field(default_factory=dict)
    created: set[str] = field(default_factory=set)
    refused: dict[str, Denial] = field(default_factory=dict)


def cross_object_findings(objects: Sequence[LoadedObject], closed: bool, context: Context = Context()) -> Found:
    """Every Volcano cross-object finding for the input (the ValidationProfile hook)."""
    queues = [o for o in objects if _is(o, GROUP, "Queue")]
    found: Found = []
    if not queues and not any(_is(o, GROUP, "PodGroup") or _is(o, BATCH_GROUP, "Job") or o.info is SCHEDULER_CONF_FILE
                              or (o.kind == "ConfigMap" and o.name == SCHEDULER_CONFIGMAP) or _volcano_pod(o)
                              for o in objects):
        return found  # nothing of Volcano's in the input
    requests = plan(queues, context)
    result = apply(requests, context, found)
    # With --against the old state is the cluster's set of queues, so a queue missing from both is missing.
    found.extend(workload_findings(objects, result, closed or context.old is not None))
    from kqctl.volcano.validate import lints

    found.extend(lints.lint_findings(objects, result.lister))
    return found


def deletion_findings(new_objects: Sequence[LoadedObject], old_objects: Sequence[LoadedObject],
                      context: Context) -> Found:
    """The DELETE requests of ``--against --prune``, attributed to the old state's objects."""
    queues = [o for o in new_objects if _is(o, GROUP, "Queue")]
    context = Context(context.flags, context.vap, tuple(o.body for o in old_objects if _is(o, GROUP, "Queue")),
                      context.prune)
    old_by_name = {o.name: o for o in old_objects if _is(o, GROUP, "Queue")}
    requests = plan(queues, context)
    for request in requests:
        if request.operation == DELETE:
            request.old_obj = old_by_name.get(request.name)
    found: Found = []
    apply(requests, context, found)
    return [(obj, finding) for obj, finding in found if any(obj is old for old in old_objects)]


# --- the apply ---------------------------------------------------------------------------------------------


def plan(queues: Sequence[LoadedObject], context: Context) -> list[Request]:
    """The requests of the apply: creates and updates parents first, then deletions, children first."""
    old = {str(_dict(b.get("metadata")).get("name", "")): b for b in _old_bodies(context)}
    names = {o.name for o in queues}
    requests = []
    for obj in _parents_first(queues):
        name = obj.name or ""
        previous = old.get(name)
        if previous is not None and _same_object(previous, obj.body):
            continue  # unchanged: kubectl sends no request
        requests.append(Request(UPDATE if previous is not None else CREATE, name, obj, obj.body, previous))
    if context.prune and context.old is not None:
        # Only what --against lists can be pruned: the built-in root and default it may omit are not applied.
        listed = {str(_dict(b.get("metadata")).get("name", "")) for b in context.old}
        gone = [name for name in old if name not in names and name in listed]
        for name in _children_first(gone, old):
            requests.append(Request(DELETE, name, None, None, old[name]))
    return requests


def apply(requests: list[Request], context: Context, found: Found) -> ApplyResult:
    """Each request through the API server (schema), the webhook and the chart's policy, in order."""
    result = ApplyResult(Lister(), {})
    for body in _old_bodies(context):
        view = QueueView.of(body)
        result.lister.put(view)
        result.states[view.name] = view.state or "Open"
    for request in requests:
        _one_request(request, context, result, found)
    return result


def _old_bodies(context: Context) -> list[dict[str, Any]]:
    """The queues the input is applied to: --against's, plus root and default, which every cluster running
    Volcano has (the scheduler creates them at start-up when missing), whether or not a snapshot lists them."""
    bodies = list(context.old or ())
    names = {str(_dict(b.get("metadata")).get("name", "")) for b in bodies}
    return bodies + [_implicit(name) for name in (ROOT_QUEUE, DEFAULT_QUEUE) if name not in names]


def _one_request(request: Request, context: Context, result: ApplyResult, found: Found) -> None:
    lister = result.lister
    if request.operation == DELETE:
        old_view = lister.get(request.name)
        denial = admit(DELETE, None, old_view, lister, context.flags, request.name)
        policy = admission_policy.evaluate(DELETE, None, request.old_body) if context.vap else None
        target = request.old_obj
        if target is not None:
            _report(found, target, policy, denial, "deleting")
        if denial is None and policy is None:
            lister.remove(request.name)
        return
    assert request.obj is not None and request.body is not None
    problems = _server_problems(request.obj, request.operation)
    if problems:
        if request.operation == UPDATE:
            # The per-object checks judge a create, after the mutating webhook; an update is not mutated, so a
            # field only that webhook repairs (weight 0) is refused here and said so.
            found.extend((request.obj, _on_update(f)) for f in problems if f.path == ("spec", "weight"))
        result.refused[request.name] = Denial("", "refused by the API server (see the schema findings)")
        return
    body = _as_admitted(request)
    view = QueueView.of(body)
    old_view = QueueView.of(request.old_body) if request.old_body is not None else None
    denial = admit(request.operation, view, old_view, lister, context.flags)
    policy = admission_policy.evaluate(request.operation, body, request.old_body) if context.vap else None
    if denial is not None and denial.rule_id in ("VC-H2", "VC-H3", "VC-H5") and view.parent in result.refused:
        denial = dataclasses.replace(denial, hint=f"{view.parent} is in the input but is refused itself: fix it first")
    _report(found, request.obj, policy, denial, "creating" if request.operation == CREATE else "updating")
    if denial is None and policy is None:
        lister.put(view)
        result.states[view.name] = view.state or "Open"
        result.created.add(view.name)
        written = str(_dict(request.body.get("status")).get("state") or "")
        if request.operation == CREATE and written not in ("", "Open"):
            result.written_states[view.name] = written
    else:
        result.refused[view.name] = denial or Denial(policy.rule_id if policy else "", "")


def _report(found: Found, obj: LoadedObject, policy: admission_policy.PolicyDenial | None, denial: Denial | None,
            verb: str) -> None:
    if policy is not None:
        found.append((obj, dataclasses.replace(
            error(policy.rule_id, policy.path, policy.message,
                  policy.hint or "the Helm chart's ValidatingAdmissionPolicy for Queues (custom.vap_enable)"),
            involves=policy.involves)))
    if denial is not None:
        found.append((obj, dataclasses.replace(error(denial.rule_id, denial.path, denial.message, denial.hint),
                                               involves=denial.involves)))


def _as_admitted(request: Request) -> dict[str, Any]:
    """The queue as the webhook receives it: CRD defaults, the mutating webhook (on create), and the status the
    API server leaves (none on create; the stored one on update)."""
    from kqctl.validate.schema import apply_schema_defaults

    assert request.obj is not None and request.body is not None
    body = apply_schema_defaults(request.body, request.obj.api_version, "Queue")
    if request.operation == CREATE:
        body = mutated_on_create(body)
        body.pop("status", None)
        if not isinstance(body.get("spec"), dict):
            body["spec"] = {}
    else:
        old_status = _dict(request.old_body).get("status")
        body.pop("status", None)
        if old_status is not None:
            body["status"] = copy.deepcopy(old_status)
    return body


def _server_problems(obj: LoadedObject, operation: str) -> list[Finding]:
    """Why the API server would not store the queue: its schema (status aside) and metadata, after the mutating
    webhook on create (weight 0 becomes 1); [] when it would."""
    from kqctl.validate.rules import run_metadata_rules
    from kqctl.validate.schema import apply_schema_defaults, validate_schema

    if obj.info is None:
        return [error("LOAD-NO-KIND", (), "not a Queue the API server knows")]
    body = apply_schema_defaults(obj.body, obj.api_version, "Queue")
    if operation == CREATE:
        body = apply_schema_defaults(mutated_on_create(body), obj.api_version, "Queue")
    return [f for f in validate_schema(body, obj.api_version, "Queue") + run_metadata_rules(obj.info, body)
            if f.severity is Severity.ERROR and f.path[:1] != ("status",)]


def _on_update(finding: Finding) -> Finding:
    return dataclasses.replace(
        finding, hint="an update: Volcano's mutating webhook, which sets weight 0 to 1, runs on create only")


def _parents_first(queues: Sequence[LoadedObject]) -> list[LoadedObject]:
    """Input order, except that a queue waits for its parent when the parent is in the input too."""
    by_name = {o.name: o for o in queues}
    done: set[int] = set()
    ordered: list[LoadedObject] = []
    for obj in queues:
        # The chain of not-yet-placed ancestors in the input, walked iteratively (a chain may be thousands of
        # queues long); a cycle stops the walk where it closes.
        chain: list[LoadedObject] = []
        names: set[str] = set()
        current: LoadedObject | None = obj
        while current is not None and id(current) not in done and (current.name or "") not in names:
            chain.append(current)
            names.add(current.name or "")
            above = by_name.get(_parent(current.body))
            current = above if above is not current else None
        for placed in reversed(chain):
            done.add(id(placed))
            ordered.append(placed)
    return ordered


def _children_first(names: list[str], bodies: Mapping[str, dict[str, Any]]) -> list[str]:
    depth = {name: _depth(name, bodies) for name in names}
    return sorted(names, key=lambda n: -depth[n])


def _depth(name: str, bodies: Mapping[str, dict[str, Any]]) -> int:
    depth, seen = 0, {name}
    parent = _parent(bodies.get(name, {}))
    while parent and parent != ROOT_QUEUE and parent not in seen:
        seen.add(parent)
        depth += 1
        parent = _parent(bodies.get(parent, {}))
    return depth


def _parent(body: Mapping[str, Any]) -> str:
    return str(_dict(body.get("spec")).get("parent") or "")


def _same_object(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """No change a kubectl apply would send: the same spec, labels and annotations."""
    def comparable(body: Mapping[str, Any]) -> tuple[Any, Any, Any]:
        meta = _dict(body.get("metadata"))
        return (body.get("spec") or {}, meta.get("labels") or {}, meta.get("annotations") or {})

    return comparable(old) == comparable(new)


def _implicit(name: str) -> dict[str, Any]:
    """The root and default queues as the scheduler creates them (``newDefaultAndRootQueue``), synced Open."""
    return {"apiVersion": f"{GROUP}/v1beta1", "kind": "Queue", "metadata": {"name": name},
            "spec": {"weight": 1, "reclaimable": name != ROOT_QUEUE}, "status": {"state": "Open"}}


# --- workloads and their queues -------------------------------------------------------------------------------


def workload_findings(objects: Sequence[LoadedObject], result: ApplyResult, closed: bool = False) -> Found:
    """The vcjob and PodGroup webhooks' queue checks, against the queues after the apply; and the
    scheduler's refusal of PodGroups in non-leaf queues under hierarchical capacity. ``closed``: the queues
    known are all the cluster has, so a queue missing from them is an error, not a warning."""
    found: Found = []
    hierarchical = _hierarchical_capacity(objects)
    for obj in objects:
        if _is(obj, BATCH_GROUP, "Job"):
            found.extend((obj, f) for f in _vcjob_findings(obj, result, closed))
        elif _is(obj, GROUP, "PodGroup"):
            found.extend((obj, f) for f in _podgroup_findings(obj, result, hierarchical, closed))
    found.extend(pod_group_findings(objects, closed))
    found.extend(reference_findings(objects, closed))
    return found


# Classes every cluster has (the API server creates them): never missing.
_SYSTEM_PRIORITY_CLASSES = frozenset({"system-cluster-critical", "system-node-critical"})
_MAYBE = "not in the inputs, so it may exist in the cluster (--closed makes this an error)"


def reference_findings(objects: Sequence[LoadedObject], closed: bool) -> Found:
    """What the simulation cannot stand on: VC-PRIORITYCLASS (a vcjob, its task templates or a PodGroup naming a
    PriorityClass the inputs do not hold) and VC-POD-NODE (a pod bound to a node the inputs do not hold): warnings
    (the object may be in the cluster), errors with --closed. (A node's negative quantity is the API server's
    VAL-NODE-1, for every scheduler.)"""
    classes = {o.name or "" for o in objects if o.kind == "PriorityClass" and o.info is not None}
    nodes = {o.name or "" for o in objects if o.kind == "Node" and o.info is not None}
    found: Found = []

    def missing(obj: LoadedObject, rule: str, path: FieldPath, text: str, hint: str) -> None:
        make = error if closed else warning
        found.append((obj, make(rule, path, text, hint if closed else f"{hint}; {_MAYBE}")))

    for obj in objects:
        spec = _dict(obj.body.get("spec"))
        if _is(obj, BATCH_GROUP, "Job") or _is(obj, GROUP, "PodGroup"):
            named: list[tuple[FieldPath, Any]] = [(("spec", "priorityClassName"), spec.get("priorityClassName"))]
            if _is(obj, BATCH_GROUP, "Job"):
                tasks = spec.get("tasks") if isinstance(spec.get("tasks"), list) else []
                for i, task in enumerate(tasks or []):
                    template_spec = _dict(_dict(_dict(task).get("template")).get("spec"))
                    named.append((("spec", "tasks", i, "template", "spec", "priorityClassName"),
                                  template_spec.get("priorityClassName")))
            for path, name in named:
                if isinstance(name, str) and name and name not in classes and name not in _SYSTEM_PRIORITY_CLASSES:
                    close = difflib.get_close_matches(name, sorted(classes), n=1)
                    missing(obj, "VC-PRIORITYCLASS", path,
                            f"PriorityClass {name!r} is not in the inputs: the API server's Priority admission "
                            f'refuses every pod that names it ("no PriorityClass with name {name} was found"), so '
                            "the job's pods are never created",
                            f"did you mean {close[0]}?" if close else "create the PriorityClass or name another")
        elif obj.kind == "Pod" and split_api_version(obj.api_version)[0] == "" and obj.info is not None:
            node = spec.get("nodeName")
            phase = _dict(obj.body.get("status")).get("phase")
            if isinstance(node, str) and node and node not in nodes and phase not in ("Succeeded", "Failed"):
                close = difflib.get_close_matches(node, sorted(nodes), n=1)
                missing(obj, "VC-POD-NODE", ("spec", "nodeName"),
                        f"the pod is bound to node {node!r}, which is not in the inputs: the simulation counts its "
                        "requests on no node", f"did you mean {close[0]}?" if close else "add the Node to the inputs")
    return found


def pod_group_findings(objects: Sequence[LoadedObject], closed: bool) -> Found:
    """VC-POD-PG: a pod of the ``volcano`` scheduler whose annotation scheduling.k8s.io/group-name names a PodGroup
    the input neither holds nor makes (a vcjob's). The podgroup controller makes no PodGroup for a pod that names
    one, and the scheduler's cache keeps the pod's job without a scheduling spec and skips it (``Snapshot``): the
    pod stays Pending. A warning (the PodGroup may exist in the cluster), an error with --closed."""
    known: set[tuple[str, str]] = set()
    for obj in objects:
        if _is(obj, GROUP, "PodGroup") and obj.name:
            known.add((obj.namespace or "default", obj.name))
        elif _is(obj, BATCH_GROUP, "Job") and obj.name:
            uid = obj.metadata.get("uid")
            known.add((obj.namespace or "default", obj.name))  # the job controller's PodGroup: <job> or <job>-<uid>
            if isinstance(uid, str) and uid:
                known.add((obj.namespace or "default", f"{obj.name}-{uid}"))
    found: Found = []
    for obj in objects:
        if not _volcano_pod(obj):
            continue
        group = _dict(obj.metadata.get("annotations")).get(GROUP_NAME_ANNOTATION)
        if not isinstance(group, str) or not group or (obj.namespace or "default", group) in known:
            continue
        text = (f"PodGroup {obj.namespace or 'default'}/{group} (annotation {GROUP_NAME_ANNOTATION}) is not in the "
                "inputs: the podgroup controller makes no PodGroup for a pod that names one, and Volcano's scheduler "
                "skips a job without its PodGroup, so the pod stays Pending")
        hint = "create the PodGroup, or remove the annotation to have the podgroup controller make one"
        maybe = "; not in the inputs, so it may exist in the cluster (--closed makes this an error)"
        path: FieldPath = ("metadata", "annotations", GROUP_NAME_ANNOTATION)
        found.append((obj, error("VC-POD-PG", path, text, hint) if closed
                      else warning("VC-POD-PG", path, text, hint + maybe)))
    return found


def _volcano_pod(obj: LoadedObject) -> bool:
    """A Pod of Volcano's scheduler (a pending one is Volcano's to schedule)."""
    if obj.kind != "Pod" or split_api_version(obj.api_version)[0] != "":
        return False
    spec = _dict(obj.body.get("spec"))
    return spec.get("schedulerName") == VOLCANO_SCHEDULER


def _vcjob_findings(obj: LoadedObject, result: ApplyResult, closed: bool) -> list[Finding]:
    """``validateJobCreate`` (admit_job.go): the tasks and the queue, one finding per part of its message."""
    spec = _dict(obj.body.get("spec"))
    tasks = [t for t in spec.get("tasks") or [] if isinstance(t, dict)] if isinstance(spec.get("tasks"), list) else []
    if not tasks:
        return [error("VC-JOB-TASKS", ("spec", "tasks"), "No task specified in job spec")]
    found = []
    names: set[str] = set()
    total = 0
    job = obj.name or ""
    for i, task in enumerate(tasks):
        name = str(task.get("name") or f"default{i}")
        replicas = _int(task.get("replicas"))
        minimum = task.get("minAvailable")
        if isinstance(minimum, int) and minimum > replicas:
            found.append(error("VC-JOB-TASKS", ("spec", "tasks", i, "minAvailable"),
                               f"'minAvailable' is greater than 'replicas' in task: {name}, job: {job}"))
        total += replicas
        found.extend(_template_findings(task, i))
        if name in names:
            found.append(error("VC-JOB-TASKS", ("spec", "tasks", i, "name"), f"duplicated task name {name}"))
            break
        names.add(name)
    minimum_job = _int(spec.get("minAvailable"))
    if total < minimum_job:
        found.append(error("VC-JOB-TASKS", ("spec", "minAvailable"),
                           "job 'minAvailable' should not be greater than total replicas in tasks"))
    queue = str(spec.get("queue") or DEFAULT_QUEUE)
    found.extend(_queue_checks(queue, result, ("spec", "queue"), job_kind=True, closed=closed))
    return found


def _template_findings(task: dict[str, Any], index: int) -> list[Finding]:
    """``validateTaskTemplate``: the task's pod template through Kubernetes' ValidatePodTemplate, in part (at least
    one container; every container and init container with an image: the schema already requires their names, and
    containers in a written ``spec``). Volcano's message is ``spec.task[i].`` before each of Kubernetes' field
    errors."""
    task_path: FieldPath = ("spec", "tasks", index)
    template = task.get("template")
    if not isinstance(template, dict) or not template:
        return [error("VC-JOB-TEMPLATE", (*task_path, "template"),
                      f"spec.task[{index}].template.spec.containers: Required value (the task has no template)",
                      "give the task a template with at least one container (name and image)")]
    spec_path: FieldPath = (*task_path, "template", "spec")
    spec = _dict(template.get("spec"))
    found = []
    containers = spec.get("containers")
    if containers == [] or (containers is None and "spec" not in template):
        found.append(error("VC-JOB-TEMPLATE", (*spec_path, "containers"),
                           f"spec.task[{index}].template.spec.containers: Required value",
                           "a pod template needs at least one container"))
    for field_name in ("initContainers", "containers"):
        listed = spec.get(field_name)
        for j, container in enumerate(listed if isinstance(listed, list) else []):
            if not isinstance(container, dict):
                continue  # the schema's finding
            image = container.get("image")
            if not isinstance(image, str) or not image.strip():
                found.append(error("VC-JOB-TEMPLATE", (*spec_path, field_name, j, "image"),
                                   f"spec.task[{index}].template.spec.{field_name}[{j}].image: Required value"))
    return found


def _podgroup_findings(obj: LoadedObject, result: ApplyResult, hierarchical: bool, closed: bool) -> list[Finding]:
    spec = _dict(obj.body.get("spec"))
    queue = str(spec.get("queue") or DEFAULT_QUEUE)
    found = _queue_checks(queue, result, ("spec", "queue"), job_kind=False, closed=closed)
    if hierarchical and result.lister.get(queue) is not None and result.lister.children(queue):
        found.append(warning("VC-TREE-NONLEAF", ("spec", "queue"),
                             f"The Queue <{queue}> of Job <{obj.namespace}/{obj.name}> is not leaf queue: the API "
                             "server accepts the PodGroup, but hierarchical capacity then refuses every enqueue and "
                             "allocation of every job in the cluster while it sits there",
                             "submit to a leaf queue"))
    return found


def _queue_checks(queue: str, result: ApplyResult, path: FieldPath, job_kind: bool, closed: bool) -> list[Finding]:
    found = result.lister.get(queue)
    if found is None:
        return [_missing_queue(queue, result, path, job_kind, closed)]
    problems = []
    state = result.states.get(queue, "")
    kind = "job" if job_kind else "PodGroup"
    rule = "VC-JOB-QUEUE-STATE" if job_kind else "VC-PG-QUEUE-STATE"
    message = (f"can only submit {kind} to queue with state `Open`, queue `{{}}` status is `{{}}`"
               + ("" if job_kind else "."))
    if state != "Open":
        problems.append(error(rule, path, message.format(queue, state),
                              "open the queue (vcctl queue operate --action open) or submit elsewhere"))
    elif queue in result.written_states:
        # Created from the input, the queue starts Open; read as a snapshot, its status is what the webhook
        # (and the scheduler: simulate's queue-closed) sees, so say so without failing a plain apply.
        problems.append(warning(rule, path, message.format(queue, result.written_states[queue]),
                                f"status.state {result.written_states[queue]} of queue {queue} in the input: "
                                "dropped if the queue is created, but if the input is the cluster's state the "
                                "webhook refuses this; open the queue or submit elsewhere"))
    if job_kind and queue == ROOT_QUEUE:
        problems.append(error("VC-JOB-ROOT", path, "can not submit job to root queue"))
    elif job_kind and result.lister.children(queue):
        problems.append(error("VC-JOB-LEAF", path, f"can only submit job to leaf queue, queue `{queue}` has "
                              f"{len(result.lister.children(queue))} child queues"))
    return problems


def _missing_queue(queue: str, result: ApplyResult, path: FieldPath, job_kind: bool, closed: bool) -> Finding:
    """The webhook's "unable to find queue". A queue of the input that was refused is missing for sure (an
    error); one the input does not hold may exist in the cluster (a warning), unless the input is the whole
    world (--closed, or --against's state). A close name among the known queues is offered: typos are the
    usual cause."""
    rule = "VC-JOB-QUEUE" if job_kind else "VC-PG-QUEUE"
    text = ("unable to find job queue: " if job_kind else "unable to find queue: ") + not_found(queue)
    close = similar_queues(queue, result.lister.queues)
    mean = f"did you mean {' or '.join(close)}?" if close else None
    if queue in result.refused:
        hint = f"queue {queue} is in the input but is refused itself"
        return error(rule, path, text, hint)
    if closed:
        return error(rule, path, text, mean)
    maybe = "not in the inputs, so it may exist in the cluster (--closed makes this an error)"
    return warning(rule, path, text, f"{mean} Else: {maybe}" if mean else maybe)


def similar_queues(name: str, known: Iterable[str]) -> list[str]:
    """Known queue names close to ``name`` (a likely typo), best first."""
    return difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.75)


def _hierarchical_capacity(objects: Iterable[LoadedObject]) -> bool:
    conf = configured(objects)
    return conf is not None and conf.capacity_hierarchy


def configured(objects: Iterable[LoadedObject]) -> Any:
    """The scheduler configuration of --scheduler-conf or in the input (ConfigMap volcano-scheduler-configmap),
    or None (also when Volcano could not load it)."""
    from kqctl.errors import InputError
    from kqctl.volcano.api.config import parse_conf
    from kqctl.volcano.kinds import SCHEDULER_CONF_KEY
    from kqctl.volcano.load import conf_from_text

    objects = list(objects)
    for obj in objects:
        if obj.info is SCHEDULER_CONF_FILE:
            try:
                return parse_conf(obj.body, obj.origin.file)
            except ValueError:
                return None
    for obj in objects:
        if obj.kind == "ConfigMap" and obj.name == SCHEDULER_CONFIGMAP and split_api_version(obj.api_version)[0] == "":
            text = _dict(obj.body.get("data")).get(SCHEDULER_CONF_KEY)
            if isinstance(text, str):
                try:
                    return conf_from_text(text, "", obj.origin.file, 1)
                except InputError:
                    return None
    return None


def _is(obj: LoadedObject, group: str, kind: str) -> bool:
    return obj.info is not None and obj.info.group == group and obj.info.kind == kind


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

