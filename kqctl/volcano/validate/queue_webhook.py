"""Volcano's validating webhook for Queues (``validatequeue.volcano.sh``), reimplemented.

Source: ``pkg/webhooks/admission/queues/validate/validate_queue.go`` (``AdmitQueues``) at the pinned commit.
Rules VC-Q2..VC-Q6 judge one queue; VC-H1..VC-H7 judge it against the queues that exist (the webhook's
lister); VC-D1..VC-D3 judge a deletion; VC-ROOT is the root queue protection. Messages are Volcano's own
text. Where Volcano iterates a Go map (resource names) kqctl goes in name order, cpu and memory first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kqctl.k8s.pods import aggregate
from kqctl.k8s.quantity import Quantity, QuantityError, parse_quantity
from kqctl.origin import FieldPath
from kqctl.volcano.api.models import GO_FLOAT, HIERARCHY_ANNOTATION, HIERARCHY_WEIGHTS_ANNOTATION, ROOT_QUEUE
from kqctl.volcano.api.resource import CPU, MEMORY, Resource, format_vector, less_partly, resource_list

CREATE, UPDATE, DELETE = "CREATE", "UPDATE", "DELETE"
_INTEGER_RESOURCES = frozenset({"pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
                                "configmaps", "persistentvolumeclaims", "services.nodeports",
                                "services.loadbalancers"})
_GO_FLOAT = GO_FLOAT  # strconv.ParseFloat's decimal syntax: what a hierarchy weight may be


@dataclass(frozen=True)
class WebhookFlags:
    """The webhook-manager flags that change these rules (cmd/webhook-manager/app/options)."""

    max_queue_depth: int = 5
    allocated_pods_check: bool = False  # --enable-queue-allocated-pods-check
    root_protection: bool = True  # --enable-root-queue-protection

    FLAG_NAMES = ("max-queue-depth", "enable-queue-allocated-pods-check", "enable-root-queue-protection")


@dataclass(frozen=True)
class Denial:
    """The webhook's refusal: its message, the rule behind it and the field it is about."""

    rule_id: str
    message: str
    path: FieldPath = ()
    hint: str | None = None
    # The other fields the message weighs (a Queue's capability for "deserved must be <= capability").
    involves: tuple[FieldPath, ...] = ()


@dataclass(frozen=True)
class QueueView:
    """What the webhook reads of a queue: name, parent, resource lists (as written), allocated pods, annotations."""

    name: str
    parent: str
    capability: Mapping[str, Any] = field(hash=False)
    deserved: Mapping[str, Any] = field(hash=False)
    guarantee: Mapping[str, Any] = field(hash=False)
    state: str = ""
    allocated_pods: int = 0
    annotations: Mapping[str, str] = field(default_factory=dict, hash=False)

    @classmethod
    def of(cls, body: Mapping[str, Any]) -> QueueView:
        meta = _dict(body.get("metadata"))
        spec = _dict(body.get("spec"))
        status = _dict(body.get("status"))
        allocated = _quantities(_dict(status.get("allocated")))
        pods = allocated.get("pods")
        notes = {str(k): str(v) for k, v in _dict(meta.get("annotations")).items() if isinstance(v, str)}
        return cls(str(meta.get("name", "")), str(spec.get("parent") or ""), _dict(spec.get("capability")),
                   _dict(spec.get("deserved")), _dict(_dict(spec.get("guarantee")).get("resource")),
                   str(status.get("state") or ""), pods.value_ceil() if pods is not None else 0, notes)

    def vector(self, which: str) -> Resource:
        """``api.NewResource`` of capability, deserved or guarantee (bad quantities left to the schema)."""
        raw = {"capability": self.capability, "deserved": self.deserved, "guarantee": self.guarantee}[which]
        try:
            return Resource.of(resource_list({k: v for k, v in raw.items() if _parses(v)}))
        except ValueError:
            return Resource()


class Lister:
    """The queues the webhook's informer holds, by name, with the parent index ``GetQueuesByParent`` uses."""

    def __init__(self, queues: Iterable[QueueView] = ()) -> None:
        self.queues: dict[str, QueueView] = {}
        for queue in queues:
            self.put(queue)

    def put(self, queue: QueueView) -> None:
        self.queues[queue.name] = queue

    def remove(self, name: str) -> None:
        self.queues.pop(name, None)

    def get(self, name: str) -> QueueView | None:
        return self.queues.get(name)

    def children(self, parent: str) -> list[QueueView]:
        return [q for q in self.queues.values() if q.parent == parent]


