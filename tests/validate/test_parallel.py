"""Validation on several processes gives exactly the report of one process."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kqctl.cli.schedulers import ALL_KINDS, validation_profiles
from kqctl.load.objects import load_paths
from kqctl.render.validation import render_validation
from kqctl.validate.parallel import Job, validate_files_parallel, worth_parallel
from kqctl.validate.runner import validate_load

CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: {name}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: {flavor}
      resources:
      - name: cpu
        nominalQuota: {quota}
"""
LQ = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {{name: q, namespace: {ns}}}\n" \
     "spec:\n  clusterQueue: {cq}\n"
RF = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"
WL = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: big, namespace: x}
spec:
  queueName: q2
  podSets:
  - name: main
    count: 3
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "2", nvidia.com/gpu: "1"}}
"""


def as_json(report: object) -> str:
    out = io.StringIO()
    render_validation(report, "json", out, tool_version="test")  # type: ignore[arg-type]
    return out.getvalue()


def test_parallel_report_equals_the_single_process_report(tmp_path: Path) -> None:
    files = {
        "a.yaml": RF + "---\n" + CQ.format(name="a", flavor="default", quota=4),
        "b.yaml": CQ.format(name="b", flavor="missing", quota=-1) + "---\n" + LQ.format(ns="x", cq="nope"),
        "c.yaml": CQ.format(name="a", flavor="default", quota=2),
        "d.yaml": "- not\n- an object\n",
        "e.yaml": RF + "---\nkind: [\n",
        "f.yaml": LQ.format(ns="x", cq="a").replace("name: q,", "name: q2,") + "---\n" + WL,
    }
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    profiles = validation_profiles(None)
    parallel, unreadable = validate_files_parallel(paths, Job(ALL_KINDS, profiles, strict=False), closed=True, jobs=2)
    single = validate_load(load_paths(ALL_KINDS, paths), profiles, closed=True)
    assert as_json(parallel) == as_json(single)
    assert unreadable
    rules = {f.rule_id for d in parallel.documents for f in d.findings}
    assert {"LOAD-DUPLICATE", "XO-CQ-FLAVOR", "XO-LQ-CQ", "LOAD-UNREADABLE", "LOAD-NOT-OBJECT",
            "XO-WL-UNCOVERED", "XO-WL-NEVER-FITS"} <= rules


def test_small_inputs_and_stdin_stay_in_one_process(tmp_path: Path) -> None:
    small = tmp_path / "s.yaml"
    small.write_text(RF)
    assert not worth_parallel([str(small), str(small)], jobs=2)
    assert not worth_parallel(["-", str(small)], jobs=2)
    assert not worth_parallel([str(small)], jobs=1)


MIN_COUNT_WL = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: shrinkable, namespace: x}
spec:
  queueName: q
  podSets:
  - not a pod set
  - name: main
    count: 3
    minCount: 2
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "2"}}
  - name: big
    count: 4
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "2"}}
"""


def test_parallel_cross_object_checks_see_min_count_and_pod_set_positions_req13(tmp_path: Path) -> None:
    """Workers send trimmed Workloads: the checks must still see minCount (main fits at 2 pods of 2 cpu in
    a quota of 4) and name the pod set by its own index (spec.podSets[2], after a malformed entry)."""
    (tmp_path / "a.yaml").write_text(RF + "---\n" + CQ.format(name="a", flavor="default", quota=4)
                                     + "---\n" + LQ.format(ns="x", cq="a"))
    (tmp_path / "b.yaml").write_text(MIN_COUNT_WL)
    paths = [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]
    profiles = validation_profiles(None)
    parallel, _ = validate_files_parallel(paths, Job(ALL_KINDS, profiles, strict=False), closed=False, jobs=2)
    single = validate_load(load_paths(ALL_KINDS, paths), profiles)
    assert as_json(parallel) == as_json(single)
    never_fits = [f for d in parallel.documents for f in d.findings if f.rule_id == "XO-WL-NEVER-FITS"]
    assert [f.path for f in never_fits] == [("spec", "podSets", 2)]


def test_a_trimmed_workload_survives_the_trip_between_processes() -> None:
    import pickle

    from kqctl.kueue.validate.crossobject import TrimmedWorkload, trimmed
    from kqctl.load.objects import load_text

    (obj,) = load_text(ALL_KINDS, MIN_COUNT_WL, "w.yaml").objects
    light = trimmed(obj)
    # REQ-13: main may shrink to its minCount of 2 pods; big needs all 4.
    assert isinstance(light, TrimmedWorkload) and light.pod_set_totals == [(), (("cpu", 4000),), (("cpu", 8000),)]
    assert pickle.loads(pickle.dumps(light)) == light


def test_the_gil_switch_interval_is_short_while_workers_send_results_and_restored_after(tmp_path: Path) -> None:
    """Workers' results arrive through a 64 KiB pipe that this process's result thread drains: with the default
    5 ms switch interval a worker sat idle about 0.2 s per large file. The interval is the caller's again after."""
    import sys

    import kqctl.validate.parallel as parallel

    seen: list[float] = []
    original = parallel._files_taken

    def spying(*arguments: Any) -> Iterator[tuple[int, parallel.FilePart]]:
        seen.append(sys.getswitchinterval())  # this process takes files while the workers send theirs
        return original(*arguments)

    paths = []
    for i in range(2):
        (tmp_path / f"{i}.yaml").write_text(RF)
        paths.append(str(tmp_path / f"{i}.yaml"))
    before = sys.getswitchinterval()
    parallel._files_taken = spying  # type: ignore[assignment]
    try:
        validate_files_parallel(paths, Job(ALL_KINDS, validation_profiles(None), strict=False), closed=False, jobs=2)
    finally:
        parallel._files_taken = original  # type: ignore[assignment]
    assert seen and all(interval == parallel.RESULT_SWITCH_INTERVAL for interval in seen)
    assert sys.getswitchinterval() == before
