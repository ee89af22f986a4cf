"""``kqctl simulate``: dry-run Kueue's admission over a snapshot."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

import typer

from kqctl.cli import fail_on as fail_on_states
from kqctl.cli import options
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.progress import LARGE_INPUT
from kqctl.errors import EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.cli.progress import Progress
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.engine.entry import CycleResult
    from kqctl.kueue.engine.results import SimulationResult
    from kqctl.kueue.engine.simulation import SimulationOptions
    from kqctl.kueue.load import WorkloadsAhead
    from kqctl.load.objects import LoadResult
    from kqctl.render.columns import TableOptions

HELP = """Dry-run Kueue's, Volcano's or YuniKorn's scheduler over a snapshot: which workloads get in (Kueue: on
which flavors, how much they borrow, whom they preempt; Volcano: which PodGroups are enqueued, which pods are
bound to which node, whom reclaim evicts; YuniKorn: which pods are allocated to which node, in which order, and
whom preemption evicts).

By default cycles run until a steady state (releases of preempted workloads are instant);
--cycles N runs exactly N scheduling cycles. Exit code 0 whenever the simulation ran, unless --fail-on names
a state some workload ends in (then 1)."""

SIMULATE_FORMATS = ("table", "wide", "name", "json", "yaml")
FailOnOption = typer.Option(None, "--fail-on", metavar="STATE[,STATE]", help=fail_on_states.HELP)


EXAMPLES = options.examples(
    "kqctl simulate samples/cohort-borrowing",
    "kqctl simulate samples/preemption --cycles 1 -o json",
    "kqctl simulate samples/cohort-borrowing samples/submit-jobs --fail-on inadmissible",
    "kqctl simulate --from-cluster --context prod -n team-a",
    "kqctl simulate --scheduler volcano samples/volcano-two-teams",
)

def simulate_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    cycles: int | None = typer.Option(None, "--cycles", metavar="N", min=1, help="Run exactly N scheduling cycles."),
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                                help="Force fair sharing on or off (default: as the Kueue "
                                                     "Configuration in the inputs says; off without one)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates",
                                                metavar="NAME=BOOL,...",
                                                help="Kueue feature gates, e.g. PartialAdmission=false,Other=true, "
                                                     "over the Kueue Configuration's featureGates in the inputs. "
                                                     "Every gate Kueue defines is accepted with Kueue's default; "
                                                     "gates that do not change admission have no effect."),
    now: str | None = typer.Option(None, "--now", metavar="TIME",
                                   help="The snapshot's clock (RFC 3339); default: now."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide, name, json, yaml, jsonpath=TEMPLATE or custom-columns=SPEC."),
    namespace: str | None = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE",
                                         help="Only show workloads of this namespace."),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="Show workloads of every namespace "
                                        "(the default)."),
    selector: str | None = typer.Option(None, "-l", "--selector", metavar="SELECTOR",
                                        help="Only show workloads whose labels match, e.g. team=a,tier!=batch."),
    no_headers: bool = options.NoHeadersOption,
    sort_by: str | None = options.SortByOption,
    limit: int = options.LimitOption,
    show_all: bool = options.ShowAllOption,
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    fail_on: list[str] | None = FailOnOption,
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
) -> None:
    from kqctl.kueue.engine.simulation import simulate
    from kqctl.render.output import check_output

    check_output(output, SIMULATE_FORMATS)
    if namespace and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces cannot be used together")
    if selector is not None:
        options.parse_selector(selector)  # a bad -l is a usage error before anything is read
    failing_states = fail_on_states.parse(fail_on)
    sim_options = simulation_options(cycles, fair_sharing, feature_gates, now)
    from kqctl.cli.progress import Progress
    from kqctl.render.columns import TableOptions

    # With --scheduler named, what it refuses is known before the inputs (or a whole cluster) are read.
    volcano_cli.refuse_early(scheduler, scheduler_conf, fair_sharing=fair_sharing, feature_gates=feature_gates,
                             now=now, as_given=as_given)
    progress = Progress()
    progress.step("kqctl: reading the inputs...")
    from kqctl.kueue.load import WorkloadsAhead

    workloads_ahead = WorkloadsAhead()  # Kueue's Workloads decoded while the files are still read
    inputs = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig,
                                 sets, override, scheduler, yunikorn_namespace=yunikorn_namespace, as_given=as_given,
                                 cache=cache, prepare=workloads_ahead.prepare)
    view = TableOptions(headers=not no_headers, sort_by=sort_by, limit=options.row_limit(limit, show_all),
                        color=color)
    if volcano_cli.is_volcano(inputs, scheduler):
        volcano_cli.refuse_kueue_options(fair_sharing=fair_sharing, feature_gates=feature_gates, now=now,
                                         as_given=as_given)
        progress.done()
        raise typer.Exit(volcano_cli.simulate(inputs, scheduler_conf, cycles, output, namespace, selector, view,
                                              failing_states))
    volcano_cli.refuse_volcano_options(scheduler_conf)
    from kqctl.cli.schedulers import choose

    if choose(scheduler, inputs.objects).name == "yunikorn":
        from kqctl.cli.yunikorn import simulate_yunikorn

        kueue_only = [flag for flag, given in (("--fair-sharing", fair_sharing is not None),
                                               ("--feature-gates", feature_gates is not None),
                                               ("--as-given", as_given)) if given]
        simulate_yunikorn(inputs, sim_options.now, cycles, output, namespace, selector, kueue_only, failing_states,
                          view, progress)
    progress.step(f"kqctl: building the snapshot of {len(inputs.objects):,} objects...", len(inputs.objects))
    snapshot = load_snapshot(inputs, scheduler, sim_options.now, as_given=as_given, ahead=workloads_ahead)
    progress.step(f"kqctl: simulating {len(snapshot.workloads):,} workloads...", len(inputs.objects))
    if progress.enabled and len(inputs.objects) >= LARGE_INPUT:
        sim_options = dataclasses.replace(sim_options, on_cycle=cycle_progress(progress, len(snapshot.workloads)))
    result = simulate(snapshot, sim_options)
    progress.done()

    render(result, output, namespace, selector, view)
    note_nothing_shown(result, namespace, selector)
    failing = workloads_in_states(result, failing_states, namespace, selector)
    raise typer.Exit(EXIT_FINDINGS if fail_on_states.report(failing, failing_states) else EXIT_OK)


def cycle_progress(progress: Progress, workloads: int) -> Callable[[CycleResult, int], None]:
    """The progress line during the cycles (a large input can take thousands of them), at most 5 times a second."""
    admitted = 0
    shown_at = 0.0

    def on_cycle(result: CycleResult, limit: int) -> None:
        nonlocal admitted, shown_at
        admitted += len(result.admitted)
        now = time.monotonic()
        if now - shown_at >= 0.2:
            shown_at = now
            progress.step(f"kqctl: simulating {workloads:,} workloads: cycle {result.number:,} of at most {limit:,},"
                          f" {admitted:,} admitted so far")

    return on_cycle


def endings(result: SimulationResult) -> list[fail_on_states.Ending]:
    """Kueue's end states in --fail-on's terms (README, "--fail-on"): running when admitted (also in an inactive
    ClusterQueue; not while waiting for admission checks), never when the engine found it can never get in as
    configured (verdict.py), evicted when preempted during the run."""
    return [fail_on_states.Ending(key, w.running, w.never is not None, w.evicted)
            for key, w in result.workloads.items()]


def workloads_in_states(result: SimulationResult, states: set[str], namespace: str | None = None,
                        selector: str | None = None) -> list[str]:
    """The workloads whose end falls in one of the --fail-on states, by name: among those -n and -l show (a CI job
    for one team asks about that team's workloads), in every scheduler alike."""
    from kqctl.kueue.render.simulation import workload_filter

    keep = workload_filter(namespace, selector)
    return fail_on_states.failing(endings(result), states, lambda key: keep(result.workloads[key]))


def load_snapshot(inputs: LoadResult, scheduler: str | None, now: datetime | None = None,
                  command: str | None = None, as_given: bool = False, ahead: WorkloadsAhead | None = None) -> Snapshot:
    """Inputs (admitted by the gate, or ``as_given``) to one Kueue snapshot; any unreadable or undecodable
    object is a located error (exit 3).

    The input must be Kueue's (or hold only core kinds): two schedulers' objects are a usage error.
    ``command``: the Kueue-only command asking (replay, diff, plan), for the message when they are not.
    ``ahead``: Workload models decoded while the inputs were read (kqctl.kueue.load.WorkloadsAhead).
    """
    from kqctl.cli.schedulers import choose
    from kqctl.kueue.load import build_snapshot

    chosen = choose(scheduler, inputs.objects)
    if chosen.name != "kueue":
        if command is not None:
            raise UsageError(f"kqctl {command} is Kueue-only for now and these inputs are {chosen.product}'s; "
                             f"kqctl validate, simulate, explain and audit read {chosen.product}")
        raise UsageError(f"kqctl does not simulate {chosen.product} yet")
    return build_snapshot(inputs, now, as_given=as_given, ahead=ahead)


def simulation_options(cycles: int | None, fair_sharing: bool | None, feature_gates: str | None,
                       now: str | None) -> SimulationOptions:
    from kqctl.kueue.engine.features import FeatureGateError, FeatureGates
    from kqctl.kueue.engine.simulation import SimulationOptions

    try:
        gates = FeatureGates.parse(feature_gates)
    except FeatureGateError as exc:
        raise UsageError(str(exc)) from None
    return SimulationOptions(cycles=cycles, fair_sharing=fair_sharing, gates=gates, now=parse_now(now))


def parse_now(text: str | None) -> datetime:
    """RFC 3339 with any number of fractional digits (Kubernetes prints nanoseconds)."""
    from datetime import timezone

    from kqctl.k8s.core import ModelError, parse_time

    if text is None:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        return parse_time(text, ())
    except ModelError:
        raise UsageError(f"--now {text!r} is not an RFC 3339 time such as 2026-01-31T12:00:00Z") from None


def note_nothing_shown(result: SimulationResult, namespace: str | None, selector: str | None) -> None:
    """Why no workload is shown although the inputs hold some, on stderr (as kubectl's "No resources found"), so
    that stdout stays the result a pipe parses: the -n note every command gives, or -l matching none."""
    from kqctl.kueue.render.simulation import workload_filter

    present = [w.namespace for w in result.workloads.values()]
    if options.note_namespace(namespace, present):
        return
    keep = workload_filter(namespace, selector)
    options.note_selector(selector, namespace, map(keep, result.workloads.values()))


def render(result: SimulationResult, output: str, namespace: str | None, selector: str | None,
           view: TableOptions) -> None:
    from kqctl.kueue.render.simulation import render_simulation

    try:
        render_simulation(result, output, sys.stdout, namespace=namespace, selector=selector, color=view.color,
                          table=view)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
