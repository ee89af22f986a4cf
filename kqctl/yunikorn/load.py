"""Loaded objects become one YuniKorn :class:`~kqctl.yunikorn.api.snapshot.Snapshot`.

The queue configuration is a bare ``queues.yaml``, else the two ConfigMaps merged (``yunikorn-configs`` over
``yunikorn-defaults``), else YuniKorn's built-in default (spec §1). Pods with ``schedulerName: yunikorn``
become asks (pending) or allocations (bound); pods of other schedulers bound to a node occupy it.
A configuration YuniKorn would refuse stops here with its own first error (kqctl validate shows all).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from kqctl.errors import InputError
from kqctl.k8s.core import ModelError, controller_kind, parse_time
from kqctl.k8s.pods import LimitRangeSummary, spec_requests, summarize_limit_ranges
from kqctl.k8s.quantity import QuantityError, parse_quantity, resource_value
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.validate.schema import validate_schema
from kqctl.yunikorn import kinds, settings
from kqctl.yunikorn.api import configmap, names
from kqctl.yunikorn.api.config import DEFAULT_CONFIG_TEXT, ParsedConfig, parse_config, parse_config_node
from kqctl.yunikorn.api.decoding import from_yaml_node
from kqctl.yunikorn.api.resources import PODS, VCORE, Resource
from kqctl.yunikorn.api.snapshot import (
    HARD,
    SOFT,
    ConfigSource,
    ForeignPod,
    GangPolicy,
    NamespaceInfo,
    NodeInfo,
    PodInfo,
    Snapshot,
    TaskGroup,
)

DOMAIN = "yunikorn.apache.org/"
QUEUE_LABEL = DOMAIN + "queue"
APP_ID_LABEL = DOMAIN + "app-id"
USER_INFO = DOMAIN + "user.info"
ALLOW_PREEMPTION = DOMAIN + "allow-preemption"
PARENT_QUEUE = DOMAIN + "parentqueue"
NAMESPACE_QUOTA = names.NAMESPACE_QUOTA
NAMESPACE_GUARANTEED = DOMAIN + "namespace.guaranteed"
NAMESPACE_MAX_APPS = names.NAMESPACE_MAX_APPS
NAMESPACE_MAX_CPU = DOMAIN + "namespace.max.cpu"
NAMESPACE_MAX_MEMORY = DOMAIN + "namespace.max.memory"
TASK_GROUP_NAME = DOMAIN + "task-group-name"
TASK_GROUPS = DOMAIN + "task-groups"
# on the pods the shim makes for a gang (k8shim constants.AnnotationPlaceholderFlag, in the internal domain since
# YuniKorn 1.6), read with Go's strconv.ParseBool
PLACEHOLDER_FLAG = "internal.yunikorn.apache.org/placeholder"
OLD_PLACEHOLDER_FLAG = DOMAIN + "placeholder"  # before YuniKorn 1.6 (YUNIKORN-2503): no longer read
_GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
DEFAULT_USER = "nobody"
UNIQUE_AUTOGEN_SUFFIX = "-uniqueautogen"
GENERATE_UNIQUE_APP_IDS = settings.GENERATE_UNIQUE_APP_IDS
DISABLE_GANG_SCHEDULING = settings.DISABLE_GANG_SCHEDULING
SCHEDULING_INTERVAL = settings.SCHEDULING_INTERVAL
DEFAULT_SCHEDULING_INTERVAL_MS = 1000  # k8shim conf.DefaultSchedulingInterval
RUNTIME_ANNOTATION = "kqctl.dev/runtime"  # kqctl's own: how long a pod runs in a replay
_TERMINATED = ("Succeeded", "Failed")


def build_snapshot(result: LoadResult, now: datetime | None = None) -> Snapshot:
    """Every object of the inputs in one snapshot; the first unusable input raises :class:`InputError`."""
    if result.unreadable:
        raise result.unreadable[0]
    objects = [obj for obj in result.objects if _usable(obj)]
    by_kind: dict[str, list[LoadedObject]] = {}
    for obj in objects:
        by_kind.setdefault(obj.kind, []).append(obj)
    snapshot = Snapshot(config=config_source(objects), now=now or datetime.now(timezone.utc).replace(microsecond=0))
    snapshot.generate_unique_app_ids = _unique_app_ids(objects)
    snapshot.gang_disabled = gang_scheduling_disabled(objects)
    snapshot.scheduling_interval = scheduling_interval(objects)
    classes = {obj.name or "": obj.body for obj in by_kind.get("PriorityClass", [])}
    snapshot.priority_classes = {name: (_int(body.get("value")), _allow_preemption(body)) for name, body in
                                 classes.items()}
    for obj in by_kind.get("Namespace", []):
        snapshot.namespaces[obj.name or ""] = namespace_info(obj)
    for obj in by_kind.get("Node", []):
        snapshot.nodes.append(node_info(obj))
    limits = _limit_ranges(by_kind.get("LimitRange", []))
    for obj in by_kind.get("Pod", []):
        _add_pod(snapshot, obj, classes, limits)
    snapshot.nodes.sort(key=lambda n: n.name)
    return snapshot


def _usable(obj: LoadedObject) -> bool:
    """Objects with an error are a located input error; unknown kinds are left out (validate reports them)."""
    errors = [f for f in obj.findings if f.severity.value == "error"]
    if errors:
        raise InputError(obj.origin.file, f"{obj.describe()}: {errors[0].message}", obj.origin.line)
    if obj.kind in _READ_METADATA:
        _refuse_untyped_metadata(obj)
    return obj.info is not None


# The kinds whose labels and annotations YuniKorn reads (queue, application id, user, namespace limits, node labels).
_READ_METADATA = ("Pod", "Node", "Namespace")


def _refuse_untyped_metadata(obj: LoadedObject) -> None:
    """A label or annotation value that is not a string (``queue: y`` read by YAML as a boolean) is refused by the
    API server: the same located error ``kqctl validate`` gives (SCHEMA-TYPE), never a queue named ``root.true``."""
    metadata = obj.body.get("metadata")
    if not isinstance(metadata, dict):
        return
    for part in ("labels", "annotations"):
        values = metadata.get(part)
        if not isinstance(values, dict) or all(isinstance(v, str) for v in values.values()):
            continue
        findings = [f for f in validate_schema(obj.body, str(obj.body.get("apiVersion", "")), obj.kind)
                    if f.severity.value == "error" and f.path[:2] == ("metadata", part)]
        if findings:
            first = findings[0]
            raise InputError(obj.origin.file, f"{obj.describe()}: {first.rule_id}: {first.message} (kqctl validate "
                             "shows every problem)", obj.line_of(first.path), obj.origin.index)


def config_source(objects: list[LoadedObject]) -> ConfigSource:
    """A bare queues.yaml wins; else the ConfigMaps' policy-group key; else the built-in default."""
    bare = [obj for obj in objects if obj.info is kinds.QUEUES_CONFIG]
    if len(bare) > 1:
        places = ", ".join(str(obj.origin) for obj in bare)
        raise InputError(bare[1].origin.file, f"more than one queues.yaml in the inputs ({places}): YuniKorn reads "
                         "one configuration", bare[1].origin.line)
    if bare:
        obj = bare[0]
        return ConfigSource(_bare_config(obj), f"{obj.origin.file}", obj.origin)
    maps = {obj.name: obj for obj in objects if obj.info is kinds.CONFIG_MAP}
    ordered = [maps[name] for name in kinds.CONFIG_MAP_NAMES if name in maps]
    if ordered:
        flattened = configmap.flatten([obj.body for obj in ordered])
        entry = flattened.queue_config()
        if entry is not None and entry.text != "":
            holder = maps[entry.source]
            return ConfigSource(parse_config(entry.text), f"ConfigMap {holder.namespace}/{entry.source} key "
                                f"{entry.raw_key}", holder.origin)
        return ConfigSource(parse_config(DEFAULT_CONFIG_TEXT), f"YuniKorn's built-in default (the ConfigMaps have "
                            f"no {flattened.config_key})", builtin=True)
    return ConfigSource(parse_config(DEFAULT_CONFIG_TEXT), "YuniKorn's built-in default (no queues.yaml or "
                        "YuniKorn ConfigMap in the inputs)", builtin=True)


