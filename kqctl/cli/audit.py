"""``kqctl audit``: a quota report per ClusterQueue and cohort, and the quota that is wasted."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.charts import check_chart_path, write_chart_file
from kqctl.errors import EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.kueue.engine.audit import AuditReport
    from kqctl.render.columns import TableOptions

# One line per paragraph: rich rewraps help text to the terminal and keeps hard line breaks.
HELP = "\n\n".join((
    "Quota report: per ClusterQueue and cohort (as a tree), per flavor and resource, the nominal quota, borrowing "
    "and lending limits, what each can borrow at most and lends, what is used and borrowed now, pending demand and "
    "utilisation.",
    "Also lists what costs money or time without being an error: quota no workload can use, workloads that can "
    "never fit, cohorts where nobody can borrow, unused flavors, ClusterQueues no LocalQueue feeds, and namespaces "
    "whose LocalQueues their ClusterQueue does not admit.",
    "Nothing is scheduled: usage is what admitted workloads hold now. --plot FILE.svg (or FILE.png) also draws, "
    "per resource, what each queue uses against its limits (for every scheduler) and says what it wrote on stderr. "
    "Exit code 0 whenever the audit ran.",
    "For Volcano (--scheduler volcano): per queue (as a tree) and resource, weight, capability, guarantee, "
    "deserved, real capability, allocated, pending and share; idle guarantees, capabilities that limit nothing, "
    "starved queues and PodGroups that can never fit.",
))

AUDIT_FORMATS = ("table", "wide", "json", "yaml", "markdown", "name")


EXAMPLES = options.examples(
    "kqctl audit samples/cohort-borrowing",
    "kqctl audit samples/cohort-borrowing -o markdown > quota-report.md",
    "kqctl audit samples/hierarchical-cohorts -o wide --sort-by pending-workloads --limit 20",
    "kqctl audit --from-cluster --plot quota.svg",
    "kqctl audit --scheduler volcano samples/volcano-hierarchy",
)

def audit_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide, json, yaml, markdown, name, jsonpath=TEMPLATE or "
                                    "custom-columns=SPEC."),
    plot: str | None = typer.Option(None, "--plot", metavar="FILE",
                                    help="Also write a bar chart per resource: FILE.svg or FILE.png."),
    no_headers: bool = options.NoHeadersOption,
    sort_by: str | None = typer.Option(None, "--sort-by", metavar="KEY",
                                       help="Sort the quota table by a column (e.g. util: each cohort's or parent "
                                            "queue's members among themselves, the tree kept), Kueue's ClusterQueue "
                                             "table by a column (e.g. pending-workloads), or the findings by "
                                             "severity, rule or object; -o json/yaml by a JSONPath into the queues, "
                                             "as kubectl."),
    limit: int = options.LimitOption,
    show_all: bool = options.ShowAllOption,
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    namespace: str | None = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE",
                                         help="Only the queues this namespace uses and their ancestors, and the "
                                              "findings about them: Kueue's ClusterQueues a LocalQueue of the "
                                              "namespace feeds, Volcano's queues of its PodGroups, YuniKorn's "
                                              "queues of its pods."),
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
) -> None:
    from kqctl.cli.simulate import load_snapshot
    from kqctl.kueue.engine.audit import audit, for_namespace
    from kqctl.render.output import check_output

    check_output(output, AUDIT_FORMATS)
    if plot is not None:
        check_chart_path(plot)  # before reading the inputs: a bad --plot should not cost a full load
    volcano_cli.refuse_early(scheduler, scheduler_conf, as_given=as_given)
    inputs = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig, sets,
                                 override, scheduler, yunikorn_namespace=yunikorn_namespace, as_given=as_given,
                                 cache=cache)
    if volcano_cli.is_volcano(inputs, scheduler):
        volcano_cli.refuse_kueue_options(as_given=as_given)
        raise typer.Exit(volcano_cli.audit(inputs, scheduler_conf, output, plot, not no_headers, sort_by,
                                           namespace, options.row_limit(limit, show_all)))
    volcano_cli.refuse_volcano_options(scheduler_conf)
    from kqctl.cli.schedulers import choose

    if choose(scheduler, inputs.objects).name == "yunikorn":
        from kqctl.cli.yunikorn import audit_yunikorn

        if as_given:
            raise UsageError("--as-given applies to Kueue only (the input is YuniKorn's)")
        audit_yunikorn(inputs, output, plot, not no_headers, sort_by, namespace, options.row_limit(limit, show_all))
    snapshot = load_snapshot(inputs, scheduler, as_given=as_given)
    report = audit(snapshot)
    if namespace is not None:
        options.note_namespace(namespace, (lq.namespace for lq in snapshot.local_queues.values()), "LocalQueue")
        report = for_namespace(report, namespace)
    from kqctl.render.columns import TableOptions

    view = TableOptions(sort_by=sort_by, limit=options.row_limit(limit, show_all), color=color)
    _render(report, output, color, not no_headers, view)
    if plot is not None:
        from kqctl.kueue.render.audit import quota_chart

        write_chart_file(quota_chart(report), plot)
    raise typer.Exit(EXIT_OK)


def _render(report: AuditReport, output: str, color: str, headers: bool, view: TableOptions) -> None:
    from kqctl.kueue.render.audit import render_audit

    try:
        render_audit(report, output, sys.stdout, color=color, headers=headers, view=view)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
