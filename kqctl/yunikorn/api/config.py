"""``queues.yaml`` as typed values (spec §2; yunikorn-core ``pkg/common/configs/config.go``).

Each struct keeps where it was written (:class:`Located`: field path and line, and the line of each key) so
every finding points into the file. Absent and null lists and maps are ``None`` and kept apart from empty
ones: YuniKorn compares partition and root limits with Go's ``reflect.DeepEqual`` (V5), which does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.origin import FieldPath
from kqctl.yunikorn.api.decoding import DecodeError, Decoder, Node, SyntaxProblem, first_document

StrMap = dict[str, str]


@dataclass
class Located:
    """Where a struct was written: its field path, the line it starts on, and the line of each key."""

    path: FieldPath = ()
    line: int = 1
    keys: dict[str, int] = field(default_factory=dict)

    def line_of(self, key: str) -> int:
        return self.keys.get(key, self.line)

    def at(self, *keys: str | int) -> FieldPath:
        return (*self.path, *keys)


@dataclass
class MapConf:
    """A configured ``map[string]string`` (resources, properties) with the line of each entry."""

    values: StrMap
    loc: Located


@dataclass
class ResourcesConf:
    guaranteed: MapConf | None = None
    max: MapConf | None = None
    loc: Located = field(default_factory=Located)


@dataclass
class ChildTemplateConf:
    maxapplications: int = 0
    properties: MapConf | None = None
    resources: ResourcesConf = field(default_factory=ResourcesConf)
    loc: Located = field(default_factory=Located)


@dataclass
class LimitConf:
    limit: str = ""
    users: list[str] | None = None
    groups: list[str] | None = None
    maxresources: MapConf | None = None
    maxapplications: int = 0
    loc: Located = field(default_factory=Located)

    def deep_key(self) -> tuple[object, ...]:
        """What ``reflect.DeepEqual`` compares (nil and empty lists or maps differ)."""
        resources = None if self.maxresources is None else tuple(sorted(self.maxresources.values.items()))
        return (self.limit, None if self.users is None else tuple(self.users),
                None if self.groups is None else tuple(self.groups), resources, self.maxapplications)

    def go_value(self) -> str:
        """Go's ``%v`` of the Limit struct (used in one of YuniKorn's messages)."""
        users = " ".join(self.users or [])
        groups = " ".join(self.groups or [])
        resources = " ".join(f"{k}:{v}" for k, v in sorted((self.maxresources.values if self.maxresources
                                                             else {}).items()))
        return f"{{{self.limit} [{users}] [{groups}] map[{resources}] {self.maxapplications}}}"


@dataclass
class QueueConf:
    name: str = ""
    parent: bool = False
    resources: ResourcesConf = field(default_factory=ResourcesConf)
    maxapplications: int = 0
    properties: MapConf | None = None
    adminacl: str = ""
    submitacl: str = ""
    childtemplate: ChildTemplateConf = field(default_factory=ChildTemplateConf)
    queues: list[QueueConf] | None = None
    limits: list[LimitConf] | None = None
    loc: Located = field(default_factory=Located)
    inserted: bool = False  # the root queue YuniKorn inserts above several top queues (V3)

    @property
    def children(self) -> list[QueueConf]:
        return self.queues or []

    @property
    def is_parent(self) -> bool:
        """A queue is a parent when marked so or when it has children (``Queue.applyConf``)."""
        return self.parent or bool(self.queues)


@dataclass
class FilterConf:
    type: str = ""
    users: list[str] | None = None
    groups: list[str] | None = None
    loc: Located = field(default_factory=Located)


@dataclass
class RuleConf:
    name: str = ""
    create: bool = False
    filter: FilterConf = field(default_factory=FilterConf)
    parent: RuleConf | None = None
    value: str = ""
    loc: Located = field(default_factory=Located)

    def chain(self) -> list[RuleConf]:
        """The rule and its parents, the outermost parent first (``getRuleChain``)."""
        return [*(self.parent.chain() if self.parent else []), self]


@dataclass
class PreemptionConf:
    enabled: bool | None = None
    quotapreemptionenabled: bool | None = None
    loc: Located = field(default_factory=Located)


@dataclass
class NodeSortConf:
    type: str = ""
    resourceweights: dict[str, float] | None = None
    weight_lines: dict[str, int] = field(default_factory=dict)
    loc: Located = field(default_factory=Located)


@dataclass
class PartitionConf:
    name: str = ""
    queues: list[QueueConf] | None = None
    placementrules: list[RuleConf] | None = None
    limits: list[LimitConf] | None = None
    preemption: PreemptionConf = field(default_factory=PreemptionConf)
    nodesortpolicy: NodeSortConf = field(default_factory=NodeSortConf)
    usergroupresolver: str = ""
    loc: Located = field(default_factory=Located)

    @property
    def root(self) -> QueueConf:
        """The root queue (after the structure check inserted it, V3)."""
        assert self.queues
        return self.queues[0]


@dataclass
class SchedulerConf:
    partitions: list[PartitionConf] | None = None
    checksum: str = ""
    loc: Located = field(default_factory=Located)


@dataclass
class ParsedConfig:
    """The outcome of the strict decode: the config (None when the text is not YAML), the decode errors."""

    config: SchedulerConf | None
    errors: list[DecodeError]
    syntax: SyntaxProblem | None = None
    empty: bool = False  # zero bytes: YuniKorn substitutes its built-in default (V27)

    @property
    def ok(self) -> bool:
        return self.config is not None and not self.errors and self.syntax is None


# --- decoding --------------------------------------------------------------------------------------------

_SCHEDULER = frozenset(("partitions", "checksum"))
_PARTITION = frozenset(("name", "queues", "placementrules", "limits", "preemption", "nodesortpolicy",
                        "usergroupresolver"))
_QUEUE = frozenset(("name", "parent", "resources", "maxapplications", "properties", "adminacl", "submitacl",
                    "childtemplate", "queues", "limits"))
_TEMPLATE = frozenset(("maxapplications", "properties", "resources"))
_RESOURCES = frozenset(("guaranteed", "max"))
_LIMIT = frozenset(("limit", "users", "groups", "maxresources", "maxapplications"))
_RULE = frozenset(("name", "create", "filter", "parent", "value"))
_FILTER = frozenset(("type", "users", "groups"))
_PREEMPTION = frozenset(("enabled", "quotapreemptionenabled"))
_NODE_SORT = frozenset(("type", "resourceweights"))
_RESOLVER = frozenset(("type",))


def parse_config(text: str) -> ParsedConfig:
    """``ParseAndValidateConfig``'s decode step on ``text``: strict, first document only."""
    if text == "":
        return ParsedConfig(SchedulerConf(), [], empty=True)
    try:
        node = first_document(text)
    except SyntaxProblem as problem:
        return ParsedConfig(None, [], problem)
    return parse_config_node(node)


