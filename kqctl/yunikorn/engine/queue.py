"""The queue tree as YuniKorn builds it (yunikorn-core ``objects/queue.go``, ``template/template.go``,
``partition.go``): configured queues from ``queues.yaml``, dynamic queues created by placement, child
templates, property inheritance, and the state allocation changes (allocated, pending, running apps).

Names and paths are lower-cased, as YuniKorn stores them. A queue's settings come from its effective
property map (§5); guaranteed and max keep YuniKorn's nil/zero rules (R5): a map with no value above zero
is no limit at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import ChildTemplateConf, PartitionConf, QueueConf
from kqctl.yunikorn.api.names import DOT, QUEUE_NAME_MESSAGE, RECOVERY_QUEUE, ROOT, is_queue_name_valid
from kqctl.yunikorn.api.resources import QuantityError, Resource
from kqctl.yunikorn.engine import acl as acls
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine.properties import QueueSettings

MIN_PRIORITY = props.MIN_INT32
MAX_PRIORITY = props.MAX_INT32


@dataclass(frozen=True)
class Template:
    """A parent's ``childtemplate`` as applied to the dynamic leaves created below it (§9.4)."""

    max_applications: int
    properties: dict[str, str]
    max: Resource | None
    guaranteed: Resource | None


class QueueCreationError(Exception):
    """What YuniKorn fails with when it builds the queues of a config its validator accepted."""


@dataclass(eq=False)
class Queue:
    """One queue of a partition, with the state the allocation cycle changes."""

    name: str
    path: str
    parent: Queue | None
    leaf: bool
    managed: bool
    conf: QueueConf | None = None  # None for dynamic queues
    max: Resource | None = None
    guaranteed: Resource | None = None
    max_running_apps: int = 0
    own_properties: dict[str, str] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)
    settings: QueueSettings = field(default_factory=QueueSettings)
    submit_acl: acls.ACL = field(default_factory=acls.ACL)
    admin_acl: acls.ACL = field(default_factory=acls.ACL)
    template: Template | None = None
    template_from: str = ""  # the queue whose childtemplate this is (its own path, or an ancestor's)
    children: dict[str, Queue] = field(default_factory=dict)
    # state
    allocated: Resource = field(default_factory=dict)
    pending: Resource = field(default_factory=dict)
    preempting: Resource = field(default_factory=dict)
    running_apps: int = 0
    # Accepted applications holding placeholders (a gang reserving, YK-GANG-2): they count against maxapplications
    # before they run (the core's ``allocatingAcceptedApps``)
    allocating_accepted: set[str] = field(default_factory=set)
    raw_priority: int = MIN_PRIORITY  # P3 before offset and fence

    def __repr__(self) -> str:
        return f"Queue({self.path})"

    @property
    def is_root(self) -> bool:
        return self.parent is None

    @property
    def depth(self) -> int:
        return self.path.count(DOT)

    def ancestors(self) -> list[Queue]:
        """This queue's parents, nearest first."""
        out: list[Queue] = []
        queue = self.parent
        while queue is not None:
            out.append(queue)
            queue = queue.parent
        return out

    def path_from_root(self) -> list[Queue]:
        """root, ..., this queue."""
        return [*reversed(self.ancestors()), self]

    def walk(self) -> list[Queue]:
        """This queue and every queue below it, depth first, children by name."""
        out = [self]
        for name in sorted(self.children):
            out.extend(self.children[name].walk())
        return out

    def reported_priority(self) -> int:
        """P4 ``priorityValueByPolicy``: what the queue's siblings see."""
        return reported_priority(self.raw_priority, self.settings.priority_policy, self.settings.priority_offset)

    def can_submit(self, user: str, groups: tuple[str, ...]) -> bool:
        """``CheckSubmitAccess``: submit or admin ACL here or on any ancestor; never the recovery queue."""
        if self.path == RECOVERY_QUEUE:
            return False
        queue: Queue | None = self
        while queue is not None:
            if queue.submit_acl.allows(user, groups) or queue.admin_acl.allows(user, groups):
                return True
            queue = queue.parent
        return False


