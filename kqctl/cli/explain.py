"""``kqctl explain``: why a workload is (not) admitted, and what would change that."""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.replay import parse_runtime
from kqctl.cli.simulate import load_snapshot, simulation_options
from kqctl.errors import EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.cli.forked import EstimateAhead
    from kqctl.cli.snapshot_cache import SnapshotCache
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.engine.explain import Explanation
    from kqctl.kueue.engine.simulation import Simulation, SimulationOptions
    from kqctl.kueue.replay.estimate import WaitEstimate
    from kqctl.replay.durations import Distribution

HELP = """Explain the decision for one workload (namespace/name, or a Job name that maps to one): resource by
resource and flavor by flavor, with the quota arithmetic, who is ahead of it, preemption candidates,
and verified changes that would let it in. For Volcano: a PodGroup (or a vcjob or pod name), the gate that
stopped it, the queue's real capability and deserved share, and verified changes. For YuniKorn: a pod
(namespace/name), from placement to headroom and preemption, or a queue with --queue."""

EXPLAIN_FORMATS = ("table", "wide", "json", "yaml")
NOT_YUNIKORN_QUEUE = "--queue explains a YuniKorn queue; the input is not YuniKorn's (pass --scheduler yunikorn)"
WorkloadArgument = typer.Argument(None, metavar="WORKLOAD", show_default=False,
                                  help="namespace/name of the workload, or a Job name (not with -l).")
PathsArgument = typer.Argument(None, metavar="PATH", show_default=False,
                               help="Files or directories to read (or use -f).")


EXAMPLES = options.examples(
    "kqctl explain team-a/job-llm-finetune-0d5b7 samples/cohort-borrowing",
    "kqctl explain -n team-a job-llm-finetune-0d5b7 samples/cohort-borrowing -o json",
    "kqctl explain -l kueue.x-k8s.io/job-uid samples/cohort-borrowing  # every pending workload with that label",
    "kqctl explain team-a/job-llm-finetune-0d5b7 --from-cluster",
    "kqctl explain --scheduler volcano team-b/team-b-job-3 samples/volcano-two-teams",
    "kqctl explain --queue root.tenant1.a samples/yunikorn-priority  # YuniKorn: priorities and order",
    "kqctl explain team1/a-job-0 samples/yunikorn-priority  # YuniKorn: why a pod waits",
)