def parse_config_node(node: Node | None) -> ParsedConfig:
    """The decode step on a document already composed (None: an empty document)."""
    decoder = Decoder()
    config = SchedulerConf() if node is None else _scheduler(decoder, node)
    return ParsedConfig(config, decoder.errors)


def _located(node: Node, path: FieldPath) -> Located:
    keys = {k.value: k.line for k, _ in node.pairs if k.kind == "scalar"} if node.kind == "mapping" else {}
    return Located(path, node.line, keys)


def _str_map(d: Decoder, node: Node, path: FieldPath, key_line: int) -> MapConf | None:
    """A ``map[string]string``; its location is the line of the key that holds it."""
    decoded = d.mapping(node, path, "string", d.string_value)
    if decoded is None:
        return None
    values, lines = decoded
    return MapConf(values, Located(path, key_line, lines))


def _scheduler(d: Decoder, node: Node) -> SchedulerConf:
    conf = SchedulerConf(loc=_located(node, ()))
    for key, value, _key_line in d.fields(node, (), "configs.SchedulerConfig", _SCHEDULER):
        if key == "partitions":
            items = d.sequence(value, ("partitions",), "[]configs.PartitionConfig")
            conf.partitions = None if items is None else [
                _partition(d, item, ("partitions", i)) for i, item in enumerate(items)]
        else:
            conf.checksum = d.string(value, ("checksum",))
    return conf


