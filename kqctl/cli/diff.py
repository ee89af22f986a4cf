"""``kqctl diff BEFORE AFTER``: what a configuration change does to the workloads."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer

from kqctl.cli import options, timeline
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.replay import (
    ArrivalsOption,
    CycleLatencyOption,
    FinishLatencyOption,
    ReplaySettings,
    RuntimeOption,
    SeedOption,
    TraceOption,
    add_traces,
    check_runtimes,
    refuse_kueue_replay_options,
)
from kqctl.cli.schedulers import choose
from kqctl.cli.timeline import SchedulePeriodOption
from kqctl.errors import EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.load.objects import LoadedObject, LoadResult

HELP = "\n\n".join((
    "Compare two configurations: two snapshots, two configuration directories (a PR's base and head: Kueue's "
    "queues, Volcano's Queues and scheduler configuration, YuniKorn's queues.yaml or ConfigMaps), or one snapshot and "
    "the same with --set changes (a YuniKorn queue as queue/root.PATH.FIELD). The scheduler runs on both to a steady "
    "state and the diff lists the workloads whose outcome changes, and the configuration fields that differ.",
    "--with PATH adds inputs both sides share (the workloads of a cluster snapshot, for example); BEFORE's and "
    "AFTER's own objects replace theirs. --replay also replays both sides in virtual time and shows how the waits' "
    "percentiles move per queue and priority; a workload that never gets in counts as never, and is named.",
    "-o markdown is a ready pull-request comment. Exit code 1 with --fail-on regression when a workload running "
    "before is not running after (in the steady state, or in the replay); otherwise 0.",
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
    "kqctl diff samples/volcano-two-teams --set queue/team-a.spec.weight=3 -o markdown",
    "kqctl diff samples/yunikorn-priority --set queue/root.tenant1.properties.priority.offset=11 --replay "
    "--runtime 30m --now 2026-01-01T12:00:00Z",
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
    arrivals: str | None = ArrivalsOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                             help="Force fair sharing on or off on both sides."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates, for both sides."),
    now: str | None = typer.Option(None, "--now", metavar="TIME", help="The clock of both sides (RFC 3339)."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT", help="table, json, yaml or markdown."),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="WHAT",
                                       help="regression: exit 1 when a workload running before is not after "
                                            "(steady state or replay)."),
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
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    schedule_period: str | None = SchedulePeriodOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
) -> None:
    from kqctl.cli.simulate import load_snapshot, parse_now, simulation_options
    from kqctl.kueue.render.diff import render_diff
    from kqctl.kueue.replay.diff import diff_snapshots
    from kqctl.render.columns import TableOptions
    from kqctl.render.output import check_output

    check_output(output, DIFF_FORMATS)
    if fail_on is not None and fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on {fail_on!r}; choose: {', '.join(FAIL_ON)}")
    if after is None and not sets:
        raise UsageError("nothing to compare: give AFTER, or --set changes to apply to BEFORE")
    shaping = [flag for flag, value in (("--runtime", runtime), ("--arrivals", arrivals)) if value is not None]
    if shaping and not replay:
        # Runtimes and drawn arrivals only matter to a replay: without --replay they would silently change nothing.
        raise UsageError(f"{' and '.join(shaping)} {'shapes' if len(shaping) == 1 else 'shape'} the replays: pass "
                         f"--replay with {'it' if len(shaping) == 1 else 'them'}")
    parsed_selector = options.check_workload_filter(namespace, all_namespaces, selector)
    # Every usage error before anything is read.
    time = timeline.settings(runtime, finish_latency, None, seed, now, schedule_period, arrivals)
    kueue_settings = ReplaySettings(runtime, cycle_latency, finish_latency, seed, None, fair_sharing, feature_gates,
                                    arrivals)
    kueue_settings.options()
    shared = _shared(with_paths, recursive, strict, from_cluster, context, kubeconfig, scheduler, override,
                     yunikorn_namespace, as_given, cache)
    old_inputs = _side_inputs(before, shared, recursive, strict, None, scheduler, override, as_given, cache)
    new_inputs = _side_inputs(after or before, shared, recursive, strict, sets, scheduler, override, as_given, cache)
    product = choose(scheduler, [*old_inputs.objects, *new_inputs.objects]).product
    if product != "Kueue":
        refuse_kueue_replay_options(product, cycle_latency, fair_sharing, feature_gates, as_given=as_given)
        view = TableOptions(limit=options.row_limit(limit, show_all))
        raise typer.Exit(timeline.diff_other(product, old_inputs, new_inputs, traces or [], replay, time,
                                             schedule_period, scheduler_conf, output, fail_on, namespace,
                                             parsed_selector, view))
    timeline.refuse_schedule_period("Kueue", schedule_period, None)
    volcano_cli.refuse_volcano_options(scheduler_conf)
    replay_options = kueue_settings.options() if replay else None
    sim_options = simulation_options(None, fair_sharing, feature_gates, now)
    clock = parse_now(now)
    old = load_snapshot(old_inputs, scheduler, clock, "diff", as_given)
    new = load_snapshot(new_inputs, scheduler, clock, "diff", as_given)
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
            kubeconfig: str | None, scheduler: str | None, override: bool,
            yunikorn_namespace: str | None = None, as_given: bool = False,
            cache: str | None = None) -> LoadResult | None:
    if not paths and not from_cluster:
        options.check_cluster_options(from_cluster, context, kubeconfig, yunikorn_namespace=yunikorn_namespace)
        return None
    return options.load_inputs(paths, None, recursive, strict, from_cluster, context, kubeconfig, None, override,
                               scheduler, yunikorn_namespace=yunikorn_namespace, as_given=as_given, cache=cache)


def _side_inputs(path: str, shared: LoadResult | None, recursive: bool, strict: bool, sets: list[str] | None,
                 scheduler: str | None, override: bool, as_given: bool = False, cache: str | None = None) -> LoadResult:
    """One side: the shared inputs, with this side's objects replacing theirs, then its --set changes, the whole
    through the gate as simulate admits its inputs (objects admitted already are not checked again; the --set
    changes and the checks across objects are).
    ``override``: within this side's own files, the definition read last wins (--with's were resolved already)."""
    from kqctl.load.objects import LoadResult
    from kqctl.load.overrides import parse_override

    overrides = [parse_override(text) for text in sets or []]
    own = options.load_inputs([path], None, recursive, strict, False, None, None, None, override, scheduler,
                              as_given=as_given, cache=cache)
    if shared is not None:
        own = LoadResult(_replacing(shared.objects, own.objects), [*shared.unreadable, *own.unreadable],
                         [*shared.files, *own.files])
    return options.admitted(options.edited(own, overrides, False), scheduler, as_given)


def _replacing(shared: list[LoadedObject], own: list[LoadedObject]) -> list[LoadedObject]:
    from kqctl.load.overrides import identity

    mine = {identity(obj) for obj in own if identity(obj) is not None}
    return [*(obj for obj in shared if identity(obj) not in mine), *own]
