"""--cache DIR on the commands that answer (simulate, explain, audit, replay, diff, plan): each file as read and
checked is kept, and taken back while the file, its name, kqctl and the flags are unchanged. The gate (DEF-3)
admits the taken objects exactly as it admits freshly read ones: the answers are the same, byte for byte. The speed
is benchmarks/bench_engine.py's to measure, not a test's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import REPO, run_kqctl

from kqctl.cli.schedulers import kinds_for, validation_profiles
from kqctl.validate.cache import open_read_cache
from kqctl.validate.gate import Checks
from kqctl.validate.parallel import read_checked

SAMPLES = sorted(p.name for p in (REPO / "samples").iterdir() if p.is_dir() and p.name != "broken"
                 and p.name != "volcano-broken" and p.name != "yunikorn-broken")
COMMANDS = {"simulate": ("simulate",), "audit": ("audit",)}


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_cached_run_answers_exactly_what_an_uncached_one_answers(sample: str, command: str, tmp_path: Path) -> None:
    path = str(REPO / "samples" / sample)
    args = (*COMMANDS[command], path, "-o", "json", "--now", "2026-01-01T00:00:00Z") if command == "simulate" \
        else (*COMMANDS[command], path, "-o", "json")
    plain = run_kqctl(*args)
    first = run_kqctl(*args, "--cache", str(tmp_path / "cache"))
    second = run_kqctl(*args, "--cache", str(tmp_path / "cache"))
    assert (plain.code, plain.out, plain.err) == (first.code, first.out, first.err) == \
        (second.code, second.out, second.err)
    assert list((tmp_path / "cache").rglob("*.read")), "every file read without error is kept"


def test_explain_replay_diff_and_plan_take_the_cache_too(tmp_path: Path) -> None:
    sample = str(REPO / "samples" / "replay")
    borrowing = str(REPO / "samples" / "cohort-borrowing")
    cache = ("--cache", str(tmp_path / "cache"))
    more_cpu = "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=40"
    for args in (("diff", borrowing, borrowing, "--set", more_cpu, "-o", "json"),
                 ("explain", "team-b/job-finetune-llama-cb6db", sample, "--now", "2026-01-01T00:00:00Z", "-o", "json"),
                 ("replay", sample, "--now", "2026-01-01T00:00:00Z", "-o", "json"),
                 ("plan", sample, "--now", "2026-09-14T09:00:00Z", "--for", "clusterqueue/team-a", "--target",
                  "p95(time-to-admission) < 10m", "--budget", "3", "-o", "json")):
        plain, first, second = run_kqctl(*args), run_kqctl(*args, *cache), run_kqctl(*args, *cache)
        assert plain.code == first.code == second.code and plain.out == first.out == second.out, args


def read(paths: list[str], cache_dir: Path, strict: bool = False) -> tuple[list[dict[str, object]], int, int]:
    cache = open_read_cache(cache_dir, [f"strict={strict}"])
    checks = Checks(validation_profiles(None))
    result = read_checked(kinds_for(None), paths, strict, checks, [], jobs=1, cache=cache)
    return [obj.body for obj in result.objects], cache.hits, cache.misses


def test_only_changed_files_are_read_again(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    shutil.copytree(REPO / "samples" / "cohort-borrowing", sample)
    files = sorted(str(p) for p in sample.iterdir())
    cold, hits, misses = read(files, tmp_path / "cache")
    assert (hits, misses) == (0, len(files))
    warm, hits, misses = read(files, tmp_path / "cache")
    assert (hits, misses) == (len(files), 0) and warm == cold
    changed = Path(files[0])
    changed.write_text(changed.read_text().replace("nominalQuota: 20", "nominalQuota: 7"))
    _, hits, misses = read(files, tmp_path / "cache")
    assert (hits, misses) == (len(files) - 1, 1)
    assert len(list((tmp_path / "cache").rglob("*.read"))) == len(files), "one entry per file: the older one goes"


def test_a_changed_file_changes_the_answer_not_a_stale_entry(tmp_path: Path) -> None:
    sample = tmp_path / "sample"
    shutil.copytree(REPO / "samples" / "cohort-borrowing", sample)
    cache = ("--cache", str(tmp_path / "cache"))
    before = run_kqctl("simulate", str(sample), "-o", "json", "--now", "2026-01-01T00:00:00Z", *cache)
    queues = next(p for p in sample.iterdir() if "nominalQuota" in p.read_text())
    queues.write_text(queues.read_text().replace("nominalQuota:", "nominalQuota: 0 #", 1))
    plain = run_kqctl("simulate", str(sample), "-o", "json", "--now", "2026-01-01T00:00:00Z")
    after = run_kqctl("simulate", str(sample), "-o", "json", "--now", "2026-01-01T00:00:00Z", *cache)
    assert (after.code, after.out) == (plain.code, plain.out) and after.out != before.out


def test_a_file_the_gate_refuses_is_refused_the_same_way_from_the_cache(tmp_path: Path) -> None:
    bad = tmp_path / "cq.yaml"
    bad.write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\n"
                   "spec:\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: f\n"
                   "      resources:\n      - {name: cpu, nominalQuota: '-1'}\n")
    cache = ("--cache", str(tmp_path / "cache"))
    plain = run_kqctl("simulate", str(bad))
    first, second = run_kqctl("simulate", str(bad), *cache), run_kqctl("simulate", str(bad), *cache)
    assert plain.code == first.code == second.code == 3
    assert plain.err == first.err == second.err and "cq.yaml" in plain.err


def test_an_entry_names_the_file_as_this_run_was_given_it(tmp_path: Path) -> None:
    """The same file under another name (another working directory): a miss, not the earlier run's name."""
    folder = tmp_path / "in"
    shutil.copytree(REPO / "samples" / "broken", folder)
    cache = ("--cache", str(tmp_path / "cache"))
    from_parent = run_kqctl("simulate", "in/00-base.yaml", "in/10-schema.yaml", *cache, cwd=tmp_path)
    from_inside = run_kqctl("simulate", "00-base.yaml", "10-schema.yaml", *cache, cwd=folder)
    plain = run_kqctl("simulate", "00-base.yaml", "10-schema.yaml", cwd=folder)
    assert from_parent.code == from_inside.code == plain.code == 3
    assert "in/10-schema.yaml" in from_parent.err and from_inside.err == plain.err and "in/" not in from_inside.err


