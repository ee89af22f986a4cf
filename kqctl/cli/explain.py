"""``kqctl explain``: why a workload is (not) admitted, and what would change that."""

from __future__ import annotations

import sys

import typer

from kqctl.cli import options
from kqctl.cli.simulate import load_snapshot, simulation_options
from kqctl.errors import EXIT_OK, UsageError

HELP = """Explain the decision for one workload (namespace/name, or a Job name that maps to one): resource by
resource and flavor by flavor, with the quota arithmetic, who is ahead of it, preemption candidates,
and verified changes that would let it in."""

EXPLAIN_FORMATS = ("table", "json", "yaml")
WorkloadArgument = typer.Argument(..., metavar="WORKLOAD", help="namespace/name of the workload, or a Job name.")
PathsArgument = typer.Argument(None, metavar="PATH", show_default=False,
                               help="Files or directories to read (or use -f).")


EXAMPLES = options.examples(
    "kqctl explain team-a/job-llm-finetune-0d5b7 samples/cohort-borrowing",
    "kqctl explain job-llm-finetune-0d5b7 snapshot.yaml -o json",
    "kqctl explain team-a/my-job --from-cluster",
)

def explain_command(
    workload: str = WorkloadArgument,
    paths: list[str] | None = PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                                help="Force fair sharing on or off."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates, Name=bool,..."),
    now: str | None = typer.Option(None, "--now", metavar="TIME",
                                   help="The snapshot's clock (RFC 3339); default: now."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT", help="table, json or yaml."),
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
) -> None:
    from kqctl.engine.explain import UnknownWorkload, explain, resolve_key
    from kqctl.render.explain import render_explanation

    if output not in EXPLAIN_FORMATS:
        raise UsageError(f"unknown output format {output!r}; choose one of: {', '.join(EXPLAIN_FORMATS)}")
    sim_options = simulation_options(None, fair_sharing, feature_gates, now)
    inputs = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig)
    snapshot = load_snapshot(inputs, sim_options.now)
    try:
        key = resolve_key(snapshot, workload)
        explanation = explain(snapshot, key, sim_options)
    except UnknownWorkload as exc:
        raise UsageError(str(exc)) from None
    render_explanation(explanation, output, sys.stdout, color)
    raise typer.Exit(EXIT_OK)