def reported_priority(raw: int, policy: str, offset: int) -> int:
    """P4: MIN stays MIN (no pending asks, even fenced); fence reports the offset; else raw + offset clamped."""
    if raw == MIN_PRIORITY:
        return raw
    if policy == props.FENCE:
        return offset
    return max(MIN_PRIORITY, min(MAX_PRIORITY, raw + offset))


# --- building ---------------------------------------------------------------------------------------------


def set_resources(queue: Queue, guaranteed: Resource | None, maximum: Resource | None) -> None:
    """``setResources`` (R5): a map is taken only when some value is above zero and none below; otherwise an
    existing limit is cleared."""
    if res.strictly_greater_than_zero(maximum):
        queue.max = dict(maximum or {})
    elif queue.max is not None:
        queue.max = None
    if res.strictly_greater_than_zero(guaranteed):
        queue.guaranteed = dict(guaranteed or {})
    elif queue.guaranteed is not None:
        queue.guaranteed = None


def template_from_conf(conf: ChildTemplateConf) -> Template | None:
    """``template.FromConf``: None when empty (no count, and no map entry with both key and value)."""
    def filled(values: dict[str, str] | None) -> bool:
        return any(k != "" and v != "" for k, v in (values or {}).items())

    resources = conf.resources
    properties = conf.properties.values if conf.properties else None
    guaranteed = resources.guaranteed.values if resources.guaranteed else None
    maximum = resources.max.values if resources.max else None
    if conf.maxapplications == 0 and not filled(properties) and not filled(guaranteed) and not filled(maximum):
        return None
    max_resource = res.resource_from_conf(maximum)  # may raise QuantityError (V20)
    guaranteed_resource = res.resource_from_conf(guaranteed)
    return Template(
        conf.maxapplications,
        {k: v for k, v in (properties or {}).items() if k != "" and v != ""},
        dict(max_resource) if res.strictly_greater_than_zero(max_resource) else None,
        dict(guaranteed_resource) if res.strictly_greater_than_zero(guaranteed_resource) else None,
    )


def new_configured_queue(conf: QueueConf, parent: Queue | None) -> Queue:
    """``NewConfiguredQueue``: ACLs, leaf or parent, template, resources and max apps, properties merged
    with the parent's; raises :class:`QueueCreationError` with YuniKorn's text."""
    name = conf.name.lower()
    path = name if parent is None else f"{parent.path}{DOT}{name}"
    queue = Queue(name, path, parent, leaf=not conf.is_parent, managed=True, conf=conf,
                  max_running_apps=conf.maxapplications)
    try:
        queue.submit_acl = acls.parse(conf.submitacl)
        queue.admin_acl = acls.parse(conf.adminacl)
        if not queue.leaf:
            queue.template = template_from_conf(conf.childtemplate)
            queue.template_from = path if queue.template else ""
        if name != ROOT:
            maximum = res.resource_from_conf(conf.resources.max.values if conf.resources.max else None)
            guaranteed = res.resource_from_conf(conf.resources.guaranteed.values if conf.resources.guaranteed
                                                else None)
            set_resources(queue, guaranteed, maximum)
    except (acls.ACLError, QuantityError) as exc:
        raise QueueCreationError(f"configured queue creation failed: \n{exc}") from None
    queue.own_properties = dict(conf.properties.values) if conf.properties else {}
    queue.properties = props.merge_parent(parent.properties, queue.own_properties) if parent else \
        dict(queue.own_properties)
    queue.settings = props.resolve(queue.properties, queue.leaf)
    if parent is not None:
        add_child(parent, queue)
    return queue