def not_found(name: str) -> str:
    """The lister's NotFound error text."""
    return f'queue.scheduling.volcano.sh "{name}" not found'


def admit(operation: str, queue: QueueView | None, old: QueueView | None, lister: Lister, flags: WebhookFlags,
          name: str = "") -> Denial | None:
    """``AdmitQueues``: None when the request is allowed, else the first refusal."""
    if operation == DELETE:
        return validate_deleting(name or (old.name if old else ""), lister, flags)
    assert queue is not None
    denial = validate_queue(queue, lister)
    if denial is not None:
        return denial
    if operation == CREATE or (old is not None and old.parent != queue.parent):
        denial = validate_hierarchy(queue, lister, flags)
        if denial is not None:
            return denial
    if flags.root_protection and operation == UPDATE and queue.name == ROOT_QUEUE and old is not None:
        if _resources_changed(queue, old):
            return Denial("VC-ROOT", "root queue's resource attributes (capability, deserved, guarantee) cannot be "
                          "modified", ("spec",))
    if _needs_resource_checks(queue, old, operation):
        return validate_hierarchy_resources(queue, lister)
    return None


# --- VC-Q2..VC-Q6: one queue --------------------------------------------------------------------------------


def validate_queue(queue: QueueView, lister: Lister) -> Denial | None:
    """``validateQueue``: every single-queue error, aggregated into one message as Kubernetes does."""
    errors: list[tuple[str, str, FieldPath]] = []
    errors.extend(_quantity_errors(queue))
    errors.extend(_state_errors(queue.state))
    errors.extend(_hierarchy_annotation_errors(queue, lister))
    if not errors:
        return None
    rule_id, _, path = errors[0]
    # Every field the aggregated message is about: the other errors' and the ones each weighs its own against.
    involves = [p for error_rule, _, error_path in errors for p in (error_path, *_weighed(error_rule, error_path))]
    return Denial(rule_id, aggregate([message for _, message, _ in errors]), path,
                  involves=tuple(dict.fromkeys(p for p in involves if p != path)))


def _weighed(rule_id: str, path: FieldPath) -> tuple[FieldPath, ...]:
    """The field a VC-Q3 or VC-Q4 error at ``path`` compares that one with (the same resource's)."""
    name = path[-1] if path else ""
    if rule_id == "VC-Q4":
        return (("spec", "capability", name),)
    if rule_id == "VC-Q3":
        return (("spec", "deserved", name),) if path[:3] == ("spec", "guarantee", "resource") else \
            (("spec", "guarantee", "resource", name),)
    return ()


def _quantity_errors(queue: QueueView) -> list[tuple[str, str, FieldPath]]:
    """``validateResourceQuantityOfQueue``: guarantee <= deserved <= capability, none negative."""
    base = "requestBody.spec"
    errors: list[tuple[str, str, FieldPath]] = []
    for label, values, path in (("capability", queue.capability, ("spec", "capability")),
                                ("deserved", queue.deserved, ("spec", "deserved"))):
        for name in _ordered(values):
            errors.extend(_value_errors(name, values[name], f"{base}.{label}.{name}", (*path, name)))
    for name in _ordered(queue.guarantee):
        guarantee = _quantity(queue.guarantee[name])
        errors.extend(_value_errors(name, queue.guarantee[name], f"{base}.guarantee.resource.{name}",
                                    ("spec", "guarantee", "resource", name)))
        if guarantee is None:
            continue
        deserved_raw = queue.deserved.get(name)
        where = f"{base}.deserved.{name}"
        if deserved_raw is None:
            errors.append(("VC-Q3", f'{where}: Invalid value: "<nil>": deserved[{name}] must be >= guarantee[{name}]='
                           f"{guarantee}", ("spec", "guarantee", "resource", name)))
            continue
        deserved = _quantity(deserved_raw)
        if deserved is not None and deserved < guarantee:
            errors.append(("VC-Q3", f'{where}: Invalid value: "{deserved}": deserved[{name}]={deserved} must be >= '
                           f"guarantee[{name}]={guarantee}", ("spec", "deserved", name)))
    if queue.deserved and queue.capability:
        for name in _ordered(queue.deserved):
            if name not in queue.capability:
                continue  # a resource absent from capability is unlimited
            deserved, capability = _quantity(queue.deserved[name]), _quantity(queue.capability[name])
            if deserved is not None and capability is not None and deserved > capability:
                errors.append(("VC-Q4", f'{base}.deserved.{name}: Invalid value: "{deserved}": deserved[{name}]='
                               f"{deserved} must be <= capability[{name}]={capability}", ("spec", "deserved", name)))
    return errors


