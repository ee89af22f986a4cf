"""Output that fits the terminal people have (issue 20), through the real commands on every sample: at 80 and 200
columns on a terminal (stdout a TTY, $COLUMNS fixed) and piped. Defaults are narrow (-o wide has the rest); only free
text wraps, at spaces, with a hanging indent; names, quantities and tree gutters never break; piped output never
wraps, whatever $COLUMNS says."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

Kq = Callable[..., Run]
SAMPLES = sorted(p.name for p in (REPO / "samples").iterdir() if p.is_dir())
COMMANDS = ("simulate", "validate", "audit")
EXPLAINED = {  # one workload of a sample of each scheduler
    "cohort-borrowing": "team-a/job-llm-finetune-0d5b7",
    "preemption": "payments-prod/job-feature-backfill-4c5d6",
    "volcano-two-teams": "team-b/team-b-job-3",
    "yunikorn-multi-tenant": "dashboards/render-2",
}


def _terminal(kqctl: Kq, columns: int, *args: str) -> Run:
    return kqctl(*args, env={"COLUMNS": str(columns)}, tty=True)


def _tokens(text: str) -> set[str]:
    return set(text.split())


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_every_line_fits_80_columns_and_no_token_is_broken(kqctl: Kq, sample: str, command: str) -> None:
    run = _terminal(kqctl, 80, command, "-R", f"samples/{sample}")
    assert run.code in (0, 1, 3), run.err
    assert [line for line in run.out.splitlines() if len(line) > 80] == []
    piped = kqctl(command, "-R", f"samples/{sample}", env={"COLUMNS": "80"})
    # Wrapping only moves words to the next line: every word of the terminal's output is a whole word of the pipe's.
    assert _tokens(run.out) <= _tokens(piped.out)
    if command == "validate":  # the longest lines: at 200 columns they use the width, and still break no word
        wide = _terminal(kqctl, 200, command, "-R", f"samples/{sample}")
        assert all(len(line) <= 200 for line in wide.out.splitlines()) and _tokens(wide.out) <= _tokens(piped.out)


@pytest.mark.parametrize("sample, workload", sorted(EXPLAINED.items()))
def test_explain_fits_80_columns_and_keeps_its_gutter(kqctl: Kq, sample: str, workload: str) -> None:
    run = _terminal(kqctl, 80, "explain", workload, f"samples/{sample}")
    assert run.code == 0, run.err
    piped = kqctl("explain", workload, f"samples/{sample}")
    assert _tokens(run.out) <= _tokens(piped.out)
    prose = [line for line in run.out.splitlines() if "   " not in line.strip()]  # tables may be wider
    assert [line for line in prose if len(line) > 80] == []
    if sample in ("cohort-borrowing", "preemption"):  # Kueue's tree: every line below the title is in the tree
        assert all(line[:1] in "├│└ " for line in run.out.splitlines()[2:] if line)


def _explained(kqctl: Kq, sample: str) -> list[tuple[str, ...]]:
    """explain's arguments for every workload of a sample (Kueue workloads, Volcano PodGroups, YuniKorn pods and
    queues), from simulate -o json."""
    import json

    run = kqctl("simulate", "-R", f"samples/{sample}", "-o", "json")
    if run.code not in (0, 1):
        return []
    document = json.loads(run.out)
    if "workloads" in document:
        return [(key,) for key in document["workloads"]]
    if "podGroups" in document:
        return [(key,) for key in document["podGroups"]]
    pods = [(f"{pod['namespace']}/{pod['name']}",) for pod in document["pods"]]
    return pods + [("--queue", queue["path"]) for queue in document["queues"]]


@pytest.mark.parametrize("sample", SAMPLES)
def test_explain_of_every_workload_fits_80_columns_and_breaks_no_word(kqctl: Kq, sample: str) -> None:
    for target in _explained(kqctl, sample):
        args = ("explain", *target, "-R", f"samples/{sample}")
        run = _terminal(kqctl, 80, *args)
        assert run.code == 0, (target, run.err)
        assert [line for line in run.out.splitlines() if len(line) > 80] == [], target
        gutters = {"│", "├─", "└─"}  # a wrapped line of Kueue's tree continues its gutter
        assert _tokens(run.out) - gutters <= _tokens(kqctl(*args).out), target


def test_explain_wide_shows_what_the_default_leaves_out(kqctl: Kq) -> None:
    volcano = ("explain", "team-b/team-b-job-3", "samples/volcano-two-teams")
    assert "OWN GUARANTEE" not in kqctl(*volcano).out and "OWN GUARANTEE" in kqctl(*volcano, "-o", "wide").out
    yunikorn = ("explain", "--queue", "root.tenant1.a", "samples/yunikorn-priority")
    assert "POLICY" not in kqctl(*yunikorn).out and "POLICY" in kqctl(*yunikorn, "-o", "wide").out


PLAN = ("plan", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now", "2026-09-14T09:00:00Z",
        "--for", "clusterqueue/team-a", "--target", "p95(time-to-admission) < 30m", "--jobs", "1", "--budget", "8")


def test_plan_fits_80_columns_and_wide_adds_the_workload_counts(kqctl: Kq) -> None:
    run = _terminal(kqctl, 80, *PLAN)
    assert run.code in (0, 1), run.err
    assert [line for line in run.out.splitlines() if len(line) > 80] == []
    assert _tokens(run.out) <= _tokens(kqctl(*PLAN).out)
    assert "WORKLOADS" not in run.out and "WORKLOADS" in kqctl(*PLAN, "-o", "wide").out


def test_a_terminal_200_columns_wide_uses_its_width(kqctl: Kq) -> None:
    run = _terminal(kqctl, 200, "simulate", "samples/cohort-borrowing")
    lines = run.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  team-a/job-llm-finetune-0d5b7: "))
    assert 180 < len(lines[start]) <= 200 and lines[start + 1] == "    default-flavor, 40Gi more needed"  # 229: wrapped
    assert all(len(line) <= 200 for line in lines)
    assert "WORKLOAD                            DECISION       DETAIL" in lines  # rows that fit are as piped


@pytest.mark.parametrize("args", [("simulate", "samples/cohort-borrowing"), ("validate", "samples/broken"),
                                  ("audit", "samples/spot-gpu"), ("explain", "team-a/job-llm-finetune-0d5b7",
                                                                  "samples/cohort-borrowing")])
def test_piped_output_never_wraps_whatever_columns_says(kqctl: Kq, args: tuple[str, ...]) -> None:
    narrow, wide = kqctl(*args, env={"COLUMNS": "80"}), kqctl(*args, env={"COLUMNS": "200"})
    assert narrow.out == wide.out
    assert any(len(line) > 80 for line in narrow.out.splitlines())  # a long message stays on its line


def test_validate_prints_one_compact_line_per_finding_and_the_table_under_wide(kqctl: Kq) -> None:
    lines = kqctl("validate", "samples/broken").out.splitlines()
    findings = [line for line in lines if line.startswith("samples/")]
    shape = re.compile(r"^\S+:\d+  (✖ error|⚠ warning|ℹ info)  [A-Z][A-Z0-9-]+  \S+/\S+  ")
    assert findings and all(shape.match(line) for line in findings), findings[:3]
    assert "samples/broken/10-schema.yaml:10  ✖ error  SCHEMA-UNKNOWN-FIELD  ClusterQueue/schema-unknown-field  " \
           "spec.queuingStrategy: unknown field" in findings[0]
    wide = kqctl("validate", "samples/broken", "-o", "wide").out.splitlines()
    assert wide[0].split() == ["LOCATION", "SEVERITY", "RULE", "OBJECT", "FIELD", "MESSAGE"]
    assert len([line for line in wide if line.startswith("samples/")]) == len(findings)


def test_wide_shows_what_the_default_leaves_out(kqctl: Kq) -> None:
    default = kqctl("simulate", "samples/cohort-borrowing").out
    wide = kqctl("simulate", "samples/cohort-borrowing", "-o", "wide").out
    for header in ("COHORT", "BORROW LIMIT", "LEND LIMIT", "LENT", "CLUSTERQUEUE   PRIORITY", "FLAVORS", "VICTIMS"):
        assert header not in default and header in wide
    assert "DETAIL" in default and "DETAIL" not in wide


def test_no_headers_drops_header_lines_only(kqctl: Kq) -> None:
    full = kqctl("audit", "samples/cohort-borrowing").out.splitlines()
    bare = kqctl("audit", "samples/cohort-borrowing", "--no-headers").out.splitlines()
    assert any(line.startswith("├─ team-a") for line in bare)  # the quota table is still there
    assert not any(line.startswith(("NODE ", "CLUSTERQUEUE ")) for line in bare)
    assert len(bare) == len(full) - 2


def test_namespace_filters_the_queue_table_too(kqctl: Kq) -> None:
    out = kqctl("simulate", "samples/cohort-borrowing", "-n", "team-b").out.splitlines()
    assert not any(line.startswith("team-a") for line in out)
    assert any(line.startswith("team-b ") for line in out)  # team-b's quota rows
    volcano = kqctl("simulate", "samples/volcano-two-teams", "-n", "team-b").out.splitlines()
    assert not any(line.startswith("team-a") for line in volcano)
    yunikorn = kqctl("simulate", "samples/yunikorn-multi-tenant", "-n", "training").out.splitlines()
    queues = yunikorn[1:yunikorn.index("")]
    assert [line.split()[0] for line in queues] == ["root", "root.ml", "root.ml.training"]


def test_jsonpath_and_custom_columns_read_the_json_document(kqctl: Kq) -> None:
    sample = "samples/cohort-borrowing"
    assert kqctl("simulate", sample, "-o", "jsonpath={.cycles}").out == "2"  # no newline added, as kubectl's
    ranged = kqctl("simulate", sample, "-o", 'jsonpath={range .workloads.*}{.decision}{"\\n"}{end}').out
    assert sorted(ranged.split()) == ["Admitted"] * 5 + ["Inadmissible"]
    columns = kqctl("simulate", sample, "-o", "custom-columns=NAME:.name,PRIORITY:.priority",
                    "--sort-by", ".priority").out.splitlines()
    assert columns[0].split() == ["NAME", "PRIORITY"] and columns[-1].split() == ["team-a/job-hparam-sweep-21f8c",
                                                                                   "1000"]
    bare = kqctl("simulate", sample, "-o", "custom-columns=NAME:.name", "--no-headers").out.splitlines()
    assert len(bare) == 6 and "NAME" not in bare
    for args in (("validate", "samples/broken"), ("audit", sample), ("explain", "team-a/job-llm-finetune-0d5b7",
                                                                     sample), ("rules",), ("version",),
                 ("audit", "samples/volcano-two-teams"), ("simulate", "samples/yunikorn-multi-tenant")):
        run = kqctl(*args, "-o", "custom-columns=X:.name")
        assert run.code in (0, 1) and run.out.startswith("X"), (args, run.err)


def test_a_bad_template_is_a_usage_error_before_anything_is_read(kqctl: Kq) -> None:
    run = kqctl("simulate", "no/such/dir", "-o", "jsonpath={.cycles")
    assert run.code == 2 and "unclosed action" in run.err  # 2, not 3: the missing input was never read
    assert kqctl("simulate", "samples/cohort-borrowing", "-o", "jsonpath").code == 2


def test_sort_by_accepts_a_jsonpath_into_the_rows_objects(kqctl: Kq) -> None:
    out = kqctl("simulate", "samples/cohort-borrowing", "--sort-by", "{.priority}", "-o", "wide").out.splitlines()
    rows = [line for line in out if line.startswith("team-")][-6:]
    assert rows[-1].startswith("team-a/job-hparam-sweep-21f8c")  # priority 1000
    document = kqctl("simulate", "samples/cohort-borrowing", "--sort-by", ".priority", "-o",
                     "jsonpath={range .workloads.*}{.priority} {end}").out
    assert document.split() == ["100"] * 5 + ["1000"]  # json, yaml and templates see the items sorted too


def test_v_writes_diagnostics_to_stderr_only(kqctl: Kq) -> None:
    quiet = kqctl("simulate", "samples/cohort-borrowing")
    loud = kqctl("simulate", "samples/cohort-borrowing", "-v", "4")
    assert loud.out == quiet.out and quiet.err == ""
    lines = loud.err.splitlines()
    assert lines and all(re.match(r"^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ kqctl\] ", line) for line in lines)
    assert any("cluster.yaml" in line for line in lines) and any("scheduler: kueue" in line for line in lines)
    assert kqctl("--v=1", "rules", "VAL-CQ-23").err.startswith("I")
    assert kqctl("simulate", "samples/cohort-borrowing", "-v", "x").code == 2


def test_help_never_breaks_a_token_a_user_copies(kqctl: Kq) -> None:
    for columns in ("80", "200"):
        explain = kqctl("explain", "--help", env={"COLUMNS": columns}).out
        assert "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=40" in explain
        assert "max-queue-depth=N" in kqctl("validate", "--help", env={"COLUMNS": columns}).out
        assert "--fail-on" in kqctl("diff", "--help", env={"COLUMNS": columns}).out
        listing = kqctl("--help", env={"COLUMNS": columns}).out
        commands = listing[listing.index("Commands:"):listing.index("Exit codes")]
        assert "..." not in commands and "fields" in commands
        # The root help (commands, exit codes, diagnostics) fits the terminal it is shown on.
        assert max(len(line) for line in listing.splitlines()) <= int(columns), listing


def test_fields_documents_a_field_as_kubectl_explain_does(kqctl: Kq) -> None:
    out = kqctl("fields", "clusterqueue.spec.preemption").out
    for heading in ("KIND:     ClusterQueue", "VERSION:  kueue.x-k8s.io/v1beta2", "FIELD: preemption <Object>",
                    "DESCRIPTION:", "FIELDS:", "   reclaimWithinCohort\t<string>"):
        assert heading in out
    assert "ENUM:     Never, LowerPriority, Any" in kqctl("fields", "cq.spec.preemption.reclaimWithinCohort").out
    assert "nominalQuota\t<quantity> -required-" in kqctl("fields", "cq.spec.resourceGroups.flavors.resources").out
    typo = kqctl("fields", "clusterqueue.spec.preemtion")
    assert typo.code == 2 and "did you mean preemption?" in typo.err
    both = kqctl("fields", "queue")
    assert both.code == 2 and "--api-version scheduling.volcano.sh/v1beta1" in both.err
    assert "KIND:     Queue" in kqctl("fields", "queue", "--api-version", "scheduling.volcano.sh/v1beta1").out


@pytest.mark.parametrize("resource", ["job", "job.spec", "jobs", "queue"])
def test_fields_offers_each_api_version_of_an_ambiguous_name_once(kqctl: Kq, resource: str) -> None:
    run = kqctl("fields", resource)
    offered = re.findall(r"--api-version (\S+)", run.err)
    assert run.code == 2 and len(offered) > 1 and len(offered) == len(set(offered)), run.err


def test_explain_of_a_field_path_points_at_kqctl_fields(kqctl: Kq) -> None:
    run = kqctl("explain", "clusterqueue.spec.preemption")
    assert run.code == 2
    assert "kqctl explain takes a workload" in run.err and "kqctl fields clusterqueue.spec.preemption" in run.err


def test_a_real_terminal_gets_wrapped_text(tmp_path: Path) -> None:
    """The real process on a pseudo-terminal of 80 columns: it reads the width itself."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80", "PYTHONPATH": str(REPO), "KQCTL_NO_PROGRESS": "1"}
    proc = subprocess.run([sys.executable, "-m", "kqctl", "simulate", "samples/cohort-borrowing"], cwd=REPO,
                          env=env, stdout=follower, stderr=subprocess.PIPE, timeout=120)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    text = b"".join(chunks).decode().replace("\r\n", "\n")
    assert proc.returncode == 0, proc.stderr
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "\n    insufficient unused quota for cpu" in text  # the long message wrapped under its name


