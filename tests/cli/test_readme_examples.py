"""The README never drifts from what kqctl prints: every ```text block that starts with ``$ kqctl ...`` shows exactly
the standard output of that command, piped, run from the repository root."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

import pytest
from support import REPO, Run

BLOCK = re.compile(r"```text\n\$ kqctl (?P<command>[^\n]*)\n(?P<shown>.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return [(match["command"], match["shown"]) for match in BLOCK.finditer(readme)]


def test_the_readme_has_examples_to_check() -> None:
    commands = [command for command, _ in _examples()]
    assert len(commands) >= 7, commands
    assert not [c for c in commands if _shell_operators(c)], \
        "an example must be one kqctl command, so that its block is exactly what it prints"


def _shell_operators(command: str) -> list[str]:
    """The unquoted pipes, redirections and command separators in a command line ('p95(...) < 30m' is an
    argument, not a redirection)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    return [token for token in lexer if token and set(token) <= set("|&;<>()")]


@pytest.mark.parametrize(("command", "shown"), _examples(), ids=[command for command, _ in _examples()])
def test_every_readme_example_is_the_commands_real_output(kqctl: Callable[..., Run], command: str,
                                                          shown: str) -> None:
    run = kqctl(*shlex.split(command))
    assert run.code in (0, 1), run.err  # an example may show findings (exit 1), never a usage or input error
    assert run.out == shown, f"README block for `kqctl {command}` differs from what it prints"


FENCE = re.compile(r"^```(?P<language>[^\n]*)\n(?P<body>.*?)^```$", re.S | re.M)
# Blocks that show no command's output: the source layout.
NOT_OUTPUT = ("kqctl/load/ ",)


def test_every_readme_block_of_output_is_checked() -> None:
    """Output is shown only in a checked ```text block (``$ kqctl ...`` then what it prints): a plain block after
    a ```sh one (plan's, replay's) drifted unseen. Commands go in ```sh blocks, which show no output."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unchecked = [match["body"].splitlines()[0] if match["body"] else "" for match in FENCE.finditer(readme)
                 if match["language"] != "sh" and not BLOCK.match(match.group())
                 and not match["body"].startswith(NOT_OUTPUT)]
    assert not unchecked, "README blocks that show output without `$ kqctl COMMAND` as their first line"


@pytest.mark.parametrize("command", [
    "plan samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z --for clusterqueue/team-a "
    "--target 'p95(time-to-admission) < 30m' --jobs 2",
    "replay samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z",
])
def test_the_plan_and_replay_walkthroughs_are_checked_examples(command: str) -> None:
    assert command in [c for c, _ in _examples()], f"no checked README block for `kqctl {command}`"