def explain_command(
    workload: str | None = WorkloadArgument,
    paths: list[str] | None = PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                                help="Force fair sharing on or off."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates, Name=bool,..."),
    now: str | None = typer.Option(None, "--now", metavar="TIME",
                                   help="The snapshot's clock (RFC 3339); default: now."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide (every column of its tables), json, yaml, "
                                    "jsonpath=TEMPLATE or custom-columns=SPEC."),
    namespace: str | None = typer.Option(None, "-n", "--namespace", metavar="NAMESPACE",
                                         help="The workload's namespace (or, with -l, only this namespace)."),
    all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces",
                                        help="With -l: workloads of every namespace (the default)."),
    selector: str | None = typer.Option(None, "-l", "--selector", metavar="SELECTOR",
                                        help="Explain every workload not admitted in the steady state whose labels "
                                             "match, one after another."),
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    estimate: bool = typer.Option(True, "--estimate/--no-estimate",
                                  help="Estimate when a waiting workload gets in, from a replay of the snapshot in "
                                       "which running workloads finish (see --runtime)."),
    runtime: str | None = typer.Option(None, "--runtime", metavar="DIST",
                                       help="For the estimate: the runtime of workloads that declare none "
                                            "(annotation kqctl.dev/runtime); default 1h, always stated."),
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    queue: str | None = typer.Option(None, "--queue", metavar="PATH",
                                     help="YuniKorn: explain a queue (root.a.b): the priority along its path and "
                                          "the order of the children at every level."),
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
) -> None:
    from kqctl.kueue.engine.explain import NoWorkload, UnknownWorkload, explain, resolve_key
    from kqctl.kueue.render.explain import render_explanation, render_explanations, render_no_workload
    from kqctl.render.output import check_output

    check_output(output, EXPLAIN_FORMATS)
    _refuse_field_path(workload)
    if namespace and all_namespaces:
        raise UsageError("-n/--namespace and -A/--all-namespaces cannot be used together")
    if queue is not None and (selector is not None or namespace or all_namespaces):
        selecting = [flag for flag, value in (("-l", selector), ("-n", namespace), ("-A", all_namespaces)) if value]
        several = len(selecting) > 1
        raise UsageError(f"--queue explains one queue: {' and '.join(selecting)} select{'' if several else 's'} "
                         f"workloads, which it does not list; leave {'them' if several else 'it'} out, or explain the "
                         "pods without --queue")
    if selector is not None:
        parsed = options.parse_selector(selector)
        paths = [workload, *(paths or [])] if workload is not None else paths  # no WORKLOAD with -l
        workload = None
    elif queue is not None:
        paths = [workload, *(paths or [])] if workload is not None else paths  # no WORKLOAD with --queue
        workload = None
    elif workload is None:
        raise UsageError("name a workload (namespace/name, or a Job name), or pass -l SELECTOR")
    else:
        _refuse_swapped_arguments(workload, paths or [], filenames or [])
    sim_options = simulation_options(None, fair_sharing, feature_gates, now)
    assumed_runtime = parse_runtime(runtime)
    from kqctl.cli.progress import Progress

    volcano_cli.refuse_early(scheduler, scheduler_conf, fair_sharing=fair_sharing, feature_gates=feature_gates,
                             now=now, runtime=runtime, as_given=as_given)
    progress = Progress()
    progress.step("kqctl: reading the inputs...")
    kept = _kept_snapshot(cache, paths, filenames, recursive, strict, from_cluster, scheduler, sets, override,
                          as_given)
    hit = kept.get(sim_options.now) if kept is not None else None
    if hit is not None:  # the same files and flags as a run that built this snapshot: what it wrote, then its answer
        sys.stderr.write(hit.stderr)
        if queue is not None:
            raise UsageError(NOT_YUNIKORN_QUEUE)
        size, snapshot = hit.objects, hit.snapshot
    else:
        from kqctl.cli.snapshot_cache import recording_stderr
        from kqctl.kueue.load import WorkloadsAhead

        workloads_ahead = WorkloadsAhead()  # Kueue's Workloads decoded while the files are still read
        with recording_stderr() as written:
            inputs = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig,
                                         sets, override, scheduler, yunikorn_namespace=yunikorn_namespace,
                                         as_given=as_given, cache=cache, prepare=workloads_ahead.prepare)
        if volcano_cli.is_volcano(inputs, scheduler):
            progress.done()
            volcano_cli.refuse_kueue_options(fair_sharing=fair_sharing, feature_gates=feature_gates, now=now,
                                             runtime=runtime, as_given=as_given)
            raise typer.Exit(volcano_cli.explain(inputs, scheduler_conf, workload if selector is None else None,
                                                 namespace, parsed if selector is not None else None, output))
        volcano_cli.refuse_volcano_options(scheduler_conf)
        from kqctl.cli.schedulers import choose

        if choose(scheduler, inputs.objects).name == "yunikorn":
            from kqctl.cli.yunikorn import explain_yunikorn

            progress.done()
            for flag, given in (("--runtime", runtime is not None), ("--as-given", as_given)):
                if given:
                    raise UsageError(f"{flag} applies to Kueue only (the input is YuniKorn's)")
            explain_yunikorn(inputs, sim_options.now, workload, queue, namespace, output, selector)
        if queue is not None:
            raise UsageError(NOT_YUNIKORN_QUEUE)
        size = len(inputs.objects)
        progress.step(f"kqctl: building the snapshot of {size:,} objects...", size)
        with recording_stderr() as building:
            snapshot = load_snapshot(inputs, scheduler, sim_options.now, as_given=as_given, ahead=workloads_ahead)
        if kept is not None:
            from kqctl.kueue.load import reads_clock

            kept.put(snapshot, size, "".join([*written, *building]), reads_clock(inputs))
    from kqctl.kueue.engine.workloads import WorkloadMemo

    # One memo of the workloads' pod sets and shapes for every simulation below: explain's and the estimate's replay.
    sim_options = dataclasses.replace(sim_options, memo=WorkloadMemo())
    if selector is not None:
        progress.step(f"kqctl: simulating {len(snapshot.workloads):,} workloads...", size)
        keys = _selected(snapshot, sim_options, parsed, namespace)
        explanations = []
        for number, key in enumerate(keys, 1):
            progress.step(f"kqctl: explaining {key} ({number:,} of {len(keys):,})...", size)
            explanations.append(explain(snapshot, key, sim_options))
        progress.step("kqctl: replaying for the wait estimates...", size)
        estimates = _estimates(snapshot, explanations, sim_options, assumed_runtime) if estimate else {}
        progress.done()
        render_explanations(explanations, output, sys.stdout, color, estimates)
        if not explanations:  # on stderr, as kubectl's "No resources found": stdout stays the (empty) result
            options.note_namespace(namespace, (w.namespace for w in snapshot.workloads))
            sys.stderr.write("kqctl: no workload matches that is not admitted in the steady state\n")
        raise typer.Exit(EXIT_OK)
    assert workload is not None
    name = f"{namespace}/{workload}" if namespace and "/" not in workload else workload
    from kqctl.cli.forked import EstimateAhead, checks_apart, worth_it

    ahead: EstimateAhead | None = None
    try:
        key = resolve_key(snapshot, name)

        def replay_meanwhile(steady: Simulation) -> None:
            # On a large input the estimate's replay, and some of the suggestions' checks, run in copies of this
            # process meanwhile, on the other core (forked.py); the replay's copy takes explain's run as set up.
            nonlocal ahead
            ahead = EstimateAhead.start(snapshot, sim_options, assumed_runtime, key, steady)

        progress.step(f"kqctl: explaining {key} among {len(snapshot.workloads):,} workloads...", size)
        explanation = explain(snapshot, key, sim_options, checks_apart if worth_it(snapshot) else None,
                              replay_meanwhile if estimate else None)
        progress.step("kqctl: replaying for the wait estimate...", size)
        estimates = _estimates(snapshot, [explanation], sim_options, assumed_runtime, ahead) if estimate else {}
    except UnknownWorkload as exc:
        progress.done()
        raise UsageError(str(exc)) from None
    except NoWorkload as exc:
        progress.done()
        render_no_workload(exc.kind, exc.key, exc.reason, output, sys.stdout)
        raise typer.Exit(EXIT_OK) from None
    finally:
        if ahead is not None:
            ahead.close()
    progress.done()
    render_explanation(explanation, output, sys.stdout, color, estimates.get(key))
    raise typer.Exit(EXIT_OK)