REPLAYS = {  # a replay of each scheduler: its headline is two lines (what happened, then the waits)
    "kueue": ("replay", "samples/replay", "--trace", "samples/replay/arrivals.csv", "--now", "2026-09-14T09:00:00Z"),
    "volcano": ("replay", "samples/volcano-two-teams", "--runtime", "30m", "--now", "2026-01-01T12:00:00Z"),
    "yunikorn": ("replay", "samples/yunikorn-priority", "--runtime", "30m", "--now", "2026-01-01T12:00:00Z"),
}


@pytest.mark.parametrize("columns", [120, 80, 60])
@pytest.mark.parametrize("scheduler", sorted(REPLAYS))
def test_replay_headline_keeps_its_two_lines_on_a_terminal(kqctl: Kq, scheduler: str, columns: int) -> None:
    piped = kqctl(*REPLAYS[scheduler]).out.split("\n\n")[0].splitlines()
    run = _terminal(kqctl, columns, *REPLAYS[scheduler])
    assert run.code == 0, run.err
    headline = run.out.split("\n\n")[0].splitlines()
    assert len(piped) == 2 and piped[1].startswith("Time ")
    assert all(len(line) <= columns for line in headline)
    # Each piped line starts a line of its own on the terminal; only wrapped words go to indented lines.
    starts = [line for line in headline if not line.startswith("  ")]
    assert len(starts) == 2 and all(whole.startswith(start) for start, whole in zip(starts, piped, strict=True))
    assert " ".join(headline).split() == " ".join(piped).split()


