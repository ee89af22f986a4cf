"""``kqctl explain --cache DIR`` keeps the snapshot it built (kqctl/cli/snapshot_cache.py) and takes it back while
the files, their names, kqctl and the flags are the same: the answer, and what the loading wrote on stderr, are then
byte for byte those of a run without the cache; any change to the inputs is a miss."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from support import REPO, run_kqctl

from kqctl.cli.snapshot_cache import SUFFIX, open_snapshot_cache
from kqctl.kueue.api.snapshot import Snapshot

NOW = ("--now", "2026-01-01T00:00:00Z")
KUEUE_SAMPLES = sorted(p.name for p in (REPO / "samples").iterdir()
                       if p.is_dir() and p.name not in ("broken", "legacy-v1alpha1")
                       and not p.name.startswith(("volcano", "yunikorn")))


def _keys(sample: str, limit: int = 3) -> list[str]:
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.kueue.load import build_snapshot
    from kqctl.load.objects import load_paths

    snapshot = build_snapshot(load_paths(ALL_KINDS, [str(REPO / "samples" / sample)]))
    return sorted(f"{w.namespace}/{w.name}" for w in snapshot.workloads)[:limit]


def _answers(*args: str) -> tuple[int, str, str]:
    run = run_kqctl(*args)
    return run.code, run.out, run.err


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob(f"*{SUFFIX}"))


@pytest.mark.parametrize("sample", KUEUE_SAMPLES)
def test_a_kept_snapshot_answers_exactly_what_a_built_one_answers(sample: str, tmp_path: Path) -> None:
    path = str(REPO / "samples" / sample)
    cache = tmp_path / "cache"
    for key in _keys(sample):
        for output in ("json", "table"):
            args = ("explain", key, path, *NOW, "-o", output)
            plain = _answers(*args)
            first = _answers(*args, "--cache", str(cache))
            second = _answers(*args, "--cache", str(cache))
            assert plain == first == second, (key, output)
    assert len(_entries(cache)) == 1, "one snapshot kept for one set of inputs"


def test_every_workload_selected_with_l_is_explained_alike_from_the_kept_snapshot(tmp_path: Path) -> None:
    args = ("explain", "-l", "kueue.x-k8s.io/job-uid", str(REPO / "samples" / "cohort-borrowing"), *NOW, "-o", "json")
    cache = ("--cache", str(tmp_path / "cache"))
    assert _answers(*args) == _answers(*args, *cache) == _answers(*args, *cache)


def _copy(sample: str, tmp_path: Path) -> Path:
    target = tmp_path / sample
    shutil.copytree(REPO / "samples" / sample, target)
    return target


def test_an_edited_added_or_removed_file_is_a_miss(tmp_path: Path) -> None:
    inputs = _copy("cohort-borrowing", tmp_path)
    args = ("explain", "team-a/job-llm-finetune-0d5b7", str(inputs), *NOW, "-o", "json")
    cache = ("--cache", str(tmp_path / "cache"))
    before = _answers(*args, *cache)
    assert before == _answers(*args)
    # More quota for team-a: the workload now fits, which only a snapshot built again can say.
    queues = next(p for p in sorted(inputs.iterdir()) if "nominalQuota" in p.read_text())
    queues.write_text(queues.read_text().replace("nominalQuota: 20\n", "nominalQuota: 200\n", 1))
    edited = _answers(*args, *cache)
    assert edited == _answers(*args) and edited != before
    extra = inputs / "zz-namespace.yaml"
    extra.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: zz-extra\n")
    added = _answers(*args, *cache)
    assert added == _answers(*args)
    extra.unlink()
    assert _answers(*args, *cache) == _answers(*args) == edited


def test_another_set_or_flag_is_a_miss(tmp_path: Path) -> None:
    sample = str(REPO / "samples" / "cohort-borrowing")
    args = ("explain", "team-a/job-llm-finetune-0d5b7", sample, *NOW, "-o", "json")
    cache = ("--cache", str(tmp_path / "cache"))
    more = ("--set", "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=40")
    assert _answers(*args, *cache) == _answers(*args)
    assert _answers(*args, *more, *cache) == _answers(*args, *more)
    assert _answers(*args, *more, *cache) != _answers(*args, *cache)
    assert len(_entries(tmp_path / "cache")) == 2


def test_a_snapshot_holding_its_clock_serves_that_clock_only(tmp_path: Path) -> None:
    # Jobs without a creationTimestamp get their Workload created at the clock (REQ-1): another --now is a miss.
    sample = str(REPO / "samples" / "submit-jobs")
    key = _keys("submit-jobs", 1)[0]
    cache = ("--cache", str(tmp_path / "cache"))
    for now in ("2026-09-14T10:00:00Z", "2026-09-15T10:00:00Z", "2026-09-14T10:00:00Z"):
        args = ("explain", key, sample, "--now", now, "-o", "json")
        assert _answers(*args, *cache) == _answers(*args), now


def test_a_snapshot_without_a_clock_of_its_own_serves_any_clock(tmp_path: Path) -> None:
    sample = str(REPO / "samples" / "cohort-borrowing")
    cache = ("--cache", str(tmp_path / "cache"))
    for now in ("2026-01-01T00:00:00Z", "2027-03-01T12:00:00Z"):
        args = ("explain", "team-a/job-llm-finetune-0d5b7", sample, "--now", now, "-o", "json")
        assert _answers(*args, *cache) == _answers(*args), now
    assert len(_entries(tmp_path / "cache")) == 1


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path: Path) -> None:
    sample = str(REPO / "samples" / "cohort-borrowing")
    args = ("explain", "team-a/job-llm-finetune-0d5b7", sample, *NOW, "-o", "json")
    cache = ("--cache", str(tmp_path / "cache"))
    expected = _answers(*args)
    assert _answers(*args, *cache) == expected
    (entry,) = _entries(tmp_path / "cache")
    entry.write_bytes(b"not a pickle")
    assert _answers(*args, *cache) == expected
    assert entry.read_bytes() != b"not a pickle"
    assert _answers(*args, *cache) == expected


def test_inputs_that_are_not_plain_files_are_not_kept(tmp_path: Path) -> None:
    assert open_snapshot_cache(tmp_path, ["-"], False, None, False) is None
    assert open_snapshot_cache(tmp_path, [str(tmp_path / "missing.yaml")], False, None, False) is None


def test_an_entry_is_read_only_for_the_content_it_was_built_from(tmp_path: Path) -> None:
    manifest = tmp_path / "a.yaml"
    manifest.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    kept = open_snapshot_cache(tmp_path / "setting", [str(manifest)], False, None, False)
    assert kept is not None and kept.get(now) is None
    kept.put(Snapshot(now=now), 1, "kqctl: note: kept\n", reads_clock=False)
    later = datetime(2026, 2, 1, tzinfo=timezone.utc)
    hit = kept.get(later)
    assert hit is not None and hit.snapshot.now == later and hit.objects == 1 and hit.stderr == "kqctl: note: kept\n"
    kept.put(Snapshot(now=now), 1, "", reads_clock=True)
    assert kept.get(later) is None and kept.get(now) is not None
    manifest.write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n")
    again = open_snapshot_cache(tmp_path / "setting", [str(manifest)], False, None, False)
    assert again is not None and again.path == kept.path and again.get(now) is None
