"""YuniKorn pod annotations the shim cannot read (YK-POD-ANNOTATION): it logs the problem and carries on with a
default, so nothing on the pod says the application is no gang or runs as nobody.

- ``task-groups`` that ``GetTaskGroupsFromAnnotation`` rejects (not JSON, a group without a name, minResource or
  a positive minMember, a bad or colliding quantity): the application gets no task groups and is no gang
  (not read at all with ``service.disableGangScheduling``);
- ``user.info`` that does not unmarshal (``GetUserFromPod``): the user is nobody, with no groups (the admission
  controller refuses such a pod unless its accessControl.bypassAuth is set);
- ``schedulingPolicyParameters`` pairs ``GetSchedulingPolicyParam`` cannot use: skipped, a timeout of 0 (the
  core's default) or the Soft style.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kqctl.findings import Finding, warning
from kqctl.load.objects import LoadedObject
from kqctl.yunikorn import kinds, load


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
        policy = notes.get(load.SCHEDULING_POLICY)
        for why in load.scheduling_policy_problems(policy if isinstance(policy, str) else None):
            yield obj, _warning(load.SCHEDULING_POLICY, why, "space-separated placeholderTimeoutInSeconds=<seconds> "
                                "and gangSchedulingStyle=Hard|Soft")


def _warning(key: str, why: str, hint: str) -> Finding:
    return warning("YK-POD-ANNOTATION", ("metadata", "annotations", key), f"annotation {key} {why}", hint)