def _bare_config(obj: LoadedObject) -> ParsedConfig:
    """The document as go-yaml types it: from the composed node (raw scalars), else from the body as JSON."""

    node = obj.document.tree()
    for part in obj.prefix if node is not None else ():
        node = _child(node, part)
    if node is not None:
        return parse_config_node(from_yaml_node(node))
    return parse_config(json.dumps(obj.body))  # a JSON document: JSON is YAML, typed the same by both


def _child(node: Any, part: str | int) -> Any:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return next((v for k, v in node.value if getattr(k, "value", None) == str(part)), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
        return node.value[part]
    return None


def _unique_app_ids(objects: list[LoadedObject]) -> bool:
    return _setting(objects, GENERATE_UNIQUE_APP_IDS)


def scheduling_interval(objects: list[LoadedObject]) -> int:
    """``service.schedulingInterval`` of the two ConfigMaps (k8shim ``parser.durationVar``: a Go duration; one the
    shim refuses fails its whole configuration, and kqctl uses the default, 1 s (validate warns,
    YK-CONFIGMAP-SETTING); 0 or less makes ``wait.Until`` loop without pause: 1 ms here), in whole milliseconds."""
    text = settings.value(_flattened(objects), settings.SCHEDULING_INTERVAL)
    nanos = settings.duration(text) if text is not None else None
    return DEFAULT_SCHEDULING_INTERVAL_MS if nanos is None else max(1, nanos // 1_000_000)


def gang_scheduling_disabled(objects: list[LoadedObject]) -> bool:
    """``service.disableGangScheduling``: the shim then reads no task-groups annotation."""
    return _setting(objects, DISABLE_GANG_SCHEDULING)


def _setting(objects: list[LoadedObject], key: str) -> bool:
    """A boolean setting of the two ConfigMaps (``strconv.ParseBool``; one the shim refuses: the default, false)."""
    text = settings.value(_flattened(objects), key)
    return text is not None and settings.boolean(text) is True


def _flattened(objects: list[LoadedObject]) -> configmap.Flattened:
    return configmap.flatten([obj.body for name in kinds.CONFIG_MAP_NAMES for obj in objects
                              if obj.info is kinds.CONFIG_MAP and obj.name == name])


# --- core objects -----------------------------------------------------------------------------------


def yunikorn_resources(requests: Mapping[str, int]) -> Resource:
    """k8shim ``getResource``: cpu becomes vcore (millicores), the rest keeps its Kubernetes name."""
    return {VCORE if name == "cpu" else name: value for name, value in requests.items()}


def quantities(raw: Any) -> Resource:
    """A Kubernetes resource list in YuniKorn's units; unparsable entries are left out."""
    result: Resource = {}
    for name, value in (raw.items() if isinstance(raw, Mapping) else ()):
        try:
            result[VCORE if name == "cpu" else str(name)] = resource_value(str(name), parse_quantity(
                value.strip() if isinstance(value, str) else value))
        except (QuantityError, TypeError, ValueError):
            continue
    return result


def node_info(obj: LoadedObject) -> NodeInfo:
    body = obj.body
    status = _mapping(body.get("status"))
    spec = _mapping(body.get("spec"))
    capacity = quantities(status.get("allocatable") or status.get("capacity"))
    labels = _mapping(obj.metadata.get("labels"))
    taints = _sequence(spec.get("taints"))
    return NodeInfo(obj.name or "", capacity, {str(k): str(v) for k, v in labels.items()}, tuple(taints),
                    bool(spec.get("unschedulable")), obj.origin)


def namespace_info(obj: LoadedObject) -> NamespaceInfo:
    """G6 as the shim reads the annotations (``GetNamespaceQuotaFromAnnotation`` and friends): one that does not
    parse is logged and ignored; a namespace.quota annotation, even a broken one, hides the deprecated max.*."""
    notes = _mapping(obj.metadata.get("annotations"))
    quota, _ = annotation_resources(notes.get(NAMESPACE_QUOTA))
    if not notes.get(NAMESPACE_QUOTA) and (notes.get(NAMESPACE_MAX_CPU) or notes.get(NAMESPACE_MAX_MEMORY)):
        quota = quantities({k: notes[a] for k, a in (("cpu", NAMESPACE_MAX_CPU), ("memory", NAMESPACE_MAX_MEMORY))
                            if notes.get(a)})
    guaranteed, _ = annotation_resources(notes.get(NAMESPACE_GUARANTEED))
    max_apps, _ = annotation_max_apps(notes.get(NAMESPACE_MAX_APPS))
    return NamespaceInfo(obj.name or "", str(notes.get(PARENT_QUEUE) or ""), quota, guaranteed, max_apps, obj.origin)


def namespace_problems(obj: LoadedObject) -> list[tuple[str, str]]:
    """(annotation, why the shim ignores it) for each G6 annotation of the namespace that does not parse."""
    notes = _mapping(obj.metadata.get("annotations"))
    found = [(key, annotation_resources(notes.get(key))[1]) for key in (NAMESPACE_QUOTA, NAMESPACE_GUARANTEED)]
    found.append((NAMESPACE_MAX_APPS, annotation_max_apps(notes.get(NAMESPACE_MAX_APPS))[1]))
    return [(key, why) for key, why in found if why]


def annotation_resources(text: Any) -> tuple[Resource | None, str]:
    """The shim's ``json.Unmarshal`` into ``map[string]string`` then ``GetResource``: (resources, "") or
    (None, why) when either fails (cpu in millicores; every other resource by its name)."""
    if text is None or text == "":
        return None, ""
    if not isinstance(text, str):
        return None, "is not a string"
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"is not JSON ({exc.msg} at character {exc.pos})"
    except ValueError:  # e.g. a number too long for int()
        return None, "is not JSON"
    if not isinstance(parsed, Mapping) or not all(isinstance(v, str) for v in parsed.values()):
        return None, "is not a JSON object of quoted quantities"
    result: Resource = {}
    for name, value in parsed.items():
        try:
            result[VCORE if name == "cpu" else str(name)] = resource_value(str(name), parse_quantity(value))
        except (QuantityError, TypeError, ValueError):
            return None, f"has {name}: {value!r}, which is not a quantity"
    return result, ""


def annotation_max_apps(text: Any) -> tuple[int, str]:
    """``GetNamespaceMaxAppsFromAnnotation``: Go's ``strconv.Atoi``, negative values ignored; (0, why) if not."""
    raw = str(text) if text is not None else ""
    if raw == "":
        return 0, ""
    if not re.fullmatch(r"[+-]?[0-9]+", raw) or not -(2**63) <= int(raw) < 2**63:
        return 0, "is not a whole number"
    if int(raw) < 0:
        return 0, "is negative"
    return int(raw), ""


def _allow_preemption(body: Mapping[str, Any]) -> bool:
    notes = _mapping(_mapping(body.get("metadata")).get("annotations"))
    return notes.get(ALLOW_PREEMPTION) != "false"


def _limit_ranges(objects: list[LoadedObject]) -> dict[str, LimitRangeSummary]:
    items: dict[str, list[Any]] = {}
    for obj in objects:
        limits = _sequence(_mapping(obj.body.get("spec")).get("limits"))
        items.setdefault(obj.namespace or "default", []).extend(i for i in limits if isinstance(i, Mapping))
    return {namespace: summarize_limit_ranges(found) for namespace, found in items.items()}


# --- pods --------------------------------------------------------------------------------------------


def _add_pod(snapshot: Snapshot, obj: LoadedObject, classes: dict[str, Any],
             limits: dict[str, LimitRangeSummary]) -> None:
    body = obj.body
    spec = _mapping(body.get("spec"))
    status = _mapping(body.get("status"))
    if status.get("phase") in _TERMINATED:
        return  # finished pods hold nothing
    namespace = obj.namespace or "default"
    requests = yunikorn_resources(spec_requests(spec, limits.get(namespace)))
    node = str(spec.get("nodeName") or "")
    if not kinds.is_yunikorn_pod(body):
        if node:
            snapshot.foreign.append(ForeignPod(namespace, obj.name or "", node, {**requests, PODS: 1}))
        return
    snapshot.pods.append(pod_info(obj, spec, requests, classes, snapshot))


def pod_info(obj: LoadedObject, spec: Mapping[str, Any], requests: Resource, classes: dict[str, Any],
             snapshot: Snapshot) -> PodInfo:
    meta = obj.metadata
    labels = {str(k): str(v) for k, v in _mapping(meta.get("labels")).items()}
    notes = {str(k): str(v) for k, v in _mapping(meta.get("annotations")).items()}
    namespace = obj.namespace or "default"
    class_name = str(spec.get("priorityClassName") or "")
    user, groups = _user(notes)
    created = _created(meta, obj, snapshot)
    node_affinity = _mapping(_mapping(spec.get("affinity")).get("nodeAffinity"))
    terms = _sequence(_mapping(node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"))
                      .get("nodeSelectorTerms"))
    selector = _mapping(spec.get("nodeSelector"))
    tolerations = _sequence(spec.get("tolerations"))
    # the shim reads no task groups with gang scheduling disabled
    ask, declared, _ = (None, (), "") if snapshot.gang_disabled else read_task_groups(notes.get(TASK_GROUPS, ""))
    policy = gang_policy(notes.get(SCHEDULING_POLICY, "")) if ask is not None else None
    return PodInfo(
        namespace=namespace,
        name=obj.name or "",
        app_id=application_id(labels, notes, namespace, str(meta.get("uid") or ""), snapshot.generate_unique_app_ids),
        queue=queue_name(labels, notes),
        user=user,
        groups=groups,
        resource={**requests, PODS: 1},
        priority=_priority(spec, class_name, classes),
        created=created,
        node=str(spec.get("nodeName") or ""),
        allow_preempt_other=_preemption_policy(spec, class_name, classes) != "Never",
        allow_preempt_self=_allow_self(notes, class_name, classes),
        priority_class=class_name,
        labels=labels,
        node_selector={str(k): str(v) for k, v in selector.items()},
        affinity_terms=tuple(terms),
        tolerations=tuple(tolerations),
        task_group=notes.get(TASK_GROUP_NAME, ""),
        placeholder=ask,
        task_groups=tuple(group.name for group in declared),
        task_group_specs=declared,
        gang_policy=policy,
        is_placeholder=notes.get(PLACEHOLDER_FLAG, "") in _GO_TRUE,
        origin=obj.origin,
        runtime=notes.get(RUNTIME_ANNOTATION, ""),
        controller=controller_kind(meta),
    )


def placeholder_ask(raw: str) -> Resource | None:
    """k8shim ``GetTaskGroupsFromAnnotation`` + ``setTaskGroups``: per task group minMember pods and minMember times
    each minResource (cpu as vcore in millicores), added up; None when the annotation is absent or the shim
    rejects it (bad JSON, a group without name, minResource or a positive minMember, a negative or colliding
    resource: the shim logs the error and the application is no gang)."""
    return task_groups(raw)[0]


def task_groups(raw: str) -> tuple[Resource | None, str]:
    """(the placeholders' total ask, "") as :func:`placeholder_ask`, or (None, why the shim rejects the
    annotation) when it is set and ``GetTaskGroupsFromAnnotation`` returns an error."""
    ask, _, why = read_task_groups(raw)
    return ask, why


def read_task_groups(raw: str) -> tuple[Resource | None, tuple[TaskGroup, ...], str]:
    """(the placeholders' total ask, the task groups in order, "") as :func:`task_groups`; (None, (), why)
    when the shim rejects the annotation, (None, (), "") when it is absent or JSON null."""
    if not raw:
        return None, (), ""
    try:
        groups = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, (), f"is not JSON ({exc.msg} at character {exc.pos})"
    except ValueError:
        return None, (), "is not JSON"
    if groups is None:
        return None, (), ""  # JSON null: no task groups, no error
    if not isinstance(groups, list):
        return None, (), "is not a JSON list of task groups"
    totals: Resource = {PODS: 0}
    specs: list[TaskGroup] = []
    for group in groups:
        if not isinstance(group, Mapping):
            return None, (), "has an entry that is not a JSON object"
        spec, why = _task_group(group)
        if spec is None:
            return None, (), why
        totals[PODS] += spec.min_member
        specs.append(spec)
        for name, amount in spec.min_resource.items():
            totals[name] = totals.get(name, 0) + spec.min_member * amount
    return totals, tuple(specs), ""


def _task_group(group: Mapping[str, Any]) -> tuple[TaskGroup | None, str]:
    """One task group as ``GetTaskGroupsFromAnnotation`` reads it (encoding/json matches keys case-insensitively),
    or (None, why the shim rejects the whole annotation)."""
    fields = {str(key).lower(): value for key, value in group.items()}
    name, members, minimum = fields.get("name", ""), fields.get("minmember", 0), fields.get("minresource")
    if not isinstance(name, str) or not isinstance(members, int) or isinstance(members, bool) or \
            not (minimum is None or isinstance(minimum, Mapping)):
        return None, "has a name, minMember or minResource of the wrong JSON type"  # json.Unmarshal fails
    if not name:
        return None, "has a task group without a name"
    if minimum is None:
        return None, f"has task group {name} without minResource"
    if members <= 0:
        return None, f"has task group {name} without a positive minMember"
    amounts: Resource = {}
    seen = {PODS}
    for resource_name, value in minimum.items():
        canonical = VCORE if resource_name == "cpu" else str(resource_name)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None, f"has task group {name} with minResource {resource_name} that is not a quantity"
        try:
            amount = resource_value(str(resource_name), parse_quantity(str(value)))
        except (QuantityError, TypeError, ValueError):
            return None, f"has task group {name} with minResource {resource_name}: {value!r}, not a quantity"
        if amount < 0:
            return None, f"has task group {name} with a negative minResource {resource_name}"
        if canonical in seen:
            return None, f"has task group {name} with minResource {resource_name} given twice (cpu and vcore, or pods)"
        seen.add(canonical)
        amounts[canonical] = amount
    affinity = _mapping(_mapping(fields.get("affinity")).get("nodeAffinity"))
    terms = _sequence(_mapping(affinity.get("requiredDuringSchedulingIgnoredDuringExecution")).get("nodeSelectorTerms"))
    selector = _mapping(fields.get("nodeselector"))
    return TaskGroup(name, members, amounts, {str(k): str(v) for k, v in selector.items()}, tuple(terms),
                     tuple(_sequence(fields.get("tolerations")))), ""


def queue_name(labels: Mapping[str, str], notes: Mapping[str, str]) -> str:
    """§9.1 ``GetQueueNameFromPod``: label yunikorn.apache.org/queue, annotation of that name, label queue."""
    return labels.get(QUEUE_LABEL) or notes.get(QUEUE_LABEL) or labels.get("queue") or ""


def application_id(labels: Mapping[str, str], notes: Mapping[str, str], namespace: str, uid: str,
                   unique: bool) -> str:
    """``GetApplicationIDFromPod``: label yunikorn.apache.org/app-id, the annotation of that name, label
    applicationId, label spark-app-selector; else one ID per namespace (``yunikorn-<ns>-autogen``)."""
    app_id = (labels.get(APP_ID_LABEL) or notes.get(APP_ID_LABEL) or labels.get("applicationId")
              or labels.get("spark-app-selector") or "")
    if app_id.endswith(UNIQUE_AUTOGEN_SUFFIX):
        app_id = f"{app_id[:-len(UNIQUE_AUTOGEN_SUFFIX)]}-{uid}"
    if app_id:
        return app_id
    generated = f"{namespace[:26]}-{uid}" if unique else f"yunikorn-{namespace}-autogen"
    return generated[:63]


def _user(notes: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """``GetUserFromPod``: the admission controller's user.info annotation, else nobody."""
    user, groups, _ = user_info(notes.get(USER_INFO))
    return user, groups


def user_info(raw: str | None) -> tuple[str, tuple[str, ...], str]:
    """``GetUserFromPod``: ``json.Unmarshal`` into ``UserGroupInformation`` (keys matched ignoring case); when it
    fails, (nobody, no groups, why); an empty or missing user is nobody with the groups given."""
    if not raw:
        return DEFAULT_USER, (), ""
    try:
        info = json.loads(raw)
    except json.JSONDecodeError as exc:
        return DEFAULT_USER, (), f"is not JSON ({exc.msg} at character {exc.pos})"
    except ValueError:
        return DEFAULT_USER, (), "is not JSON"
    if info is None:
        return DEFAULT_USER, (), ""
    if not isinstance(info, Mapping):
        return DEFAULT_USER, (), "is not a JSON object"
    user: Any = None
    groups: Any = None
    for key, value in info.items():  # the last key matching a field wins, as in encoding/json
        if str(key).lower() == "user":
            user = value
        elif str(key).lower() == "groups":
            groups = value
    if not (user is None or isinstance(user, str)):
        return DEFAULT_USER, (), "has a user that is not a JSON string"
    if not (groups is None or (isinstance(groups, list) and all(isinstance(g, str) for g in groups))):
        return DEFAULT_USER, (), "has groups that are not a JSON list of strings"
    return user or DEFAULT_USER, tuple(groups or ()), ""


SCHEDULING_POLICY = DOMAIN + "schedulingPolicyParameters"
PLACEHOLDER_TIMEOUT = "placeholderTimeoutInSeconds"
GANG_STYLE = "gangSchedulingStyle"


def gang_policy(raw: str) -> GangPolicy:
    """k8shim ``GetSchedulingPolicyParam``: the timeout ``ParseInt`` reads (0 when it cannot, the core's default
    then), the style Hard only when written so (Soft otherwise); see :func:`scheduling_policy_problems`."""
    timeout, style = 0, SOFT
    for part in raw.split(" "):
        pair = part.split("=")
        if len(pair) != 2:
            continue
        if pair[0] == PLACEHOLDER_TIMEOUT and re.fullmatch(r"[+-]?[0-9]+", pair[1]) \
                and -(2**63) <= int(pair[1]) < 2**63:
            timeout = int(pair[1])
        elif pair[0] == GANG_STYLE and pair[1] == HARD:
            style = HARD
    return GangPolicy(timeout, style)


def scheduling_policy_problems(raw: str | None) -> list[str]:
    """k8shim ``GetSchedulingPolicyParam``: space-separated ``key=value`` pairs; what the shim does with each one it
    cannot use (a pair without one ``=`` is skipped, a timeout ``ParseInt`` refuses is 0, the core's default, a
    style other than Hard or Soft is Soft, an unknown key is ignored)."""
    found: list[str] = []
    for part in (raw or "").split(" "):
        if not part:
            continue
        pair = part.split("=")
        if len(pair) != 2:
            found.append(f"has {part!r}, not one key=value: the shim skips it")
        elif pair[0] == PLACEHOLDER_TIMEOUT:
            if not re.fullmatch(r"[+-]?[0-9]+", pair[1]) or not -(2**63) <= int(pair[1]) < 2**63:
                found.append(f"has {part!r}, not a whole number of seconds: the shim uses 0, the core's default "
                             "placeholder timeout (15 minutes)")
            elif int(pair[1]) < 0:
                found.append(f"has {part!r}, a negative timeout: the core uses its default placeholder timeout "
                             "(15 minutes)")
        elif pair[0] == GANG_STYLE:
            if pair[1] not in ("Hard", "Soft"):
                found.append(f"has {part!r}, neither Hard nor Soft: the shim uses Soft")
        else:
            found.append(f"has {part!r}, a key the shim does not know ({PLACEHOLDER_TIMEOUT} or {GANG_STYLE}): "
                         "it is ignored")
    return found


def _priority(spec: Mapping[str, Any], class_name: str, classes: dict[str, Any]) -> int:
    """P1: spec.priority, else what the API server's priority admission would set from the PriorityClass."""
    if isinstance(spec.get("priority"), int) and not isinstance(spec.get("priority"), bool):
        return int(spec["priority"])
    if class_name in classes:
        return _int(classes[class_name].get("value"))
    for body in classes.values():
        if body.get("globalDefault") is True:
            return _int(body.get("value"))
    return 0


def _preemption_policy(spec: Mapping[str, Any], class_name: str, classes: dict[str, Any]) -> str:
    policy = spec.get("preemptionPolicy")
    if isinstance(policy, str):
        return policy
    body = classes.get(class_name)
    return str(body.get("preemptionPolicy") or "PreemptLowerPriority") if body else "PreemptLowerPriority"


def _allow_self(notes: Mapping[str, str], class_name: str, classes: dict[str, Any]) -> bool:
    """``isPreemptSelfAllowed``: the pod annotation if true/false, else the PriorityClass's opt-out."""
    value = notes.get(ALLOW_PREEMPTION)
    if value in ("true", "false"):
        return value == "true"
    body = classes.get(class_name)
    return _allow_preemption(body) if body else True


def _created(meta: Mapping[str, Any], obj: LoadedObject, snapshot: Snapshot) -> datetime:
    raw = meta.get("creationTimestamp")
    if raw is None:
        assert snapshot.now is not None
        return snapshot.now
    try:
        return _parse_created(raw) if type(raw) is str else parse_time(raw, ("metadata", "creationTimestamp"))
    except ModelError as exc:
        raise InputError(obj.origin.file, f"{obj.describe()}: {exc}", obj.line_of(("metadata",
                                                                                   "creationTimestamp"))) from None


@functools.lru_cache(maxsize=16384)
def _parse_created(raw: str) -> datetime:
    """A creation timestamp's text, parsed once: the pods of one application usually share it (a datetime is
    immutable, so sharing it is safe; a text that does not parse raises each time, as it is not cached)."""
    return parse_time(raw, ("metadata", "creationTimestamp"))


def _mapping(value: Any) -> Mapping[str, Any]:
    if type(value) is dict:  # nearly always: the ABC check below is slow on 50,000 pods
        return value
    return value if isinstance(value, Mapping) else {}


def _sequence(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else 0
