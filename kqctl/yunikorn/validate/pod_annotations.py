"""YuniKorn pod annotations the shim cannot read (YK-POD-ANNOTATION): it logs the problem and carries on with a
default, so nothing on the pod says the application is no gang or runs as nobody.

- ``task-groups`` that ``GetTaskGroupsFromAnnotation`` rejects (not JSON, a group without a name, minResource or
  a positive minMember, a bad or colliding quantity): the application gets no task groups and is no gang
  (not read at all with ``service.disableGangScheduling``);
- ``user.info`` that does not unmarshal (``GetUserFromPod``): the user is nobody, with no groups (the admission
  controller refuses such a pod unless its accessControl.bypassAuth is set);
- ``schedulingPolicyParameters`` pairs ``GetSchedulingPolicyParam`` cannot use: skipped, a timeout of 0 (the
  core's default) or the Soft style.

And a ``task-group-name`` naming a group its application does not declare (YK-POD-TASK-GROUP): the shim passes the
name on unchecked (``createTaskInternal``), and the core, holding no placeholder of that group (``canReplace``),
allocates the pod as an ordinary ask, as the simulation does; it replaces none of the application's placeholders.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kqctl.errors import InputError
from kqctl.findings import Finding, warning
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.yunikorn import kinds, load
from kqctl.yunikorn.api.snapshot import PodInfo, gang_pod


def annotation_problems(objects: Sequence[LoadedObject]) -> Iterator[tuple[LoadedObject, Finding]]:
    pods = [obj for obj in objects if obj.kind == "Pod" and obj.api_version == "v1" and isinstance(obj.body, dict)
            and kinds.is_yunikorn_pod(obj.body)]
    if not pods:
        return
    gang = not load.gang_scheduling_disabled(list(objects))
    for obj in pods:
        notes = obj.metadata.get("annotations")
        if not isinstance(notes, dict):
            continue
        groups = notes.get(load.TASK_GROUPS)
        if gang and isinstance(groups, str) and (why := load.task_groups(groups)[1]):
            yield obj, _warning(load.TASK_GROUPS, f"{why}: the shim logs the error and the application gets no task "
                                "groups, so it is no gang (no placeholders, no minimum reserved)",
                                'a JSON list of task groups, e.g. [{"name": "workers", "minMember": 2, '
                                '"minResource": {"cpu": "1", "memory": "1Gi"}}]')
        user = notes.get(load.USER_INFO)
        if isinstance(user, str) and (why := load.user_info(user)[2]):
            yield obj, _warning(load.USER_INFO, f"{why}: the shim logs the error and the application's user is "
                                f"{load.DEFAULT_USER}, with no groups (the admission controller refuses the pod unless "
                                "its bypassAuth is set)", 'a JSON object such as {"user": "alice", "groups": '
                                '["team-a"]}, or leave it out and let the admission controller set it')
        if load.OLD_PLACEHOLDER_FLAG in notes and load.PLACEHOLDER_FLAG not in notes:
            yield obj, _warning(load.OLD_PLACEHOLDER_FLAG, "marked placeholder pods before YuniKorn 1.6; the shim now "
                                f"reads {load.PLACEHOLDER_FLAG}, so to it (and to kqctl) this is an ordinary pod, and "
                                "its application's placeholders are made anew", f"{load.PLACEHOLDER_FLAG}: \"true\" "
                                "(what YuniKorn 1.6 and later set on the placeholders it makes)")
        policy = notes.get(load.SCHEDULING_POLICY)
        for why in load.scheduling_policy_problems(policy if isinstance(policy, str) else None):
            yield obj, _warning(load.SCHEDULING_POLICY, why, "space-separated placeholderTimeoutInSeconds=<seconds> "
                                "and gangSchedulingStyle=Hard|Soft")
    if gang:
        yield from _unknown_task_groups(objects, pods)


def _warning(key: str, why: str, hint: str) -> Finding:
    return warning("YK-POD-ANNOTATION", ("metadata", "annotations", key), f"annotation {key} {why}", hint)


def _unknown_task_groups(objects: Sequence[LoadedObject], pods: list[LoadedObject]
                         ) -> Iterator[tuple[LoadedObject, Finding]]:
    """A pod whose task-group-name its application's task groups (those of :func:`gang_pod`, as the simulation
    takes them) do not list."""
    named = {(obj.namespace or "default", obj.name or ""): obj for obj in pods if _task_group_name(obj)}
    if not named:
        return  # the common case: no snapshot to build
    try:
        snapshot = load.build_snapshot(LoadResult(list(objects), []))
    except InputError:
        return  # inputs the simulation cannot read have no applications to check against; validate says why
    apps: dict[str, list[PodInfo]] = {}
    for info in snapshot.pods:
        apps.setdefault(info.app_id, []).append(info)
    for members in apps.values():
        gang = gang_pod(members)
        for info in members:
            obj = named.get((info.namespace, info.name))
            declared = gang.task_groups if gang else ()
            # a placeholder the shim made is no ordinary pod whatever group it names: it is not the user's to fix
            if obj is not None and not info.is_placeholder and info.task_group not in declared:
                yield obj, _unknown_group(info, gang)


def _task_group_name(obj: LoadedObject) -> bool:
    notes = obj.metadata.get("annotations")
    return isinstance(notes, dict) and bool(notes.get(load.TASK_GROUP_NAME))


def _unknown_group(info: PodInfo, gang: PodInfo | None) -> Finding:
    name, key = info.task_group, load.TASK_GROUP_NAME
    if gang is None or not gang.task_groups:
        why = (f"names task group {name}, but application {info.app_id} declares no task groups (no pod of it has "
               f"a {load.TASK_GROUPS} annotation the shim reads, or it lists none): the application is no gang and "
               "the pod is scheduled as an ordinary pod")
        hint = f"declare the group in {load.TASK_GROUPS} on the application's pods, or leave {key} out"
    else:
        where = "this pod" if gang.key == info.key else f"pod {gang.key}"
        groups = ", ".join(gang.task_groups)
        why = (f"names task group {name}, which application {info.app_id} does not declare (its {load.TASK_GROUPS}, "
               f"on {where}: {groups}): the core holds no placeholder of that group for the pod to replace and "
               "allocates it as an ordinary pod, outside the gang")
        hint = f"name one of the application's task groups ({' or '.join(gang.task_groups)}), or declare {name} in " \
            f"{load.TASK_GROUPS}"
    return warning("YK-POD-TASK-GROUP", ("metadata", "annotations", key), f"annotation {key} {why}", hint)