def test_a_damaged_entry_is_a_miss(tmp_path: Path) -> None:
    path = str(REPO / "samples" / "cohort-borrowing")
    cache = ("--cache", str(tmp_path / "cache"))
    plain = run_kqctl("simulate", path, "-o", "json", "--now", "2026-01-01T00:00:00Z")
    run_kqctl("simulate", path, "-o", "json", "--now", "2026-01-01T00:00:00Z", *cache)
    for entry in (tmp_path / "cache").rglob("*.read"):
        entry.write_bytes(b"not a pickle")
    damaged = run_kqctl("simulate", path, "-o", "json", "--now", "2026-01-01T00:00:00Z", *cache)
    assert (damaged.code, damaged.out) == (plain.code, plain.out)


def test_the_cache_is_its_own_setting_beside_validates(tmp_path: Path) -> None:
    path = str(REPO / "samples" / "cohort-borrowing")
    run_kqctl("validate", path, "--cache", str(tmp_path / "cache"))
    run_kqctl("simulate", path, "--cache", str(tmp_path / "cache"))
    run_kqctl("simulate", path, "--strict", "--cache", str(tmp_path / "cache"))
    assert len([p for p in (tmp_path / "cache").iterdir() if p.is_dir()]) == 3


@pytest.mark.parametrize("args", [("simulate", "--from-cluster"), ("simulate", "--as-given"),
                                  ("replay", "--generator", "examples/kueue-generator.yaml"),
                                  ("plan", "--generator", "examples/kueue-generator.yaml", "--for", "cohort/cohort-0",
                                   "--target", "p95(time-to-admission) < 2m")])
def test_cache_where_nothing_is_read_from_files_is_a_usage_error(args: tuple[str, ...], tmp_path: Path) -> None:
    result = run_kqctl(*args, *(() if "--generator" in args else (str(REPO / "samples" / "cohort-borrowing"),)),
                       "--cache", str(tmp_path / "cache"))
    assert result.code == 2 and "--cache" in result.err and "Traceback" not in result.err


def test_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    result = run_kqctl("simulate", str(REPO / "samples" / "cohort-borrowing"), "--cache", str(shared))
    assert result.code == 2 and "another user" in result.err


def test_files_read_on_every_core_are_kept_and_taken_back_the_same(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from kqctl.validate import parallel

    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)  # every input is worth a second process here
    files = sorted(str(p) for p in (REPO / "samples" / "preemption").iterdir() if p.suffix == ".yaml")
    cache = open_read_cache(tmp_path / "cache", ["s"])
    plain = read_checked(kinds_for(None), files, False, Checks(validation_profiles(None)), [], jobs=2)
    checks = Checks(validation_profiles(None))
    cold = read_checked(kinds_for(None), files, False, checks, [], jobs=2, cache=cache)
    warm_checks = Checks(validation_profiles(None))
    warm = read_checked(kinds_for(None), files, False, warm_checks, [], jobs=2, cache=cache)
    assert (cache.hits, cache.misses) == (len(files), len(files))
    assert [o.body for o in plain.objects] == [o.body for o in cold.objects] == [o.body for o in warm.objects]
    assert [o.origin for o in plain.objects] == [o.origin for o in warm.objects]
    made = [warm_checks.of(o) for o in warm.objects]
    assert all(m is not None for m in made), "the checks made as the files were read come back with them"
    assert [m[0].stored for m in made if m] == [m[0].stored for m in (checks.of(o) for o in cold.objects) if m]


def test_a_file_named_as_the_cache_directory_is_a_usage_error(tmp_path: Path) -> None:
    taken = tmp_path / "file"
    taken.write_text("")
    result = run_kqctl("simulate", str(REPO / "samples" / "cohort-borrowing"), "--cache", str(taken))
    assert result.code == 2 and result.err.strip() == f"kqctl: error: --cache {taken}: not a directory"


def test_stdin_is_read_every_time_and_never_kept(tmp_path: Path) -> None:
    text = (REPO / "samples" / "cohort-borrowing" / "cluster.yaml").read_bytes()
    args = ("simulate", "-", "-o", "json", "--now", "2026-01-01T00:00:00Z")
    plain = run_kqctl(*args, stdin=text)
    cached = run_kqctl(*args, "--cache", str(tmp_path / "cache"), stdin=text)
    assert (plain.code, plain.out) == (cached.code, cached.out) and not list((tmp_path / "cache").rglob("*.read"))