def _partition(d: Decoder, node: Node, path: FieldPath) -> PartitionConf:
    conf = PartitionConf(loc=_located(node, path))
    for key, value, _key_line in d.fields(node, path, "configs.PartitionConfig", _PARTITION):
        at = (*path, key)
        if key == "name":
            conf.name = d.string(value, at)
        elif key == "queues":
            conf.queues = _queues(d, value, at)
        elif key == "placementrules":
            items = d.sequence(value, at, "[]configs.PlacementRule")
            conf.placementrules = None if items is None else [
                _rule(d, item, (*at, i)) for i, item in enumerate(items)]
        elif key == "limits":
            conf.limits = _limits(d, value, at)
        elif key == "preemption":
            conf.preemption = _preemption(d, value, at)
        elif key == "nodesortpolicy":
            conf.nodesortpolicy = _node_sort(d, value, at)
        else:
            for _, inner, _ in d.fields(value, at, "configs.UserGroupResolver", _RESOLVER):
                conf.usergroupresolver = d.string(inner, (*at, "type"))
    return conf


def _queues(d: Decoder, node: Node, path: FieldPath) -> list[QueueConf] | None:
    items = d.sequence(node, path, "[]configs.QueueConfig")
    return None if items is None else [_queue(d, item, (*path, i)) for i, item in enumerate(items)]


def _queue(d: Decoder, node: Node, path: FieldPath) -> QueueConf:
    conf = QueueConf(loc=_located(node, path))
    for key, value, key_line in d.fields(node, path, "configs.QueueConfig", _QUEUE):
        at = (*path, key)
        if key == "name":
            conf.name = d.string(value, at)
        elif key == "parent":
            conf.parent = d.boolean(value, at)
        elif key == "resources":
            conf.resources = _resources(d, value, at)
        elif key == "maxapplications":
            conf.maxapplications = d.uint64(value, at)
        elif key == "properties":
            conf.properties = _str_map(d, value, at, key_line)
        elif key == "adminacl":
            conf.adminacl = d.string(value, at)
        elif key == "submitacl":
            conf.submitacl = d.string(value, at)
        elif key == "childtemplate":
            conf.childtemplate = _template(d, value, at)
        elif key == "queues":
            conf.queues = _queues(d, value, at)
        else:
            conf.limits = _limits(d, value, at)
    return conf


def _resources(d: Decoder, node: Node, path: FieldPath) -> ResourcesConf:
    conf = ResourcesConf(loc=_located(node, path))
    for key, value, key_line in d.fields(node, path, "configs.Resources", _RESOURCES):
        if key == "guaranteed":
            conf.guaranteed = _str_map(d, value, (*path, key), key_line)
        else:
            conf.max = _str_map(d, value, (*path, key), key_line)
    return conf


def _template(d: Decoder, node: Node, path: FieldPath) -> ChildTemplateConf:
    conf = ChildTemplateConf(loc=_located(node, path))
    for key, value, key_line in d.fields(node, path, "configs.ChildTemplate", _TEMPLATE):
        at = (*path, key)
        if key == "maxapplications":
            conf.maxapplications = d.uint64(value, at)
        elif key == "properties":
            conf.properties = _str_map(d, value, at, key_line)
        else:
            conf.resources = _resources(d, value, at)
    return conf


def _limits(d: Decoder, node: Node, path: FieldPath) -> list[LimitConf] | None:
    items = d.sequence(node, path, "[]configs.Limit")
    return None if items is None else [_limit(d, item, (*path, i)) for i, item in enumerate(items)]