def _value_errors(name: str, raw: Any, where: str, path: FieldPath) -> list[tuple[str, str, FieldPath]]:
    """Kubernetes' ``ValidateResourceQuantityValue``: not negative; whole numbers for integer resources."""
    quantity = _quantity(raw)
    if quantity is None:
        return []
    errors = []
    if quantity < 0:
        errors.append(("VC-Q2", f'{where}: Invalid value: "{quantity}": must be greater than or equal to 0', path))
    if _integer_resource(name) and quantity.milli_value() % 1000 != 0:
        errors.append(("VC-Q2", f'{where}: Invalid value: "{quantity}": must be an integer', path))
    return errors


def _integer_resource(name: str) -> bool:
    from kqctl.volcano.api.resource import _is_extended

    return name in _INTEGER_RESOURCES or _is_extended(name)


def _state_errors(state: str) -> list[tuple[str, str, FieldPath]]:
    """``validateStateOfQueue``: a state the queue is given must be Open or Closed (path as Volcano words it)."""
    if not state or state in ("Open", "Closed"):
        return []
    return [("VC-Q5", f'requestBody.spec.state: Invalid value: "{state}": queue state must be in [Open Closed]',
             ("status", "state"))]


def _hierarchy_annotation_errors(queue: QueueView, lister: Lister) -> list[tuple[str, str, FieldPath]]:
    """``validateHierarchicalAttributes``: the legacy volcano.sh/hierarchy annotations (first problem only)."""
    hierarchy = queue.annotations.get(HIERARCHY_ANNOTATION, "")
    weights = queue.annotations.get(HIERARCHY_WEIGHTS_ANNOTATION, "")
    if not hierarchy and not weights:
        return []
    where = "requestBody.metadata.annotations"
    path: FieldPath = ("metadata", "annotations", HIERARCHY_ANNOTATION)
    paths, values = hierarchy.split("/"), weights.split("/")
    if len(paths) != len(values):
        return [("VC-Q6", f'{where}: Invalid value: "{hierarchy}": {HIERARCHY_ANNOTATION} must have the same length '
                 f"with {HIERARCHY_WEIGHTS_ANNOTATION}", path)]
    for weight in values:
        if not _GO_FLOAT.match(weight):
            return [("VC-Q6", f'{where}: Invalid value: "{weights}": {weight} in the {weights} is invalid number: '
                     f'strconv.ParseFloat: parsing "{weight}": invalid syntax', path)]
        if not float(weight) > 0:
            return [("VC-Q6", f'{where}: Invalid value: "{weights}": {weight} in the {weights} must be larger than 0',
                     path)]
    for other in lister.queues.values():
        theirs = other.annotations.get(HIERARCHY_ANNOTATION, "")
        if theirs and other.name != queue.name and theirs.startswith(hierarchy + "/"):
            return [("VC-Q6", f'{where}: Invalid value: "{hierarchy}": {hierarchy} is not allowed to be in the sub '
                     f"path of {theirs} of queue {other.name}", path)]
    return []


# --- VC-H1..VC-H3: the parent ------------------------------------------------------------------------------------


def validate_hierarchy(queue: QueueView, lister: Lister, flags: WebhookFlags) -> Denial | None:
    """``validateHierarchicalQueue``: not its own parent, within the depth limit, a parent that exists and, if it
    has no child yet, runs no pods."""
    if queue.parent in ("", ROOT_QUEUE):
        return None
    path: FieldPath = ("spec", "parent")
    if queue.parent == queue.name:
        return Denial("VC-H1", f"queue {queue.name} cannot use itself as parent", path)
    denial = _depth(queue, lister, flags)
    if denial is not None:
        return denial
    parent = lister.get(queue.parent)
    if parent is None:
        return Denial("VC-H3", f"failed to get parent queue of queue {queue.name}: {not_found(queue.parent)}", path)
    if not lister.children(parent.name) and parent.allocated_pods:
        return Denial("VC-H3", f"queue {parent.name} cannot be the parent queue of queue {queue.name} because it has "
                      f"allocated Pods: {parent.allocated_pods}", path,
                      "a queue that runs pods can only get children once it has at least one child; move its work "
                      "to a leaf queue first")
    return None


