"""``kqctl rules``: look up any rule ID kqctl shows (in findings, messages and explanations)."""

from __future__ import annotations

import sys

import typer

from kqctl.cli import options
from kqctl.errors import UsageError

HELP = """Explain the rule IDs kqctl cites: what each checks, how severe it is and what enforces it in a
real cluster (the API server, a CRD rule, Kueue's webhooks or scheduler, or kqctl itself).

Without an ID, every rule as a table; a family (XO, VAL-CQ, SCHEMA) lists its rules; one ID shows
its full entry. CEL-<ID> is the CRD's CEL rule that enforces <ID>."""

EXAMPLES = options.examples(
    "kqctl rules",
    "kqctl rules VAL-CQ-23",
    "kqctl rules XO",
    "kqctl rules -o json",
)
RULES_FORMATS = ("table", "wide", "json", "yaml")


def rules_command(
    rule_id: str | None = typer.Argument(None, metavar="ID", show_default=False,
                                         help="A rule ID (VAL-CQ-23) or a family (XO, VAL-RF)."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide (adds SOURCE), json, yaml, jsonpath=TEMPLATE or custom-columns=SPEC."),
    no_headers: bool = options.NoHeadersOption,
) -> None:
    from kqctl import catalogue
    from kqctl.render.output import check_output
    from kqctl.render.rules import render_rule, render_rules

    check_output(output, RULES_FORMATS)
    if rule_id is None:
        render_rules(catalogue.all_rules(), output, sys.stdout, headers=not no_headers)
        return
    rule = catalogue.lookup(rule_id)
    if rule is not None:
        render_rule(rule, output, sys.stdout)
        return
    members = catalogue.family(rule_id)
    if members:
        render_rules(members, output, sys.stdout, headers=not no_headers)
        return
    close = catalogue.suggestions(rule_id)
    hint = f"; did you mean {' or '.join(close)}?" if close else "; `kqctl rules` lists every rule"
    raise UsageError(f"no rule {rule_id!r}{hint}")