def _kept_snapshot(cache: str | None, paths: list[str] | None, filenames: list[str] | None, recursive: bool,
                   strict: bool, from_cluster: bool, scheduler: str | None, sets: list[str] | None, override: bool,
                   as_given: bool) -> SnapshotCache | None:
    """With --cache DIR: the entry of the snapshot these files and flags build (snapshot_cache.py), or None (no
    --cache; a flag --cache refuses, left to the loading to say; inputs that are not plain files)."""
    if cache is None or from_cluster or as_given or not (paths or filenames):
        return None
    from kqctl.cli.snapshot_cache import open_snapshot_cache
    from kqctl.load.overrides import parse_override

    for text in sets or []:  # as the loading does: a --set's syntax error comes before anything else
        parse_override(text)

    kept = options.read_cache(cache, scheduler, strict, from_cluster, as_given)
    if kept is None:
        return None
    return open_snapshot_cache(kept.directory, options.all_paths(paths, filenames), recursive, sets, override)


def _estimates(snapshot: Snapshot, explanations: list[Explanation], sim_options: SimulationOptions,
               assumed_runtime: Distribution | None, ahead: EstimateAhead | None = None) -> dict[str, WaitEstimate]:
    """One replay of the snapshot, read for every explained workload that does not hold quota now (``ahead``: that
    replay, when a worker ran it meanwhile)."""
    from kqctl.cli.replay import check_runtimes
    from kqctl.kueue.replay.estimate import estimate_from, replay_for_explained

    # Every one that holds no quota now, or loses it (preempted) in the steady state; not one that is not queued (no
    # LocalQueue, a stopped one...): that waits for a change, not for time.
    waiting = [e.key for e in explanations if (not e.admitted or not e.gets_in)
               and (e.steady is None or e.steady.queue_problem is None)]
    if not waiting:
        return {}
    check_runtimes(snapshot)
    report = ahead.report(waiting) if ahead is not None else None
    if report is None:
        report = replay_for_explained(snapshot, sim_options, assumed_runtime, waiting)
    fits = {e.key: e.gets_in for e in explanations}
    found = {key: estimate_from(report, key, fits[key]) for key in waiting}
    return {key: value for key, value in found.items() if value is not None}


def _selected(snapshot: Snapshot, sim_options: SimulationOptions, selector: dict[str, object],
              namespace: str | None) -> list[str]:
    """Workloads matching -l (and -n) that are not admitted in the steady state, by key."""
    from kqctl.k8s.selectors import selector_matches
    from kqctl.kueue.engine.simulation import simulate

    result = simulate(snapshot, sim_options)
    return sorted(key for key, workload in result.workloads.items()
                  if workload.admission is None
                  and (namespace is None or workload.namespace == namespace)
                  and selector_matches(selector, dict(workload.labels)))


def _refuse_field_path(workload: str | None) -> None:
    """``kqctl explain clusterqueue.spec.preemption`` means kubectl explain's field documentation: say that kqctl
    explain takes a workload and name the command that documents fields."""
    if workload is None or "/" in workload or "." not in workload:
        return
    from kqctl.validate.field_docs import names_a_kind

    if names_a_kind(workload.split(".", 1)[0]):
        raise UsageError(f"kqctl explain takes a workload (namespace/name), not a field: {workload!r} looks like "
                         f"kubectl explain's RESOURCE.FIELD; for the field's documentation run: kqctl fields "
                         f"{workload}")


def _refuse_swapped_arguments(workload: str, paths: list[str], filenames: list[str]) -> None:
    """``kqctl explain PATH WORKLOAD`` (or a PATH alone) would otherwise read the path as the workload's name and
    say only that the workload's name is no file, or that no input was given: name the argument order instead."""
    import os

    if workload == "-" or not os.path.exists(workload):
        return
    what = "directory" if os.path.isdir(workload) else "file"
    if not paths and not filenames:
        raise UsageError(f"{workload!r} is a {what}, not a workload: kqctl explain NAMESPACE/NAME {workload} "
                         f"(or -l SELECTOR {workload} for every workload not admitted)")
    missing = [path for path in paths if path != "-" and not os.path.exists(path)]
    if missing:
        raise UsageError(f"the workload comes first: kqctl explain NAMESPACE/NAME PATH... ({workload!r} is a "
                         f"{what} and {missing[0]!r} is not); did you mean: kqctl explain {missing[0]} {workload}")