def _limit(d: Decoder, node: Node, path: FieldPath) -> LimitConf:
    conf = LimitConf(loc=_located(node, path))
    for key, value, key_line in d.fields(node, path, "configs.Limit", _LIMIT):
        at = (*path, key)
        if key == "limit":
            conf.limit = d.string(value, at)
        elif key == "users":
            conf.users = d.string_list(value, at)
        elif key == "groups":
            conf.groups = d.string_list(value, at)
        elif key == "maxresources":
            conf.maxresources = _str_map(d, value, at, key_line)
        else:
            conf.maxapplications = d.uint64(value, at)
    return conf


def _rule(d: Decoder, node: Node, path: FieldPath) -> RuleConf:
    conf = RuleConf(loc=_located(node, path))
    for key, value, _key_line in d.fields(node, path, "configs.PlacementRule", _RULE):
        at = (*path, key)
        if key == "name":
            conf.name = d.string(value, at)
        elif key == "create":
            conf.create = d.boolean(value, at)
        elif key == "filter":
            conf.filter = _filter(d, value, at)
        elif key == "parent":
            conf.parent = None if value.is_null else _rule(d, value, at)
        else:
            conf.value = d.string(value, at)
    return conf


def _filter(d: Decoder, node: Node, path: FieldPath) -> FilterConf:
    conf = FilterConf(loc=_located(node, path))
    for key, value, _key_line in d.fields(node, path, "configs.Filter", _FILTER):
        at = (*path, key)
        if key == "type":
            conf.type = d.string(value, at)
        elif key == "users":
            conf.users = d.string_list(value, at)
        else:
            conf.groups = d.string_list(value, at)
    return conf


def _preemption(d: Decoder, node: Node, path: FieldPath) -> PreemptionConf:
    conf = PreemptionConf(loc=_located(node, path))
    for key, value, _key_line in d.fields(node, path, "configs.PartitionPreemptionConfig", _PREEMPTION):
        flag = None if value.is_null else d.boolean(value, (*path, key))
        if key == "enabled":
            conf.enabled = flag
        else:
            conf.quotapreemptionenabled = flag
    return conf


def _node_sort(d: Decoder, node: Node, path: FieldPath) -> NodeSortConf:
    conf = NodeSortConf(loc=_located(node, path))
    for key, value, _key_line in d.fields(node, path, "configs.NodeSortingPolicy", _NODE_SORT):
        if key == "type":
            conf.type = d.string(value, (*path, key))
        else:
            decoded = d.mapping(value, (*path, key), "float64", d.float_value)
            if decoded is not None:
                conf.resourceweights, conf.weight_lines = decoded
    return conf


# YuniKorn's built-in configuration (``configs.DefaultSchedulerConfig``), used when the text is empty: every
# namespace's applications go to a dynamic leaf ``root.<namespace>``, which anyone may submit to.
DEFAULT_CONFIG_TEXT = """
partitions:
  - name: default
    placementrules:
      - name: tag
        value: namespace
        create: true
    queues:
      - name: root
        submitacl: '*'
"""


_FRAGMENTS = {
    "partition": lambda d, node: _partition(d, node, ()),
    "queue": lambda d, node: _queue(d, node, ()),
    "queues": lambda d, node: _queues(d, node, ()) or [],
    "rule": lambda d, node: _rule(d, node, ()),
    "rules": lambda d, node: [_rule(d, item, (i,))
                              for i, item in enumerate(d.sequence(node, (), "[]configs.PlacementRule") or [])],
    "filter": lambda d, node: _filter(d, node, ()),
    "limits": lambda d, node: _limits(d, node, ()) or [],
}


def parse_fragment(text: str, kind: str) -> tuple[object, list[DecodeError]]:
    """One struct (``partition``, ``queue``, ``rule``, ``filter``) or list (``queues``, ``rules``, ``limits``) of
    the config on its own, as YuniKorn's unit tests feed single validator functions."""
    node = first_document(text) or Node("scalar", 1, "", "!!null")
    decoder = Decoder()
    return _FRAGMENTS[kind](decoder, node), decoder.errors
