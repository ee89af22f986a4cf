"""validate --cache DIR: per-file results reused while the file, kqctl and the flags are unchanged; cross-object
checks always run again. The speed is benchmarks/bench_validate_cache.py's to measure, not a test's."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support import REPO, run_kqctl

from kqctl.cli.schedulers import target_releases, validation_profiles
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