def _depth(queue: QueueView, lister: Lister, flags: WebhookFlags) -> Denial | None:
    """``validateQueueDepth``: the queue counts 1, each ancestor below root 1 more (a cycle ends at the limit)."""
    depth, parent = 1, queue.parent
    path: FieldPath = ("spec", "parent")
    while parent not in ("", ROOT_QUEUE):
        depth += 1
        if depth > flags.max_queue_depth:
            return Denial("VC-H2", f"queue {queue.name} exceeds the maximum allowed depth of {flags.max_queue_depth}",
                          path)
        found = lister.get(parent)
        if found is None:
            return Denial("VC-H2", f"failed to get parent queue {parent} of queue {queue.name}: {not_found(parent)}",
                          path)
        parent = found.parent
    return None


# --- VC-H4..VC-H7: resources against the tree --------------------------------------------------------------------


def _needs_resource_checks(queue: QueueView, old: QueueView | None, operation: str) -> bool:
    """``needsValidateHierarchicalQueue``: on create, or an update of the parent or the resource lists."""
    if queue.name == ROOT_QUEUE:
        return False
    if operation == CREATE:
        return True
    if old is None:
        return False
    return old.parent != queue.parent or _resources_changed(queue, old)


def _resources_changed(queue: QueueView, old: QueueView) -> bool:
    return any(not _same_list(getattr(queue, which), getattr(old, which))
               for which in ("capability", "deserved", "guarantee"))


def _same_list(left: Mapping[str, Any], right: Mapping[str, Any]) -> bool:
    """Semantic equality of two ResourceLists (quantities compared by value)."""
    if set(left) != set(right):
        return False
    return all(_quantity(left[k]) == _quantity(right[k]) for k in left)


def validate_hierarchy_resources(queue: QueueView, lister: Lister) -> Denial | None:
    """``validateHierarchicalQueueResources``: capability within ancestors (H4), siblings' sums within the parent
    (H5); with children, capability above theirs (H6) and their sums within its own (H7)."""
    if queue.parent not in ("", ROOT_QUEUE):
        parent = lister.get(queue.parent)
        if parent is None:
            return Denial("VC-H5", f"parent queue {queue.parent} not found: {not_found(queue.parent)}",
                          ("spec", "parent"))
        denial = _against_ancestors(queue, lister) or _siblings_sum(queue, parent, lister)
        if denial is not None:
            return denial
    children = lister.children(queue.name)
    if children:
        return _children_constraints(queue, children, lister)
    return None


def _against_ancestors(queue: QueueView, lister: Lister) -> Denial | None:
    """VC-H4 ``validateChildAgainstAncestor``: each capability the queue sets is at most the nearest ancestor's."""
    if not queue.capability:
        return None
    own = queue.vector("capability")
    for name in own.names():
        limit = _nearest_ancestor_capability(queue, name, lister)
        if limit is not None and own.get(name) > limit:
            return Denial("VC-H4", f"queue {queue.name} capability[{name}]={format_typed(name, own.get(name))} exceeds "
                          f"its ancestor's capability={format_typed(name, limit)}", ("spec", "capability", name))
    return None


def _nearest_ancestor_capability(queue: QueueView, name: str, lister: Lister) -> int | None:
    parent, seen = queue.parent, set()
    while parent not in ("", ROOT_QUEUE) and parent not in seen:
        seen.add(parent)
        found = lister.get(parent)
        if found is None:
            return None
        if found.capability:
            value = found.vector("capability").get(name)
            if value > 0:
                return int(value)
        parent = found.parent
    return None


def _siblings_sum(queue: QueueView, parent: QueueView, lister: Lister) -> Denial | None:
    """VC-H5 ``validateSiblingsSum``: running sums of the siblings' (then the queue's own) guarantee and deserved
    against the parent's, missing parent dimensions counting as 0."""
    limits = {"guarantee": parent.vector("guarantee"), "deserved": parent.vector("deserved")}
    totals = {"guarantee": Resource(), "deserved": Resource()}
    for sibling in [*(s for s in lister.children(parent.name) if s.name != queue.name), queue]:
        for which in ("guarantee", "deserved"):
            totals[which].add(sibling.vector(which))
            if less_partly(limits[which], totals[which], "zero"):
                path: FieldPath = ("spec", "guarantee", "resource") if which == "guarantee" else ("spec", "deserved")
                return Denial("VC-H5", f"parent queue {parent.name} validation failed: sum of children's {which} "
                              f"({format_vector(totals[which])}) exceeds parent's {which} limit "
                              f"({format_vector(limits[which])})", path,
                              f"under a parent other than root a child may only set {which} for resources the parent "
                              f"also sets in {which}, within what the parent has left")
    return None


