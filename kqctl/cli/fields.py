"""``kqctl fields``: what a field of a kind kqctl reads means, as ``kubectl explain RESOURCE.FIELD`` says it."""

from __future__ import annotations

import sys

import typer

from kqctl.cli import options

HELP = """Document a kind or one of its fields, offline, from the schemas kqctl validates with: its type,
allowed values, default, description and the fields below it (kubectl explain's layout). kqctl explain
explains a workload's admission; this is kubectl explain's field documentation."""

EXAMPLES = options.examples(
    "kqctl fields clusterqueue",
    "kqctl fields clusterqueue.spec.preemption",
    "kqctl fields cq.spec.resourceGroups.flavors",
    "kqctl fields queue --api-version scheduling.volcano.sh/v1beta1",
)
FIELDS_FORMATS = ("text", "json", "yaml")


def fields_command(
    target: str = typer.Argument(..., metavar="RESOURCE[.FIELD...]", show_default=False,
                                 help="A kind by any kubectl name (clusterqueue, cq, podgroups), then a field path."),
    api_version: str | None = typer.Option(None, "--api-version", metavar="GROUP/VERSION",
                                           help="The API version (default: the one the API server stores), or a "
                                                "group when a name is used by two (queue)."),
    output: str = typer.Option("text", "-o", "--output", metavar="FORMAT",
                               help="text, json, yaml, jsonpath=TEMPLATE or custom-columns=SPEC (rows: the fields)."),
) -> None:
    from kqctl.render.field_docs import render_field
    from kqctl.render.output import check_output
    from kqctl.validate.field_docs import explain_field

    check_output(output, FIELDS_FORMATS)
    render_field(explain_field(target, api_version), output, sys.stdout)
