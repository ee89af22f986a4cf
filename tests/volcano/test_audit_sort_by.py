"""Volcano's ``kqctl audit --sort-by`` means what Kueue's means: a column of the quota table sorts that table (the
tree kept), severity, rule or object sorts the findings (the table left in tree order), and a key that names
neither is the same usage error with a did-you-mean. Run in-process through typer's CliRunner."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
import typer.testing
import yaml

from kqctl.cli.app import app
from kqctl.errors import UsageError
from tests.volcano.builders import conf, group, node, pod, queue

CONF = conf("enqueue, allocate", ["priority", "gang"], ["predicates", "proportion", "nodeorder"])
# Findings of three rules, two severities, about queues and a PodGroup, in the audit's own order: the queues'
# (by name), then the PodGroups'.
OBJECTS = [CONF, node("n1"),
           queue("alpha", guarantee={"resource": {"cpu": "2"}}, deserved={"cpu": "2"}),  # idle guarantee, deserved
           queue("beta", deserved={"cpu": "1"}),  # deserved ignored by proportion
           queue("closed", state="Closed"), group("big", "closed", ns="a-ns", phase="Pending"),
           pod("p", "big", ns="a-ns")]  # can never run
FINDING = re.compile(r"^  (\w+) (\S+) (\S+): ")


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``kqctl audit INPUT ARGS`` through CliRunner: (stdout, the exception it raised or None)."""
    path = tmp_path_factory.mktemp("audit") / "input.yaml"
    path.write_text(yaml.safe_dump_all(OBJECTS), encoding="utf-8")
    command = typer.main.get_command(app)
    runner = typer.testing.CliRunner()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", lambda _: command)

        def run(*args: str, source: str | Path = path) -> tuple[str, BaseException | None]:
            result = runner.invoke(app, ["audit", str(source), *args])
            exception = result.exception if not isinstance(result.exception, SystemExit) else None
            return result.stdout, exception

        yield run


def _split(out: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The quota table, and each finding's (severity, rule, subject)."""
    table, _, rest = out.partition("\nFindings:\n")
    return table, [m.groups() for m in map(FINDING.match, rest.splitlines()) if m]


IDLE, ALPHA_DESERVED = ("warning", "VC-AUDIT-IDLE-GUARANTEE", "alpha"), ("info", "VC-AUDIT-DESERVED-IGNORED", "alpha")
BETA_DESERVED, NEVER = ("info", "VC-AUDIT-DESERVED-IGNORED", "beta"), ("warning", "VC-NEVER-1", "a-ns/big")


@pytest.mark.parametrize(("key", "expected"), [
    (None, [IDLE, ALPHA_DESERVED, BETA_DESERVED, NEVER]),
    ("severity", [IDLE, NEVER, ALPHA_DESERVED, BETA_DESERVED]),  # errors, warnings, infos; stable within
    ("rule", [ALPHA_DESERVED, BETA_DESERVED, IDLE, NEVER]),
    ("Object", [NEVER, IDLE, ALPHA_DESERVED, BETA_DESERVED]),  # the PodGroup or queue named, any case
    ("share", [IDLE, ALPHA_DESERVED, BETA_DESERVED, NEVER]),  # a column sorts the table, not the findings
])
def test_audit_sort_by_a_findings_key_sorts_the_findings_and_leaves_the_quota_table(
        audit: Any, key: str | None, expected: list[tuple[str, str, str]]) -> None:
    out, exception = audit(*(("--sort-by", key) if key else ()))
    assert exception is None, exception
    table, findings = _split(out)
    assert findings == expected
    if key != "share":
        assert table == _split(audit()[0])[0]


def test_audit_sort_by_a_column_still_sorts_the_quota_table(audit: Any) -> None:
    queues = [line.split()[0] for line in _split(audit("--sort-by", "deserved")[0])[0].splitlines()[1:]
              if not line.startswith(" ")]
    assert queues == ["closed", "alpha", "beta", "default"]  # the one deserved share first, no share last


@pytest.mark.parametrize(("key", "close"), [("rul", "rule"), ("severty", "severity"), ("shar", "share")])
def test_audit_sort_by_naming_nothing_is_a_usage_error_with_the_closest_key(audit: Any, key: str, close: str) -> None:
    out, exception = audit("--sort-by", key)
    assert isinstance(exception, UsageError) and not out
    message = str(exception)
    assert message.startswith(f"--sort-by {key!r}: no such column of the audit table (did you mean {close}?); choose "
                              "one of: queue, ")
    assert message.endswith(", share, severity, rule, object (-o json or yaml sort by a JSONPath)")


@pytest.mark.parametrize("key", ["rul", "severty", "objct"])
def test_audit_sort_by_a_mistyped_findings_key_is_the_error_kueue_gives(audit: Any, key: str) -> None:
    volcano, kueue = audit("--sort-by", key)[1], audit("--sort-by", key, source="samples/cohort-borrowing")[1]
    assert isinstance(volcano, UsageError) and isinstance(kueue, UsageError)
    assert str(volcano).split("; choose one of:")[0] == str(kueue).split("; choose one of:")[0]
