"""``kqctl plan``: the smallest nominal quota that meets a target, found by replaying candidates in parallel."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options, timeline
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.executor import EXECUTOR_HELP, Study, Work, parse_executor
from kqctl.cli.replay import (
    ArrivalsOption,
    CycleLatencyOption,
    FinishLatencyOption,
    GeneratorOption,
    ReplaySettings,
    RuntimeOption,
    SeedOption,
    TraceOption,
    refuse_kueue_replay_options,
    replay_input,
    scheduler_inputs,
)
from kqctl.cli.timeline import SchedulePeriodOption
from kqctl.errors import EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.kueue.replay.plan import PlanProblem, Values

HELP = "\n\n".join((
    "Find the smallest quota that meets a target on the replay of the workloads it covers: Kueue's nominal quota, "
    "per flavor and resource, of a ClusterQueue (--for clusterqueue/NAME) or a cohort's ClusterQueues together "
    "(--for cohort/NAME); a Volcano Queue's capability, deserved, guarantee or weight (--for queue/NAME --field "
    "...); a YuniKorn queue's guaranteed or max (--for queue/root.PATH --field ...). Targets: "
    "'p95(time-to-admission) < 30m', 'mean(time-to-finish) <= 2h', 'no workload inadmissible', or several joined "
    "with 'and'.",
    "Candidates are replayed in parallel processes (--jobs), always the same ones in the same order. The answer "
    "is printed with the replays "
    "that prove it: the one at the answer meets the target, the one a step below misses it. Exit code 1 when no "
    "quota up to the cap (--max, default: every workload in scope at once) meets the target.",
))

EXAMPLES = options.examples(
    "kqctl plan samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z --for "
    "clusterqueue/team-a --target 'p95(time-to-admission) < 10m'",
    "kqctl plan samples/replay --trace samples/replay/arrivals.csv --for cohort/ml --resource default/cpu "
    "--target 'no workload inadmissible' --runtime 1h",
    "kqctl plan --generator examples/kueue-generator.yaml --for cohort/cohort-0 "
    "--target 'p95(time-to-admission) < 2m'",
    "kqctl plan samples/volcano-two-teams --for queue/team-a --field weight --runtime 30m --now "
    "2026-01-01T12:00:00Z --target 'p95(time-to-admission) < 20m'",
    "kqctl plan samples/yunikorn-priority --for queue/root.tenant1 --field guaranteed --runtime 30m --now "
    "2026-01-01T12:00:00Z --target 'p95(time-to-admission) < 10m'",
)

DEFAULT_CONFIDENCE = 95  # --confidence: the percentage of --seeds draws that must meet the target
PLAN_FORMATS = ("table", "wide", "json", "yaml")
FieldOption = typer.Option(None, "--field", metavar="FIELD",
                           help="What to plan: Volcano's capability (default), deserved, guarantee or weight of "
                                "--for queue/NAME; YuniKorn's guaranteed (default) or max of --for queue/PATH.")
ResourceOption = typer.Option(None, "--resource", metavar="FLAVOR/RESOURCE",
                              help="Plan only these (repeatable; default: every one the queue has).")
StepOption = typer.Option(None, "--step", metavar="RESOURCE=QUANTITY",
                          help="Granularity (repeatable; default cpu=1, memory=1Gi, others 1).")
MaxOption = typer.Option(None, "--max", metavar="RESOURCE=QUANTITY",
                         help="The largest quota to try (repeatable; default: enough for every workload in scope at "
                              "once).")


def plan_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    scope: str = typer.Option(..., "--for", metavar="KIND/NAME", show_default=False,
                              help="clusterqueue/NAME or cohort/NAME (Kueue), queue/NAME (Volcano) or queue/PATH "
                                   "(YuniKorn, e.g. queue/root.tenant1): whose quota to plan."),
    target: str = typer.Option(..., "--target", metavar="TARGET", show_default=False,
                               help="e.g. 'p95(time-to-admission) < 30m' or 'no workload inadmissible'."),
    resources: list[str] | None = ResourceOption,
    steps: list[str] | None = StepOption,
    maximum: list[str] | None = MaxOption,
    jobs: int = typer.Option(0, "--jobs", metavar="N", min=0,
                             help="Parallel replays (default: one per core; at most 2, the candidates of one round). "
                                  "The answer and -o json do not depend on it."),
    budget: int = typer.Option(60, "--budget", metavar="N", min=2, help="At most this many replays."),
    generator: str | None = GeneratorOption,
    traces: list[str] | None = TraceOption,
    runtime: str | None = RuntimeOption,
    cycle_latency: str = CycleLatencyOption,
    finish_latency: str = FinishLatencyOption,
    seed: int = SeedOption,
    arrivals: str | None = ArrivalsOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing", help="Force fair sharing."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates."),
    now: str | None = typer.Option(None, "--now", metavar="TIME", help="When the replays start (RFC 3339)."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide (with the replays' workload counts), json or yaml."),
    strict: bool = options.StrictOption,
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    field: str | None = FieldOption,
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    schedule_period: str | None = SchedulePeriodOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    seeds: int = typer.Option(0, "--seeds", metavar="N", min=0,
                              help="Replay every candidate under N random draws of the runtimes (--runtime "
                                   "uniform/exponential/lognormal) and the arrivals (--arrivals); seeds --seed, "
                                   "--seed + 1, ...; the target must be met in --confidence percent of them."),
    confidence: int = typer.Option(DEFAULT_CONFIDENCE, "--confidence", metavar="PERCENT", min=1, max=100,
                                   help="With --seeds: the percentage of draws that must meet the target."),
    executor: str = typer.Option("local", "--executor", metavar="WHERE", help=EXECUTOR_HELP),
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
) -> None:
    from kqctl.cli.progress import Progress
    from kqctl.kueue.render.plan import render_plan
    from kqctl.kueue.replay.plan import (
        PlanError,
        default_cap,
        evaluate,
        make_problem,
        search,
        with_seed,
    )
    from kqctl.render.output import check_output

    check_output(output, PLAN_FORMATS)
    # Every usage error before anything is read.
    where = parse_executor(executor)
    _check_draws(seeds, confidence, runtime, arrivals)
    time = timeline.settings(runtime, finish_latency, None, seed, now, schedule_period, arrivals)
    replay_options = ReplaySettings(runtime, cycle_latency, finish_latency, seed, None, fair_sharing,
                                    feature_gates, arrivals).options()
    loaded = None
    if generator is not None and cache is not None:
        raise UsageError("--generator builds its own cluster: --cache keeps files read, not with --generator")
    if generator is None:
        loaded, product = scheduler_inputs(paths, filenames, recursive, strict, sets, override, from_cluster, context,
                                           kubeconfig, scheduler, yunikorn_namespace, as_given, cache)
        if product != "Kueue":
            refuse_kueue_replay_options(product, cycle_latency, fair_sharing, feature_gates, as_given=as_given)
            study = Study(where, jobs, seed, seeds, confidence)
            raise typer.Exit(timeline.plan_other(product, loaded, traces or [], time, schedule_period, scheduler_conf,
                                                 scope, target, field, resources or [], steps or [], maximum or [],
                                                 study, budget, output))
    if field is not None:
        raise UsageError("--field applies to Volcano (capability, deserved, guarantee, weight) and YuniKorn "
                         "(guaranteed, max); Kueue's plan finds a nominalQuota")
    timeline.refuse_schedule_period("Kueue", schedule_period, None)
    volcano_cli.refuse_volcano_options(scheduler_conf)
    progress = Progress()
    progress.step("kqctl: reading the inputs...")
    snapshot = replay_input(paths, filenames, recursive, generator, traces, now, seed, strict, sets, override,
                            from_cluster, context, kubeconfig, scheduler, "plan", as_given=as_given, loaded=loaded)
    try:
        problem = make_problem(snapshot, target, scope, resources or (), steps or ())
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    cap = _cap(maximum or [], problem, default_cap(snapshot, problem))
    work = Work(evaluate, with_seed, snapshot, problem, replay_options)
    with Study(where, jobs, seed, seeds, confidence).open(work, progress) as evaluator:
        result = search(problem, evaluator, cap, budget=budget)
    progress.done()
    render_plan(result, output, sys.stdout, evaluator.workers)
    raise typer.Exit(EXIT_OK if result.answer is not None else EXIT_FINDINGS)


def _cap(texts: list[str], problem: PlanProblem, default: Values) -> Values:
    """--max for the resources it names; the others keep the default cap (enough for every workload in scope),
    not today's quota, or a cap on one resource would hold the others at what they have now."""
    from kqctl.k8s.quantity import QuantityError, parse_quantity, quota_value

    given: dict[str, int] = {}
    planned_names = {resource for _, resource in problem.resources}
    for text in texts:
        resource, _, amount = text.partition("=")
        try:
            given[resource] = quota_value(resource, parse_quantity(amount))
        except QuantityError:
            raise UsageError(f"--max {text!r}: expected RESOURCE=QUANTITY, e.g. cpu=64 or memory=256Gi") from None
        if resource not in planned_names:
            raise UsageError(f"--max {text!r}: {resource} is not a planned resource; planned: "
                             f"{', '.join(f'{f}/{r}' for f, r in problem.resources)}")
    planned = zip(problem.resources, default, problem.steps, strict=True)
    return tuple(max(given.get(resource, fallback), step) for (_, resource), fallback, step in planned)


def _check_draws(seeds: int, confidence: int, runtime: str | None, arrivals: str | None) -> None:
    """--seeds draws runtimes and arrivals: without a random --runtime or --arrivals every draw would be the same
    replay."""
    if seeds == 1:
        raise UsageError("--seeds 1 is one replay per candidate, as without --seeds: pass 2 or more draws")
    if confidence != DEFAULT_CONFIDENCE and not seeds:
        raise UsageError("--confidence applies with --seeds N (the share of N random draws that must meet the target)")
    random_runtime = runtime is not None and runtime.strip().startswith(("uniform", "exponential", "lognormal"))
    if seeds and not random_runtime and arrivals is None:
        raise UsageError("--seeds N draws the runtimes of workloads that declare none and the arrivals: pass a random "
                         "--runtime, e.g. --runtime 'lognormal(30m,0.8)' (uniform(MIN,MAX), exponential(MEAN), "
                         "lognormal(MEDIAN,SIGMA)), or --arrivals (jitter(DURATION) or poisson)")
