"""Shell completion of flag values and names (-o, --scheduler, --fail-on, --sort-by, --kueue-version, rule IDs
after kqctl rules, workload names after kqctl explain) and kqctl completion bash|zsh|fish."""

from __future__ import annotations

import pytest
from support import run_kqctl

from kqctl.catalogue import all_rules
from kqctl.cli.completion import SORT_COLUMNS
from kqctl.cli.simulate import SIMULATE_FORMATS


def complete(line: str, cword: int | None = None) -> list[str]:
    """What bash gets for word ``cword`` of ``line`` (default the last; an empty one when it ends with a space)."""
    words = line.split()
    if cword is None:
        cword = len(words) if line.endswith(" ") else len(words) - 1
    run = run_kqctl(env={"_KQCTL_COMPLETE": "complete_bash", "COMP_WORDS": line, "COMP_CWORD": str(cword)})
    assert run.code == 0, run.err
    return run.out.split()


def test_output_formats_are_the_commands_own() -> None:
    assert complete("kqctl simulate -o ") == list(SIMULATE_FORMATS)
    assert complete("kqctl validate -o t") == ["table", "text", "tap"]


def test_scheduler_fail_on_and_versions() -> None:
    assert complete("kqctl audit --scheduler ") == ["kueue", "volcano", "yunikorn"]
    assert complete("kqctl validate --fail-on w") == ["warning"]
    assert complete("kqctl simulate --fail-on inadmissible,p") == ["inadmissible,pending", "inadmissible,preempted"]
    assert complete("kqctl validate --kueue-version v0.1") == ["v0.19.2", "v0.18.6", "v0.17.8"]
    assert complete("kqctl validate --yunikorn-version v") == ["v1.8.0"]


def test_rule_ids_after_kqctl_rules() -> None:
    ids = [rule.id for rule in all_rules()]
    assert complete("kqctl rules VAL-WL-1") == [i for i in ids if i.startswith("VAL-WL-1")]
    assert "XO" in complete("kqctl rules X")


def test_workload_names_from_the_inputs_on_the_line() -> None:
    assert complete("kqctl explain -f samples/cohort-borrowing team-a/job-l") == ["team-a/job-llm-finetune-0d5b7"]
    # bash hands over the whole line: a path typed after the name counts too
    assert complete("kqctl explain team-b/ samples/cohort-borrowing", cword=2) == [
        "team-b/job-feature-pipeline-e93a4", "team-b/job-model-eval-6a0f3"]
    assert complete("kqctl explain team-b/") == []  # no input on the line: nothing to offer


@pytest.mark.parametrize("command,column", [(c, col) for c, cols in SORT_COLUMNS.items() for col in cols])
def test_every_sort_by_completion_is_a_column_the_command_sorts_by(command: str, column: str) -> None:
    sample = {"validate": "samples/broken", "simulate": "samples/cohort-borrowing",
              "audit": "samples/cohort-borrowing", "replay": "samples/cohort-borrowing"}[command]
    run = run_kqctl(command, sample, "--sort-by", column, *(("--runtime", "1h") if command == "replay" else ()))
    assert run.code in (0, 1), run.err
    assert "no such column" not in run.err
    assert complete(f"kqctl {command} --sort-by {column[:2]}")[0:1] != []


@pytest.mark.parametrize("command", sorted(SORT_COLUMNS))
def test_sort_by_completion_offers_every_column_the_table_shows(command: str) -> None:
    """The hand-written list follows the tables: a column renamed or added (audit's PENDING WORKLOADS) is offered."""
    sample = {"validate": "samples/broken", "simulate": "samples/cohort-borrowing",
              "audit": "samples/cohort-borrowing", "replay": "samples/cohort-borrowing"}[command]
    extra = ("--runtime", "1h") if command == "replay" else ()
    run = run_kqctl(command, sample, "--sort-by", "no-such-column", *extra)
    assert run.code == 2 and "choose one of: " in run.err, run.err
    names = run.err.split("choose one of: ", 1)[1].split(" or a JSONPath", 1)[0]
    accepted = names.split(" (-o json or yaml sort by", 1)[0].strip().split(", ")  # audit's ends with that hint
    never_shown = {"validate": {"name"}}.get(command, set())  # the compact line's Kind/name: a column of no view
    assert sorted(SORT_COLUMNS[command]) == sorted(set(accepted) - never_shown)


@pytest.mark.parametrize("shell,marker", [("bash", "complete -o default -F _kqctl_completion kqctl"),
                                          ("zsh", "#compdef kqctl"), ("fish", "complete --command kqctl")])
def test_completion_prints_the_script_for_a_shell(shell: str, marker: str) -> None:
    run = run_kqctl("completion", shell)
    assert run.code == 0 and marker in run.out and "_KQCTL_COMPLETE" in run.out


def test_completion_of_another_shell_is_a_usage_error() -> None:
    run = run_kqctl("completion", "tcsh")
    assert run.code == 2 and "bash, zsh, fish" in run.err