def new_dynamic_queue(name: str, leaf: bool, parent: Queue) -> Queue:
    """``NewDynamicQueue``: created by placement; no inherited properties, only the nearest template."""
    if not is_queue_name_valid(name):
        raise QueueCreationError(QUEUE_NAME_MESSAGE)
    lowered = name.lower()
    queue = Queue(lowered, f"{parent.path}{DOT}{lowered}", parent, leaf=leaf, managed=False)
    add_child(parent, queue)
    queue.settings = props.resolve(queue.properties, queue.leaf)
    return queue


def add_child(parent: Queue, child: Queue) -> None:
    """``addChildQueue``: a new dynamic leaf takes the parent's template; a new parent without a template of
    its own inherits the parent's."""
    if parent.leaf:
        raise QueueCreationError(f"cannot add a child queue to a leaf queue: {parent.path}")
    parent.children[child.name] = child
    if child.leaf:
        if not child.managed and parent.template is not None:
            apply_template(child, parent.template, parent.template_from)
        return
    if child.template is None:
        child.template = parent.template
        child.template_from = parent.template_from


def apply_template(queue: Queue, template: Template, source: str) -> None:
    queue.max_running_apps = template.max_applications
    queue.properties = dict(template.properties)
    queue.own_properties = {}
    queue.guaranteed = dict(template.guaranteed) if template.guaranteed else None
    queue.max = dict(template.max) if template.max else None
    queue.template_from = source


@dataclass
class QueueTree:
    """A partition's queues by path (lower-cased)."""

    root: Queue
    by_path: dict[str, Queue] = field(default_factory=dict)

    def get(self, path: str) -> Queue | None:
        """``getQueueInternal``: case-insensitive, walking from root."""
        parts = path.lower().split(DOT)
        if not parts or parts[0] != ROOT:
            return None
        queue: Queue | None = self.root
        for part in parts[1:]:
            queue = queue.children.get(part) if queue is not None else None
            if queue is None:
                return None
        return queue

    def register(self, queue: Queue) -> None:
        self.by_path[queue.path] = queue

    def queues(self) -> list[Queue]:
        return self.root.walk()

    def leaves(self) -> list[Queue]:
        return [q for q in self.queues() if q.leaf]

    def create_dynamic(self, path: str) -> Queue:
        """``createQueue``: the missing queues of ``path`` below its deepest existing one, the last a leaf."""
        lowered = path.lower()
        if not lowered.startswith(ROOT) or DOT not in lowered:
            raise QueueCreationError(f"illegal queue name passed in: {path}")
        missing: list[str] = []
        current = lowered
        queue = self.get(current)
        while queue is None:
            missing.append(current[current.rindex(DOT) + 1:])
            current = current[:current.rindex(DOT)]
            queue = self.get(current)
        if queue.leaf:
            raise QueueCreationError(f"creation of queue {path} failed parent is already a leaf: {current}")
        for i in range(len(missing) - 1, -1, -1):
            queue = new_dynamic_queue(missing[i], i == 0, queue)
            self.register(queue)
        return queue


ROOT_NAME_ERROR = "partition cannot be created without root queue"


def build_tree(partition: PartitionConf, exact_root: bool = True) -> QueueTree:
    """``initialPartitionFromConfig``: the root, then every queue below it (``NewConfiguredQueue`` each).

    The validator takes any case of ``root`` (V3) but the partition is only created when the top queue is
    spelled exactly ``root``; ``exact_root=False`` skips that check to build the queues alone."""
    if not partition.queues:
        raise QueueCreationError(ROOT_NAME_ERROR)
    if exact_root and partition.queues[0].name != ROOT:
        raise QueueCreationError(ROOT_NAME_ERROR)
    root = new_configured_queue(partition.queues[0], None)
    tree = QueueTree(root)
    tree.register(root)
    _add_queues(tree, partition.queues[0].children, root)
    return tree


def _add_queues(tree: QueueTree, confs: list[QueueConf], parent: Queue) -> None:
    for conf in confs:
        queue = new_configured_queue(conf, parent)
        tree.register(queue)
        _add_queues(tree, conf.children, queue)
