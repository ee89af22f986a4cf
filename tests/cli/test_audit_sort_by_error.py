"""``kqctl audit --sort-by KEY`` with a key that names no column of the audit's tables nor a field of its findings is
one usage error for Kueue, Volcano and YuniKorn, built in one place (kqctl.render.columns.unknown_sort_key) and
checked once, before any output: exit 2, the closest names, every name it takes, and what -o json or yaml take
instead. Run in-process through typer's CliRunner."""

from __future__ import annotations

import pytest
from support import REPO
from typer.testing import CliRunner, Result

from kqctl.errors import EXIT_USAGE, UsageError

# (sample, the first names of its list, a near miss of one of its columns and that column)
SCHEDULERS = {
    "kueue": ("samples/preemption", "cohort/clusterqueue, flavor, resource, nominal, ", "utl", "util"),
    "volcano": ("samples/volcano-two-teams", "queue, state, weight, resource, ", "shar", "share"),
    "yunikorn": ("samples/yunikorn-multi-tenant", "queue, resource, guaranteed, max, ", "pendng", "pending"),
}


def _audit(*args: str) -> Result:
    from kqctl.cli.app import app

    return CliRunner().invoke(app, ["audit", *args], env={"NO_COLOR": "1"})


def _usage_error(result: Result) -> str:
    """The message of the usage error ``result`` ended with (main() prints it and exits 2), no output before it."""
    assert isinstance(result.exception, UsageError), (result.exception, result.output)
    assert result.exception.exit_code == EXIT_USAGE == 2
    assert result.stdout == ""
    return str(result.exception)


@pytest.mark.parametrize("scheduler", SCHEDULERS)
@pytest.mark.parametrize("output", ["table", "wide"])
def test_a_key_naming_nothing_is_one_usage_error(scheduler: str, output: str) -> None:
    sample, first, _, _ = SCHEDULERS[scheduler]
    message = _usage_error(_audit(str(REPO / sample), "-o", output, "--sort-by", "nosuch"))
    assert message.startswith(f"--sort-by 'nosuch': no such column of the audit table; choose one of: {first}")
    assert message.endswith(", severity, rule, object (-o json or yaml sort by a JSONPath)")


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_near_miss_names_the_closest_key(scheduler: str) -> None:
    sample, first, miss, column = SCHEDULERS[scheduler]
    for key, close in (("severty", "severity"), ("rul", "rule"), (miss, column)):
        message = _usage_error(_audit(str(REPO / sample), "--sort-by", key))
        assert message.startswith(f"--sort-by {key!r}: no such column of the audit table (did you mean {close}?); "
                                  f"choose one of: {first}"), message


@pytest.mark.parametrize("key", ["nosuch", "severty", "objct"])
def test_the_three_schedulers_say_it_alike(key: str) -> None:
    """Only the list of names differs: each scheduler's own columns, then the findings' severity, rule, object."""
    messages = [_usage_error(_audit(str(REPO / sample), "--sort-by", key)) for sample, *_ in SCHEDULERS.values()]
    assert len({message.split("; choose one of: ")[0] for message in messages}) == 1
    assert len({message.split(", severity, rule, object")[1] for message in messages}) == 1


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_a_key_in_a_jsonpaths_braces_names_the_same_column_or_field(scheduler: str) -> None:
    sample, _, _, column = SCHEDULERS[scheduler]
    for key in (column, "severity"):
        plain, braced = _audit(str(REPO / sample), "--sort-by", key), _audit(str(REPO / sample), "--sort-by",
                                                                           f"{{.{key}}}")
        assert plain.exit_code == braced.exit_code == 0 and plain.exception is None, plain.output
        assert braced.stdout == plain.stdout
