"""validate --cache DIR: per-file results reused while the file, kqctl and the flags are unchanged; cross-object
checks always run again. The speed is benchmarks/bench_validate_cache.py's to measure, not a test's."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from support import REPO, run_kqctl

from kqctl.cli.schedulers import kinds_for, target_releases, validation_profiles
from kqctl.cli.validate import run_validation
from kqctl.validate.cache import open_cache
from kqctl.validate.skip import Skipping

SAMPLES = sorted(p.name for p in (REPO / "samples").iterdir() if p.is_dir())
CQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
"""
LQ = """apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
"""


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_cached_run_says_exactly_what_an_uncached_one_says(sample: str, tmp_path: Path) -> None:
    path = str(REPO / "samples" / sample)
    plain = run_kqctl("validate", "-R", path, "-o", "json")
    first = run_kqctl("validate", "-R", path, "-o", "json", "--cache", str(tmp_path / "cache"))
    second = run_kqctl("validate", "-R", path, "-o", "json", "--cache", str(tmp_path / "cache"))
    assert plain.out == first.out == second.out and plain.code == first.code == second.code


def validate(paths: list[str], cache_dir: Path, skip: tuple[str, ...] = ()) -> tuple[dict[str, object], int, int]:
    skipping = Skipping.parse(list(skip), False)
    cache = open_cache(cache_dir, [f"skip={','.join(sorted(skipping.kinds))}"])
    report, _ = run_validation(paths, False, False, False, 1, validation_profiles(None), None, skipping, cache)
    rules = {d.origin.file: [f.rule_id for f in d.findings] for d in report.documents}
    return rules, cache.hits, cache.misses


def test_only_changed_files_are_validated_again_and_cross_object_checks_always_run(tmp_path: Path) -> None:
    queues, local = tmp_path / "cq.yaml", tmp_path / "lq.yaml"
    queues.write_text(CQ)
    local.write_text(LQ)
    cache = tmp_path / "cache"
    rules, hits, misses = validate([str(queues), str(local)], cache)
    assert (hits, misses) == (0, 2) and rules[str(local)] == []
    rules, hits, misses = validate([str(queues), str(local)], cache)
    assert (hits, misses) == (2, 0) and rules[str(local)] == []
    queues.write_text(CQ.replace("name: cq", "name: other"))  # lq.yaml unchanged, its ClusterQueue gone
    rules, hits, misses = validate([str(queues), str(local)], cache)
    assert (hits, misses) == (1, 1)
    assert rules[str(local)] == ["XO-LQ-CQ"]  # found on the cached file: the cross-object checks ran again


def test_another_setting_is_another_cache(tmp_path: Path) -> None:
    (tmp_path / "lq.yaml").write_text(LQ)
    cache = tmp_path / "cache"
    validate([str(tmp_path / "lq.yaml")], cache)
    _, hits, misses = validate([str(tmp_path / "lq.yaml")], cache, skip=("LocalQueue",))
    assert (hits, misses) == (0, 1)
    assert len(list(cache.iterdir())) == 2


def test_one_entry_per_file(tmp_path: Path) -> None:
    path = tmp_path / "lq.yaml"
    cache = tmp_path / "cache"
    for namespace in ("a", "b", "c"):
        path.write_text(LQ.replace("team-a", namespace))
        validate([str(path)], cache)
    (setting,) = cache.iterdir()
    assert len(list(setting.glob("*.part"))) == 1


def test_the_target_releases_are_part_of_the_setting(tmp_path: Path) -> None:
    (tmp_path / "lq.yaml").write_text(LQ)
    args = ("validate", str(tmp_path / "lq.yaml"), "--cache", str(tmp_path / "cache"))
    run_kqctl(*args)
    run_kqctl(*args, "--kueue-version", "v0.19")
    assert len(list((tmp_path / "cache").iterdir())) == 2
    assert target_releases({})["kueue"].reference


