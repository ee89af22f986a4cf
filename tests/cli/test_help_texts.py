"""Every command's help speaks in words a user types (PATH..., N, FORMAT), shows examples that
work, and the root help lists the exit codes; shell completion is there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer
from support import Run, run_kqctl_subprocess

from kqctl.cli.app import app

PYTHON_TYPE_PLACEHOLDER = re.compile(r"<(?:list\[|int|str|float|bool|path|int range|float range)[^>]*>")


def _commands() -> Iterator[tuple[str, ...]]:
    root = typer.main.get_command(app)

    def walk(command: object, prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if hasattr(command, "commands"):  # a group (typer vendors click: no public class to test against)
            for name, sub in command.commands.items():
                yield from walk(sub, (*prefix, name))
        else:
            yield prefix

    return walk(root, ())


COMMANDS = sorted(_commands())


def _groups() -> Iterator[tuple[str, ...]]:
    """Sub-command groups (kqctl snapshot): their own --help is a page a user reads too."""
    def walk(command: object, prefix: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        if hasattr(command, "commands"):
            if prefix:
                yield prefix
            for name, sub in command.commands.items():
                yield from walk(sub, (*prefix, name))

    return walk(typer.main.get_command(app), ())


GROUPS = sorted(_groups())


def _help(kqctl: Callable[..., Run], command: tuple[str, ...]) -> str:
    run = kqctl(*command, "--help", env={"COLUMNS": "100"})
    assert run.code == 0, run.err
    return run.out


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_help_placeholders_are_words_not_python_types(kqctl: Callable[..., Run], command: tuple[str, ...]) -> None:
    text = _help(kqctl, command)
    assert not PYTHON_TYPE_PLACEHOLDER.search(text), PYTHON_TYPE_PLACEHOLDER.search(text)
    assert "{" not in text.splitlines()[0], text.splitlines()[0]  # usage line: WORKLOAD, not {WORKLOAD}


@pytest.mark.parametrize("command", COMMANDS + GROUPS, ids=[" ".join(c) for c in COMMANDS + GROUPS])
def test_every_command_help_has_an_examples_section(kqctl: Callable[..., Run], command: tuple[str, ...]) -> None:
    text = _help(kqctl, command)
    assert "Examples:" in text
    examples = text.split("Examples:", 1)[1].strip().splitlines()
    assert examples and all(line.strip().startswith(("kqctl ", "kubectl ")) for line in examples if line.strip())


def _examples() -> Iterator[tuple[str, str]]:
    """(command, example line) of every command's and group's --help, as a user reads it."""
    from support import run_kqctl

    for command in sorted(set(COMMANDS) | set(GROUPS)):
        text = run_kqctl(*command, "--help", env={"COLUMNS": "200"}).out.split("Examples:", 1)[1]
        for line in text.strip().splitlines():
            if line.strip():
                yield " ".join(command), line.strip()


EXAMPLES = sorted(set(_examples()))


@pytest.fixture(scope="module")
def example_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A cluster to run the examples that read one: samples/cohort-borrowing served by the fake API server (Kueue),
    and a Volcano and a YuniKorn one for those that name them; a kubeconfig with the context `prod`."""
    from cluster_examples import serve_sample_clusters

    with serve_sample_clusters(tmp_path_factory.mktemp("clusters")) as kubeconfigs:
        yield kubeconfigs


@pytest.mark.parametrize("command,line", EXAMPLES, ids=[line for _, line in EXAMPLES])
def test_every_help_example_runs_as_written(command: str, line: str, example_cluster: dict[str, str],
                                            tmp_path: Path) -> None:
    """Run in a directory holding the samples, pipes and redirections as a shell would; exit 0, or 1 where the
    example shows findings (validate) or a failing --fail-on."""
    from cluster_examples import run_example

    code, err = run_example(line, tmp_path, example_cluster)
    assert code in (0, 1), f"{line}: exit {code}: {err}"
    assert "error:" not in err, f"{line}: {err}"


def test_root_help_lists_every_exit_code(kqctl: Callable[..., Run]) -> None:
    text = kqctl("--help", env={"COLUMNS": "100"}).out
    for code in ("0", "1", "2", "3", "4", "70"):
        assert re.search(rf"^\s+{code}\s+\S", text, re.MULTILINE), code
    assert "a bug in kqctl" in text


def test_shell_completion_completes_commands_and_options() -> None:
    # A real process: completion is keyed on the program's own name, as the shell calls it.
    kqctl = run_kqctl_subprocess
    words = kqctl(env={"_KQCTL_COMPLETE": "complete_bash", "COMP_WORDS": "kqctl sim", "COMP_CWORD": "1"})
    assert words.out.split() == ["simulate"]
    options = kqctl(env={"_KQCTL_COMPLETE": "complete_bash", "COMP_WORDS": "kqctl simulate --feat",
                         "COMP_CWORD": "2"})
    assert options.out.split() == ["--feature-gates"]


def test_command_groups_have_examples_too(kqctl: Callable[..., Run]) -> None:
    root = typer.main.get_command(app)
    groups = [name for name, sub in root.commands.items() if hasattr(sub, "commands")]  # type: ignore[attr-defined]
    assert "snapshot" in groups
    for group in groups:
        text = _help(kqctl, (group,))
        assert "Examples:" in text and f"kqctl {group} " in text.split("Examples:", 1)[1], group
