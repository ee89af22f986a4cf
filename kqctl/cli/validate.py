"""``kqctl validate``: check manifests as the API server and Kueue's webhooks would, plus cross-object checks."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options
from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, UsageError
from kqctl.validate.findings import Severity

if TYPE_CHECKING:
    from kqctl.validate.report import ValidationReport

HELP = """Validate Kueue manifests offline: schema, CEL rules, Kueue's webhooks and cross-object consistency.

Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage error; 3 unreadable input."""

FAIL_ON = ("error", "warning", "info", "never")


def validate_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    output: str = typer.Option("table", "-o", "--output", help="table, json, yaml, junit, sarif or github."),
    fail_on: str = typer.Option("error", "--fail-on", help="Lowest severity that fails: error, warning, info, never."),
    closed: bool = typer.Option(False, "--closed", help="The inputs are the whole world: a reference to an object "
                                "not in them is an error, not a warning."),
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
) -> None:
    from kqctl import __version__
    from kqctl.load.objects import load_paths
    from kqctl.render.findings import VALIDATE_FORMATS, render_validation
    from kqctl.validate.runner import validate_load

    if output not in VALIDATE_FORMATS:
        raise UsageError(f"unknown output format {output!r}; choose one of: {', '.join(VALIDATE_FORMATS)}")
    if fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on {fail_on!r}; choose one of: {', '.join(FAIL_ON)}")
    result = load_paths(options.all_paths(paths, filenames), recursive=recursive, strict=strict)
    report = validate_load(result, closed=closed)
    render_validation(report, output, sys.stdout, color=color, tool_version=__version__)
    for problem in result.unreadable:
        sys.stderr.write(f"kqctl: error: {problem}\n")
    raise typer.Exit(exit_code(report, fail_on, unreadable=bool(result.unreadable)))


def exit_code(report: ValidationReport, fail_on: str, unreadable: bool) -> int:
    """3 when an input could not be read; else 1 when a finding reaches --fail-on; else 0."""
    if unreadable:
        return EXIT_INPUT
    worst = report.worst()
    if fail_on == "never" or worst is None:
        return EXIT_OK
    return EXIT_FINDINGS if worst.rank >= Severity(fail_on).rank else EXIT_OK
