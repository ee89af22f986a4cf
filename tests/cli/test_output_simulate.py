"""simulate's output as people and scripts use it: kubectl-style tables at any width, -o wide/name,
--no-headers, --sort-by, --limit/--show-all, and a json contract with stable tokens."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from support import Run

Kq = Callable[..., Run]
NOW = ("--now", "2026-09-14T08:00:00Z")
PREEMPTION = "samples/preemption"
SINGLE = "samples/single-clusterqueue"


@pytest.mark.parametrize("columns", ["80", "120", "200"])
def test_table_rows_are_never_wrapped_or_cut_at_any_width(kqctl: Kq, columns: str) -> None:
    run = kqctl("simulate", PREEMPTION, *NOW, env={"COLUMNS": columns})
    names = json.loads(kqctl("simulate", PREEMPTION, *NOW, "-o", "json").out)["workloads"]
    rows = [line for line in run.out.splitlines() if line.split(" ", 1)[0] in names]
    assert sorted(line.split()[0] for line in rows) == sorted(names)  # every name whole, one line each
    assert "…" not in run.out and "default-flavor" in run.out


def test_partial_admission_shows_how_many_pods_got_in(kqctl: Kq) -> None:
    run = kqctl("simulate", SINGLE, *NOW)
    assert "Admitted (4/8 pods)" in run.out
    entry = json.loads(kqctl("simulate", SINGLE, *NOW, "-o", "json").out)["workloads"][
        "default/job-hyperparam-sweep-c47b0"]
    assert (entry["decision"], entry["decisionText"]) == ("Admitted", "Admitted (4/8 pods)")


def test_memory_is_shown_in_human_units_in_tables(kqctl: Kq) -> None:
    out = kqctl("simulate", SINGLE, *NOW).out
    # 12888Mi in the largest binary unit with three significant digits (issue 18), never raw bytes
    assert "12.6Gi" in out and "12888Mi" not in out and "13514047488" not in out


def test_wide_adds_localqueue_priority_and_cycle(kqctl: Kq) -> None:
    header = kqctl("simulate", PREEMPTION, *NOW, "-o", "wide").out.splitlines()
    workload_header = next(line for line in header if line.startswith("WORKLOAD "))
    assert workload_header.split()[:5] == ["WORKLOAD", "LOCALQUEUE", "CLUSTERQUEUE", "PRIORITY", "CYCLE"]


def test_output_name_prints_kubectl_resource_names(kqctl: Kq) -> None:
    lines = kqctl("simulate", PREEMPTION, *NOW, "-o", "name").out.splitlines()
    assert "workload.kueue.x-k8s.io/job-fraud-model-retrain-3c4d5" in lines and len(lines) == 5


def test_no_headers_drops_the_header_lines_only(kqctl: Kq) -> None:
    with_headers = kqctl("simulate", PREEMPTION, *NOW).out.splitlines()
    lines = kqctl("simulate", PREEMPTION, *NOW, "--no-headers").out.splitlines()
    headers = [line for line in with_headers if line.startswith(("CLUSTERQUEUE ", "WORKLOAD "))]
    # Columns are as wide as their cells, as kubectl's are without a header: compare the words.
    assert len(headers) == 2
    assert [line.split() for line in lines] == [line.split() for line in with_headers if line not in headers]


def test_sort_by_priority_and_unknown_column(kqctl: Kq) -> None:
    out = kqctl("simulate", PREEMPTION, *NOW, "--no-headers", "--sort-by", "priority", "-o", "wide").out
    names = json.loads(kqctl("simulate", PREEMPTION, *NOW, "-o", "json").out)["workloads"]
    rows = [line for line in out.splitlines() if line.split(" ", 1)[0] in names]
    assert rows[-1].startswith("payments-prod/job-fraud-model-retrain-3c4d5")  # priority 10000
    bad = kqctl("simulate", PREEMPTION, *NOW, "--sort-by", "prio")
    assert bad.code == 2 and "choose one of" in bad.err
    typo = kqctl("simulate", PREEMPTION, *NOW, "--sort-by", "decison")
    assert typo.code == 2 and "no such column (did you mean decision or reason?)" in typo.err


@pytest.mark.parametrize("args, path, hint", [
    (("simulate", "samples/cohort-borrowing"), ".prio", "did you mean .priority?"),
    (("simulate", "samples/cohort-borrowing", "-o", "json"), ".prio", "did you mean .priority?"),
    (("simulate", "samples/cohort-borrowing"), "{.prio}", "did you mean .priority?"),
    (("simulate", "samples/cohort-borrowing", "-o", "yaml"), ".admission.clusterQ",
     "did you mean .admission.clusterQueue?"),
    (("simulate", "samples/cohort-borrowing"), ".zzz", "the objects have: .admission, "),
    (("simulate", "samples/yunikorn-priority"), ".prio", "did you mean .priority?"),
    (("validate", "samples/broken", "-o", "wide"), ".rul", "did you mean .ruleId?"),
])
def test_sort_by_a_path_no_object_has_is_a_usage_error_with_the_nearest_field(
        kqctl: Kq, args: tuple[str, ...], path: str, hint: str) -> None:
    """As kubectl: a --sort-by path that matches no object fails (a typo left the rows unsorted without a word)."""
    run = kqctl(*args, "--sort-by", path)
    assert run.code == 2 and run.out == ""
    assert "couldn't find any field with path" in run.err and hint in run.err, run.err


def test_sort_by_a_path_some_objects_have_or_a_column_name_still_sorts(kqctl: Kq) -> None:
    assert kqctl("simulate", "samples/cohort-borrowing", "--sort-by", ".preemptedBy").code == 0  # null, but there
    assert kqctl("simulate", "samples/cohort-borrowing", "--sort-by", ".reason").code == 0  # the REASON column


def test_limit_shows_the_first_rows_and_says_how_to_see_the_rest(kqctl: Kq) -> None:
    out = kqctl("simulate", PREEMPTION, *NOW, "--limit", "2").out
    assert "3 more workloads not shown (first 2 of 5; --limit N or --show-all" in out
    assert "not shown" not in kqctl("simulate", PREEMPTION, *NOW, "--limit", "2", "--show-all").out
    assert len(json.loads(kqctl("simulate", PREEMPTION, *NOW, "--limit", "2", "-o", "json").out)["workloads"]) == 5


def test_json_decisions_are_stable_tokens_and_every_entry_has_the_same_keys(kqctl: Kq) -> None:
    for args in ((PREEMPTION,), (PREEMPTION, "--cycles", "1"), (SINGLE,)):
        workloads = json.loads(kqctl("simulate", *args, *NOW, "-o", "json").out)["workloads"]
        keys = {frozenset(entry) for entry in workloads.values()}
        assert len(keys) == 1, keys
        assert {e["decision"] for e in workloads.values()} <= {
            "Admitted", "AdmittedInInactiveClusterQueue", "QuotaReserved", "Preempted", "WaitingForPreemption",
            "Pending", "Inadmissible", "NotQueued"}


def test_a_victim_at_one_cycle_is_reported_once_as_preempted(kqctl: Kq) -> None:
    data = json.loads(kqctl("simulate", PREEMPTION, "--cycles", "1", *NOW, "-o", "json").out)
    assert data["preempted"].count("payments-prod/job-feature-backfill-4c5d6") == 1
    victims = [v for entry in data["workloads"].values() for v in entry["victims"]]
    assert len(victims) == len(set(victims)) == 2