def test_under_pre_commit_the_users_cache_directory_is_the_default(tmp_path: Path) -> None:
    (tmp_path / "lq.yaml").write_text(LQ)
    env = {"PRE_COMMIT": "1", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert run_kqctl("validate", str(tmp_path / "lq.yaml"), env=env).code == 0
    assert list((tmp_path / "xdg" / "kqctl" / "validate").glob("*/*.part"))
    run_kqctl("validate", str(tmp_path / "lq.yaml"), "--no-cache", env={**env, "XDG_CACHE_HOME": str(tmp_path / "n")})
    assert not (tmp_path / "n").exists()


def test_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    (tmp_path / "lq.yaml").write_text(LQ)
    run = run_kqctl("validate", str(tmp_path / "lq.yaml"), "--cache", str(shared))
    assert run.code == 2 and "writable by another user" in run.err


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    (tmp_path / "lq.yaml").write_text(LQ)
    cache = tmp_path / "cache"
    validate([str(tmp_path / "lq.yaml")], cache)
    for entry in cache.glob("*/*.part"):
        entry.write_bytes(b"not a pickle")
    rules, hits, misses = validate([str(tmp_path / "lq.yaml")], cache)
    assert (hits, misses) == (0, 1) and rules[str(tmp_path / "lq.yaml")] == ["XO-LQ-CQ"]


def test_cache_with_what_ifs_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "lq.yaml").write_text(LQ)
    run = run_kqctl("validate", str(tmp_path / "lq.yaml"), "--cache", str(tmp_path / "c"), "--set",
                    "localqueue/team-a/lq.spec.clusterQueue=x")
    assert run.code == 2 and "--cache" in run.err