def _children_constraints(queue: QueueView, children: list[QueueView], lister: Lister) -> Denial | None:
    """VC-H6 and VC-H7 ``validateChildrenConstraints``."""
    if queue.capability:
        own = queue.vector("capability")
        for name in own.names():
            largest = max((_subtree_max_capability(child, name, lister, set()) for child in children), default=0)
            if own.get(name) < largest:
                return Denial("VC-H6", f"queue {queue.name} capability[{name}]={format_typed(name, own.get(name))} is "
                              f"smaller than its descendants' max capability={format_typed(name, largest)}",
                              ("spec", "capability", name))
    limits = {"guarantee": queue.vector("guarantee"), "deserved": queue.vector("deserved")}
    totals = {"guarantee": Resource(), "deserved": Resource()}
    for child in children:
        for which in ("guarantee", "deserved"):
            totals[which].add(child.vector(which))
            if less_partly(limits[which], totals[which], "zero"):
                path: FieldPath = ("spec", "guarantee", "resource") if which == "guarantee" else ("spec", "deserved")
                return Denial("VC-H7", f"queue {queue.name} validation failed: sum of children's {which} "
                              f"({format_vector(totals[which])}) exceeds parent's {which} limit "
                              f"({format_vector(limits[which])})", path)
    return None


def _subtree_max_capability(queue: QueueView, name: str, lister: Lister, seen: set[str]) -> int:
    """``findSubtreeMaxCapability``: the queue's own capability when set, else the largest below it (walked
    without recursion: a subtree may be deep)."""
    largest = 0
    stack = [queue]
    while stack:
        current = stack.pop()
        if current.capability:
            value = current.vector("capability").get(name)
            if value > 0:
                largest = max(largest, int(value))
                continue
        if current.name in seen:
            continue
        seen.add(current.name)
        stack.extend(lister.children(current.name))
    return largest


def format_typed(name: str, value: Any) -> str:
    """``formatResourceWithType``: cpu as a quantity, memory as a binary quantity, scalars with two decimals."""
    if name == CPU:
        return Quantity.from_milli(int(value)).canonical()
    if name == MEMORY:
        return Quantity.from_int(int(value), "BinarySI").canonical()
    return f"{value:.2f}"


# --- VC-D1..VC-D3: deletion --------------------------------------------------------------------------------------


def validate_deleting(name: str, lister: Lister, flags: WebhookFlags) -> Denial | None:
    """``validateQueueDeleting``: not default or root, no allocated pods (with the flag), no children."""
    if name in ("default", ROOT_QUEUE):
        return Denial("VC-D1", f"`{name}` queue can not be deleted")
    queue = lister.get(name)
    if queue is None:
        return Denial("VC-D3", not_found(name))
    if flags.allocated_pods_check and queue.allocated_pods:
        return Denial("VC-D2", f"queue {name} cannot be deleted because it has allocated Pods: {queue.allocated_pods}")
    children = [child.name for child in lister.children(name)]
    if children:
        return Denial("VC-D3", f"queue {name} can not be deleted because it has {len(children)} child queues: "
                      f"{', '.join(children)}")
    return None


# --- helpers -----------------------------------------------------------------------------------------------------


def _ordered(values: Mapping[str, Any]) -> list[str]:
    return sorted(values, key=lambda n: (n not in (CPU, MEMORY), n != CPU, n))


def _quantity(raw: Any) -> Quantity | None:
    try:
        return parse_quantity(raw.strip() if isinstance(raw, str) else raw)
    except (QuantityError, TypeError, ValueError):
        return None


def _parses(raw: Any) -> bool:
    return _quantity(raw) is not None


def _quantities(raw: Mapping[str, Any]) -> dict[str, Quantity]:
    return {str(k): q for k, v in raw.items() if (q := _quantity(v)) is not None}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