DIFFS = {  # a diff of each scheduler whose tables hold free text (decisions, states, a regression's message)
    "kueue": ("diff", "samples/cohort-borrowing", "--set",
              "clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=12", "--set",
              "clusterqueue/team-a.flavor.default-flavor.cpu.lendingLimit=2"),
    "volcano": ("diff", "samples/volcano-two-teams", "--set", "queue/team-a.spec.weight=3", "--replay", "--trace",
                "samples/volcano-two-teams/arrivals.csv", "--runtime", "30m", "--now", "2026-01-01T12:00:00Z"),
    "yunikorn": ("diff", "samples/yunikorn-priority", "--set", "queue/root.tenant1.properties.priority.offset=11",
                 "--replay", "--trace", "samples/yunikorn-priority/arrivals.csv", "--runtime", "30m", "--now",
                 "2026-01-01T12:00:00Z"),
}


@pytest.mark.parametrize("scheduler", sorted(DIFFS))
def test_diff_fits_80_columns_on_a_terminal_and_never_wraps_into_a_pipe(kqctl: Kq, scheduler: str) -> None:
    run = _terminal(kqctl, 80, *DIFFS[scheduler])
    assert run.code == 0, run.err
    assert [line for line in run.out.splitlines() if len(line) > 80] == []
    piped = kqctl(*DIFFS[scheduler], env={"COLUMNS": "80"})
    assert _tokens(run.out) <= _tokens(piped.out)
    assert piped.out == kqctl(*DIFFS[scheduler], env={"COLUMNS": "200"}).out
    assert any(len(line) > 80 for line in piped.out.splitlines())  # the regression's message stays on its line


def test_a_diffs_free_text_configuration_values_are_left_aligned_and_wrap(kqctl: Kq, tmp_path: Path) -> None:
    """Quantities right-aligned, as figures are; a list of actions is free text: left-aligned, wrapped on a
    terminal when the row is wider."""
    for source in (REPO / "samples" / "volcano-two-teams").glob("*.yaml"):
        text = source.read_text(encoding="utf-8").replace('"enqueue, allocate, reclaim, backfill"',
                                                          '"enqueue, allocate, preempt, reclaim, backfill"')
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    args = ("diff", "samples/volcano-two-teams", str(tmp_path), "--set", "queue/team-a.spec.weight=3")
    lines = kqctl(*args).out.splitlines()
    header = next(line for line in lines if line.startswith("KIND "))
    actions = next(line for line in lines if " actions " in line)
    weight = next(line for line in lines if " weight " in line)
    assert actions.index("enqueue, allocate, reclaim, backfill") == weight.index("1") == header.index("BEFORE")
    run = _terminal(kqctl, 120, *args)
    assert [line for line in run.out.splitlines() if len(line) > 120] == []
    assert _tokens(run.out) <= _tokens("\n".join(lines))