def test_unreadable_files_are_reported_and_never_cached(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [")
    for _ in range(2):
        run = run_kqctl("validate", str(broken), "--cache", str(tmp_path / "c"), "-o", "json")
        assert run.code == 3
        assert json.loads(run.out)["documents"][0]["findings"][0]["ruleId"] == "LOAD-UNREADABLE"
    assert not list((tmp_path / "c").glob("*/*.part"))


# --- reusing Workload findings (Kueue's cross-object subjects) while the configuration is unchanged ---------------

CONFIG = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
"""


def workload(name: str, cpu: str, queue: str = "lq", memory: str | None = None, priority: str | None = None) -> str:
    requests = f"cpu: {cpu}" + (f", memory: {memory}" if memory else "")
    reference = f"\n  priority: 1000\n  priorityClassRef: {{group: kueue.x-k8s.io, kind: WorkloadPriorityClass," \
        f" name: {priority}}}" if priority else ""
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {{name: {name}, namespace: team-a}}
spec:
  queueName: {queue}{reference}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources:
            requests: {{{requests}}}
"""


WORKLOADS = "---\n".join([
    workload("fits", "2"),
    workload("too-big", "20"),  # XO-WL-NEVER-FITS while the quota is 8
    workload("memory", "1", memory="1Gi"),  # XO-WL-UNCOVERED: cq covers cpu only
    workload("lost", "1", queue="lq-typo"),  # XO-WL-LQ
    workload("classy", "1", priority="high"),  # XO-WL-PRIORITY once the class is gone
])


def answer(paths: list[Path], cache_dir: Path | None, closed: bool = False, jobs: int = 1) -> str:
    """validate -o json of ``paths`` (in one process unless ``jobs``), with the cache in ``cache_dir`` (None: none)."""
    import io

    from kqctl.render.validation import render_validation

    cache = open_cache(cache_dir, ["s"]) if cache_dir is not None else None
    report, _ = run_validation([str(p) for p in paths], False, False, closed, jobs, validation_profiles(None), None,
                               Skipping(), cache)
    out = io.StringIO()
    render_validation(report, "json", out, color="never")
    return out.getvalue()


def workload_rules(text: str) -> dict[str, list[str]]:
    return {d["name"]: [f["ruleId"] for f in d["findings"]] for d in json.loads(text)["documents"]
            if d["kind"] == "Workload"}


def kept_entries(cache_dir: Path) -> dict[str, float]:
    return {entry.name: entry.stat().st_mtime_ns for entry in cache_dir.glob("*/*.part")}


@pytest.fixture
def inputs(tmp_path: Path) -> tuple[Path, Path]:
    config, workloads = tmp_path / "a-config.yaml", tmp_path / "b-workloads.yaml"
    config.write_text(CONFIG)
    workloads.write_text(WORKLOADS)
    return config, workloads


def test_workload_findings_are_reused_only_while_the_configuration_is_the_same(inputs: tuple[Path, Path],
                                                                            tmp_path: Path) -> None:
    config, workloads = inputs
    cache = tmp_path / "cache"
    first = answer([config, workloads], cache)
    assert workload_rules(first) == {"fits": [], "too-big": ["XO-WL-NEVER-FITS"], "memory": ["XO-WL-UNCOVERED"],
                                     "lost": ["XO-WL-LQ"], "classy": []}
    entries = kept_entries(cache)
    assert answer([config, workloads], cache) == first == answer([config, workloads], None)
    assert kept_entries(cache) == entries  # nothing changed: nothing written again
    # The ClusterQueue changes in the file that changed; the workloads' file is unchanged, its findings are not.
    config.write_text(CONFIG.replace("nominalQuota: 8", "nominalQuota: 32").replace("value: 1000", "value: 7")
                      .replace("name: high", "name: low"))
    second = answer([config, workloads], cache)
    assert second == answer([config, workloads], None)
    assert workload_rules(second) == {"fits": [], "too-big": [], "memory": ["XO-WL-UNCOVERED"], "lost": ["XO-WL-LQ"],
                                      "classy": ["XO-WL-PRIORITY"]}
    assert answer([config, workloads], cache) == second


def test_the_configuration_changes_without_its_file_changing(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    config, workloads = inputs
    cache = tmp_path / "cache"
    answer([config, workloads], cache)
    # An earlier file now defines the ClusterQueue (the unchanged one's is a duplicate, and takes no part).
    earlier = tmp_path / "0-bigger.yaml"
    bigger = "{name: cpu, nominalQuota: 64}\n      - {name: memory, nominalQuota: 1Ti}"
    earlier.write_text(CONFIG.split("---\n")[1].replace("[cpu]", "[cpu, memory]")
                       .replace("{name: cpu, nominalQuota: 8}", bigger))
    both = answer([earlier, config, workloads], cache)
    assert both == answer([earlier, config, workloads], None)
    assert workload_rules(both)["too-big"] == [] and workload_rules(both)["memory"] == []
    # The configuration's file is left out: every reference is missing now.
    alone = answer([workloads], cache)
    assert alone == answer([workloads], None)
    assert workload_rules(alone)["fits"] == ["XO-WL-LQ"]
    assert answer([config, workloads], cache) == answer([config, workloads], None)


def test_closed_is_part_of_the_fingerprint(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    config, workloads = inputs
    cache = tmp_path / "cache"
    assert answer([config, workloads], cache) == answer([config, workloads], None)
    closed = answer([config, workloads], cache, closed=True)
    assert closed == answer([config, workloads], None, closed=True)
    assert '"severity": "error"' in closed
    assert answer([config, workloads], cache) == answer([config, workloads], None)


def test_a_cached_workload_that_becomes_a_duplicate_takes_no_part(inputs: tuple[Path, Path], tmp_path: Path) -> None:
    config, workloads = inputs
    cache = tmp_path / "cache"
    answer([config, workloads], cache)
    earlier = tmp_path / "a0-same-workload.yaml"
    earlier.write_text(workload("too-big", "1"))  # the cached file's too-big is now the second one
    with_duplicate = answer([earlier, config, workloads], cache)
    assert with_duplicate == answer([earlier, config, workloads], None)
    rules = [f["ruleId"] for d in json.loads(with_duplicate)["documents"] if d["name"] == "too-big"
             for f in d["findings"]]
    assert rules == ["LOAD-DUPLICATE"]
    assert answer([config, workloads], cache) == answer([config, workloads], None)  # and back


def test_a_changed_workload_file_is_checked_against_the_unchanged_configuration(inputs: tuple[Path, Path],
                                                                                tmp_path: Path) -> None:
    config, workloads = inputs
    cache = tmp_path / "cache"
    answer([config, workloads], cache)
    workloads.write_text(WORKLOADS.replace('"20"', '"4"').replace("cpu: 20", "cpu: 4"))
    changed = answer([config, workloads], cache)
    assert changed == answer([config, workloads], None)
    assert workload_rules(changed)["too-big"] == []


def test_an_input_without_a_schedulers_kinds_skips_its_checks_with_the_same_answer(tmp_path: Path) -> None:
    # Kueue objects only: Volcano's and YuniKorn's cross-object checks are not asked (no Queue, ConfigMap, Pod...).
    from kqctl.validate import parallel

    (tmp_path / "config.yaml").write_text(CONFIG)
    asked: list[str] = []
    profiles = tuple(dataclasses.replace(p, cross_object=spy(p, asked)) for p in validation_profiles(None))
    job = parallel.Job(kinds_for(None), profiles, False)
    parallel.validate_cached([str(tmp_path / "config.yaml")], job, False, 1, open_cache(tmp_path / "c", ["s"]))
    assert asked == ["kueue"]
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n")
    asked.clear()
    parallel.validate_cached([str(tmp_path / "config.yaml"), str(tmp_path / "ns.yaml")], job, False, 1,
                             open_cache(tmp_path / "c", ["s"]))
    assert asked == ["kueue", "yunikorn"]  # YK-G6 reads namespaces


def spy(profile: Any, asked: list[str]) -> Any:
    def cross_object(objects: Any, closed: bool) -> Any:
        asked.append(profile.scheduler)
        return profile.cross_object(objects, closed)
    return cross_object


def test_workers_validate_the_changed_files_while_the_entries_are_read(inputs: tuple[Path, Path], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from kqctl.validate import parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)  # the overlap as on a large input
    config, workloads = inputs
    extra = tmp_path / "c-more.yaml"
    extra.write_text(workload("more", "100"))
    paths = [config, workloads, extra]
    cache = tmp_path / "cache"
    started: list[int] = []
    validate_parts = parallel.validate_parts

    def spying(files: list[str], job: Any, jobs: int, meanwhile: Any = None) -> Any:
        started.append(len(files))
        assert meanwhile is not None
        return validate_parts(files, job, jobs, meanwhile)

    monkeypatch.setattr(parallel, "validate_parts", spying)
    assert answer(paths, cache, jobs=2) == answer(paths, None)
    extra.write_text(workload("more", "200"))
    warm = answer(paths, cache, jobs=2)
    assert started == [3, 1]  # cold: every file; warm: the changed one (the others' entries read meanwhile)
    assert warm == answer(paths, None) and "XO-WL-NEVER-FITS" in warm


def test_a_hit_names_the_file_as_this_run_was_given_it(tmp_path: Path) -> None:
    """The same file from another working directory: its findings name it as this run's command line does."""
    folder = tmp_path / "in"
    shutil.copytree(REPO / "samples" / "broken", folder)
    cache = ("--cache", str(tmp_path / "cache"))
    run_kqctl("validate", "in/10-schema.yaml", "-o", "json", *cache, cwd=tmp_path)
    inside = run_kqctl("validate", "10-schema.yaml", "-o", "json", *cache, cwd=folder)
    plain = run_kqctl("validate", "10-schema.yaml", "-o", "json", cwd=folder)
    assert inside.out == plain.out and '"10-schema.yaml"' in plain.out
