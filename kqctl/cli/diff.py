"""``kqctl diff BEFORE AFTER``: what a configuration change does to the workloads."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer

from kqctl.cli import options
from kqctl.cli.replay import (
    CycleLatencyOption,
    FinishLatencyOption,
    ReplaySettings,
    RuntimeOption,
    SeedOption,
    TraceOption,
    add_traces,
    check_runtimes,
)
from kqctl.errors import EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.load.objects import LoadedObject, LoadResult

HELP = "\n\n".join((
    "Compare two configurations: two snapshots, two configuration directories (a PR's base and head), or one "
    "snapshot and the same with --set changes. Kueue's scheduler runs on both to a steady state and the diff lists "
    "the workloads whose decision, flavor, borrowing or victims change, and the configuration fields that differ.",
    "--with PATH adds inputs both sides share (the workloads of a cluster snapshot, for example); BEFORE's and "
    "AFTER's own objects replace theirs. --replay also replays both sides in virtual time and shows how the time "
    "to admission percentiles move per ClusterQueue and priority.",
    "-o markdown is a ready pull-request comment. Exit code 1 with --fail-on regression when a workload admitted "
    "before is not admitted after; otherwise 0.",
))

EXAMPLES = options.examples(
    "kqctl diff samples/cohort-borrowing --set clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=10",
    "kqctl diff examples/queue-change/base examples/queue-change/head --with samples/cohort-borrowing/workloads.yaml",
    "kqctl diff examples/queue-change/base examples/queue-change/head --with samples/cohort-borrowing/workloads.yaml "
    "--replay --runtime 45m -o markdown > comment.md",
    "kqctl diff examples/queue-change/base examples/queue-change/head --with samples/cohort-borrowing/workloads.yaml "
    "--fail-on regression",
    "kqctl diff samples/cohort-borrowing --set clusterqueue/team-a.flavor.default-flavor.cpu.nominalQuota=10 "
    "-n team-a -l 'kueue.x-k8s.io/job-uid'",
)

DIFF_FORMATS = ("table", "json", "yaml", "markdown")
WithOption = typer.Option(None, "--with", metavar="PATH", help="Inputs both sides share (repeatable).")
FAIL_ON = ("regression",)
# As on simulate, -n and -l choose what is listed, never what is simulated or counted.
LISTED = ("as on simulate, both sides still run every workload and the counts cover every one; --fail-on asks"
          " about the workloads listed")


def diff_command(
    before: str = typer.Argument(..., metavar="BEFORE", help="A snapshot file or configuration directory.",
                                 show_default=False),
    after: str | None = typer.Argument(None, metavar="AFTER",
                                       help="The changed one (default: BEFORE with the --set changes)."),
    with_paths: list[str] | None = WithOption,
    recursive: bool = options.RecursiveOption,
    replay: bool = typer.Option(False, "--replay", help="Also replay both sides and compare time to admission."),
    traces: list[str] | None = TraceOption,
    runtime: str | None = RuntimeOption,
    cycle_latency: str = CycleLatencyOption,
    finish_latency: str = FinishLatencyOption,
    seed: int = SeedOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                             help="Force fair sharing on or off on both sides."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates, for both sides."),
    now: str | None = typer.Option(None, "--now", metavar="TIME", help="The clock of both sides (RFC 3339)."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT", help="table, json, yaml or markdown."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="WHAT",
                                       help="regression: exit 1 when a workload admitted before is not after."),
    namespace: str | None = options.namespace_option(LISTED),
    all_namespaces: bool = options.AllNamespacesOption,
    selector: str | None = options.selector_option(LISTED),
    limit: int = options.LimitOption,
    show_all: bool = options.ShowAllOption,
    strict: bool = options.StrictOption,
    sets: list[str] | None = options.SetOption,
    override: bool = typer.Option(False, "--override",
                                  help="When an object is defined twice within one side's inputs (BEFORE's or "
                                       "AFTER's files, or the --with inputs and the cluster), the one read last wins "
                                       "instead of a LOAD-DUPLICATE error. BEFORE's and AFTER's objects replace "
                                       "--with's without it."),
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
) -> None:
    from kqctl.cli.simulate import parse_now, simulation_options
    from kqctl.kueue.render.diff import render_diff
    from kqctl.kueue.replay.diff import diff_snapshots
    from kqctl.render.columns import TableOptions
    from kqctl.render.output import check_output

    check_output(output, DIFF_FORMATS)
    if fail_on is not None and fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on {fail_on!r}; choose: {', '.join(FAIL_ON)}")
    if after is None and not sets:
        raise UsageError("nothing to compare: give AFTER, or --set changes to apply to BEFORE")
    parsed_selector = options.check_workload_filter(namespace, all_namespaces, selector)
    replay_options = ReplaySettings(runtime, cycle_latency, finish_latency, seed, None, fair_sharing,
                                    feature_gates).options() if replay else None
    sim_options = simulation_options(None, fair_sharing, feature_gates, now)
    clock = parse_now(now)
    shared = _shared(with_paths, recursive, strict, from_cluster, context, kubeconfig, scheduler, override)
    old = _side(before, shared, recursive, strict, None, scheduler, clock, override)
    new = _side(after or before, shared, recursive, strict, sets, scheduler, clock, override)
    for side in (old, new):
        add_traces(side, traces or [], seed)  # the same arrivals on both sides
        if replay:
            check_runtimes(side)
    options.note_namespace(namespace, (w.namespace for side in (old, new) for w in side.workloads))
    listed_keys = listed(old, new, namespace, parsed_selector)
    report = diff_snapshots(old, new, sim_options, replay_options)
    view = TableOptions(limit=options.row_limit(limit, show_all))
    try:
        render_diff(report, output, sys.stdout, view, listed_keys)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # --fail-on asks about the workloads -n and -l list, as simulate's does.
    keys = [key for key in report.regression_keys if listed_keys is None or listed_keys(key)]
    if fail_on == "regression" and keys:
        shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
        sys.stderr.write(f"kqctl: {len(keys)} workload(s) admitted before are not admitted after (in the steady "
                         f"state, or never in the replay) (--fail-on regression): {shown}\n")
        raise typer.Exit(EXIT_FINDINGS)
    raise typer.Exit(EXIT_OK)


def listed(old: Snapshot, new: Snapshot, namespace: str | None,
           selector: dict[str, Any] | None) -> Callable[[str], bool] | None:
    """The workloads -n and -l list, by key: a workload is listed when it matches on either side (a --set or AFTER
    may change its labels; an added or removed one exists on one side only). None lists every one."""
    if namespace is None and selector is None:
        return None
    matches = options.workload_matcher(namespace, selector)
    return {w.key for side in (old, new) for w in side.workloads if matches(w.namespace, w.labels)}.__contains__


def _shared(paths: list[str] | None, recursive: bool, strict: bool, from_cluster: bool, context: str | None,
            kubeconfig: str | None, scheduler: str | None, override: bool) -> LoadResult | None:
    if not paths and not from_cluster:
        options.check_cluster_options(from_cluster, context, kubeconfig)
        return None
    return options.load_inputs(paths, None, recursive, strict, from_cluster, context, kubeconfig, None, override,
                               scheduler)


def _side(path: str, shared: LoadResult | None, recursive: bool, strict: bool, sets: list[str] | None,
          scheduler: str | None, clock: object, override: bool) -> Snapshot:
    """One side: the shared inputs, with this side's objects replacing theirs, then its --set changes.
    ``override``: within this side's own files, the definition read last wins (--with's were resolved already)."""
    from datetime import datetime

    from kqctl.cli.simulate import load_snapshot
    from kqctl.load.objects import LoadResult
    from kqctl.load.overrides import parse_override

    overrides = [parse_override(text) for text in sets or []]
    own = options.load_inputs([path], None, recursive, strict, False, None, None, None, override, scheduler)
    if shared is not None:
        own = LoadResult(_replacing(shared.objects, own.objects), [*shared.unreadable, *own.unreadable],
                         [*shared.files, *own.files])
    edited = options.edited(own, overrides, False)
    assert isinstance(clock, datetime)
    return load_snapshot(edited, scheduler, clock, "diff")


def _replacing(shared: list[LoadedObject], own: list[LoadedObject]) -> list[LoadedObject]:
    from kqctl.load.overrides import identity

    mine = {identity(obj) for obj in own if identity(obj) is not None}
    return [*(obj for obj in shared if identity(obj) not in mine), *own]
