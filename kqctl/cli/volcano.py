"""The CLI's Volcano glue: options only Volcano has, and the commands' Volcano branches.

The shared commands (validate, simulate, explain, audit, convert, snapshot) call in here when the input is
Volcano's (or ``--scheduler volcano``); nothing else in the CLI imports the Volcano package.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import typer

from kqctl.errors import UsageError

if TYPE_CHECKING:
    from kqctl.load.objects import LoadedObject, LoadResult
    from kqctl.render.columns import TableOptions
    from kqctl.validate.profile import ValidationProfile
    from kqctl.validate.report import ValidationReport
    from kqctl.volcano.validate.crossobject import Context
    from kqctl.volcano.validate.queue_webhook import WebhookFlags


# --- validate --------------------------------------------------------------------------------------------

AgainstOption = typer.Option(None, "--against", metavar="PATH", show_default=False,
                             help="Volcano: the state the inputs are applied to (a snapshot or manifests, "
                                  "repeatable): its queues are checked as updated, not created.")
PruneOption = typer.Option(False, "--prune", help="Volcano, with --against: its queues that the inputs do not hold "
                           "are deleted, as kubectl apply --prune would.")
WebhookFlagOption = typer.Option(None, "--webhook-flag", metavar="NAME=VALUE", show_default=False,
                                 help="Volcano webhook-manager flags: max-queue-depth=N, "
                                      "enable-queue-allocated-pods-check=BOOL, enable-root-queue-protection=BOOL "
                                      "(repeatable).")
VapOption = typer.Option(False, "--vap", help="Volcano: also apply the Helm chart's ValidatingAdmissionPolicy for "
                         "Queues (installed with custom.vap_enable=true).")


@dataclass
class ValidateOptions:
    """--against/--prune (a diff), --webhook-flag and --vap, as one Volcano validation context."""

    context: Context
    old_objects: list[LoadedObject] = field(default_factory=list)
    scheduler_conf: str | None = None  # --scheduler-conf FILE

    def with_scheduler_conf(self, result: LoadResult) -> LoadResult:
        """--scheduler-conf: the file read as one more document of the input, the configuration the checks use
        (in place of a ConfigMap in the input, as simulate does); its findings carry lines in that file."""
        from kqctl.errors import InputError
        from kqctl.k8s.kinds import KindRegistry
        from kqctl.load.objects import LoadResult, load_paths
        from kqctl.volcano.kinds import recognise_conf_file

        if self.scheduler_conf is None:
            return result
        _read_text(self.scheduler_conf)  # an unreadable file is exit 3, named as --scheduler-conf
        loaded = load_paths(KindRegistry((), (recognise_conf_file,)), [self.scheduler_conf])
        if not loaded.unreadable and not loaded.objects:
            raise InputError(self.scheduler_conf, "--scheduler-conf holds no configuration")
        return LoadResult([*result.objects, *loaded.objects[:1]], [*result.unreadable, *loaded.unreadable],
                          [*result.files, *loaded.files])

    def profiles(self, profiles: tuple[ValidationProfile, ...]) -> tuple[ValidationProfile, ...]:
        """The profiles with Volcano's replaced by one that knows the old state and the flags."""
        from kqctl.volcano.validate.profile import profile

        return tuple(profile(self.context) if p.scheduler == "volcano" else p for p in profiles)

    def with_deletions(self, report: ValidationReport, new_objects: list[LoadedObject]) -> ValidationReport:
        """--prune: the refused deletions, reported on the old state's documents."""
        from kqctl.validate.report import ValidationReport
        from kqctl.validate.runner import report_for
        from kqctl.volcano.validate.crossobject import deletion_findings

        if not self.context.prune:
            return report
        found = deletion_findings([o for o in new_objects if o.known], self.old_objects, self.context)
        by_object: dict[int, list[object]] = {}
        objects: dict[int, LoadedObject] = {}
        for obj, finding in found:
            by_object.setdefault(id(obj), []).append(finding)
            objects[id(obj)] = obj
        extra = [report_for(objects[key], findings) for key, findings in by_object.items()]  # type: ignore[arg-type]
        return ValidationReport([*report.documents, *extra])


def validate_options(against: list[str] | None, prune: bool, webhook_flags: list[str] | None,
                     vap: bool, recursive: bool, scheduler_conf: str | None = None,
                     scheduler: str | None = None) -> ValidateOptions | None:
    """Volcano's validate options, checked; None when none is given."""
    from kqctl.volcano.validate.crossobject import Context

    if not (against or prune or webhook_flags or vap or scheduler_conf):
        return None
    if scheduler_conf is not None and scheduler is not None and scheduler.lower() != "volcano":
        raise UsageError(f"--scheduler-conf applies to Volcano only, not --scheduler {scheduler}")
    if prune and not against:
        raise UsageError("--prune deletes the queues of --against that the inputs do not hold: pass --against PATH")
    flags = parse_webhook_flags(webhook_flags or [])
    old_objects = _load_against(against or [], recursive) if against else []
    old = tuple(o.body for o in old_objects if o.info is not None and o.info.kind == "Queue"
                and o.info.scheduler == "volcano") if against else None
    return ValidateOptions(Context(flags, vap, old, prune), old_objects, scheduler_conf)


def parse_webhook_flags(values: list[str]) -> WebhookFlags:
    """--webhook-flag NAME=VALUE for Volcano's webhook-manager flags (repeatable or comma-separated)."""
    from kqctl.volcano.validate.queue_webhook import WebhookFlags

    settings: dict[str, str] = {}
    for value in values:
        for part in value.split(","):
            if not part.strip():
                continue
            name, sep, setting = part.strip().partition("=")
            name = name.lstrip("-")
            if not sep or name not in WebhookFlags.FLAG_NAMES:
                raise UsageError(f"--webhook-flag {part.strip()!r}: expected NAME=VALUE with NAME one of "
                                 f"{', '.join(WebhookFlags.FLAG_NAMES)}")
            settings[name] = setting.strip()
    depth = settings.get("max-queue-depth", "5")
    if not depth.isdigit() or int(depth) < 1:
        raise UsageError(f"--webhook-flag max-queue-depth={depth}: expected a positive whole number")
    return WebhookFlags(int(depth), _flag_bool(settings, "enable-queue-allocated-pods-check", False),
                        _flag_bool(settings, "enable-root-queue-protection", True))


def _flag_bool(settings: dict[str, str], name: str, default: bool) -> bool:
    value = settings.get(name)
    if value is None:
        return default
    if value.lower() in ("true", "1", "t"):
        return True
    if value.lower() in ("false", "0", "f"):
        return False
    raise UsageError(f"--webhook-flag {name}={value}: expected true or false")


def _load_against(paths: list[str], recursive: bool) -> list[LoadedObject]:
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.errors import InputError
    from kqctl.load.objects import load_paths

    result = load_paths(ALL_KINDS, paths, recursive=recursive)
    if result.unreadable:
        problem = result.unreadable[0]
        raise InputError(problem.file, f"--against: {problem.detail}", problem.line, problem.index)
    return result.objects


def loaded_objects(result: LoadResult) -> list[LoadedObject]:
    return result.objects


def warn(message: str) -> None:
    sys.stderr.write(f"kqctl: warning: {message}\n")


# --- simulate, explain, audit ----------------------------------------------------------------------------------

SchedulerConfOption = typer.Option(None, "--scheduler-conf", metavar="FILE", show_default=False,
                                   help="Volcano: a volcano-scheduler.conf file (actions and plugin tiers) to use "
                                        "instead of the ConfigMap volcano-scheduler-configmap in the inputs; without "
                                        "either, the Helm chart's configuration.")


def is_volcano(inputs: LoadResult, scheduler: str | None) -> bool:
    """Whether the command serves Volcano: --scheduler volcano, or Volcano's objects in the input."""
    from kqctl.cli.schedulers import choose

    return choose(scheduler, inputs.objects).name == "volcano"


def refuse_kueue_options(**given: object) -> None:
    """Kueue's options make no sense for Volcano: a usage error rather than a silent no-op."""
    named = [f"--{name.replace('_', '-')}" for name, value in given.items() if value not in (None, False)]
    if named:
        raise UsageError(f"{', '.join(named)} {'applies' if len(named) == 1 else 'apply'} to Kueue only; the input "
                         "is Volcano's")


def refuse_early(scheduler: str | None, scheduler_conf: str | None, **kueue_options: object) -> None:
    """With --scheduler named, the options it refuses are a usage error before anything (a cluster) is read."""
    from kqctl.cli.schedulers import named

    chosen = named(scheduler)
    if chosen is None:
        return
    if chosen.name == "volcano":
        refuse_kueue_options(**kueue_options)
    else:
        refuse_volcano_options(scheduler_conf)


def refuse_volcano_options(scheduler_conf: str | None) -> None:
    if scheduler_conf is not None:
        raise UsageError("--scheduler-conf applies to Volcano only; the input is Kueue's")


def load_snapshot(inputs: LoadResult, scheduler_conf: str | None) -> Any:
    """The Volcano snapshot of the inputs; --scheduler-conf read first (a located error when unreadable)."""
    from kqctl.volcano.load import ConfSource, build_snapshot

    source = None
    if scheduler_conf is not None:
        source = ConfSource(_read_text(scheduler_conf), scheduler_conf)
    return build_snapshot(inputs, source)


def _read_text(path: str) -> str:
    from kqctl.errors import InputError

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(path, f"cannot read --scheduler-conf: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(path, "--scheduler-conf is not UTF-8 text") from None


def simulate(inputs: LoadResult, scheduler_conf: str | None, cycles: int | None, output: str,
             namespace: str | None, selector: str | None, view: TableOptions, failing_states: set[str]) -> int:
    """``kqctl simulate`` for Volcano: sessions to a steady state (or --cycles); the exit code."""
    from kqctl.cli.progress import Progress
    from kqctl.errors import EXIT_FINDINGS, EXIT_OK
    from kqctl.volcano.engine.simulation import SimulationOptions
    from kqctl.volcano.engine.simulation import simulate as run
    from kqctl.volcano.render.simulation import render_simulation

    progress = Progress()
    progress.step(f"kqctl: building the Volcano snapshot of {len(inputs.objects):,} objects...", len(inputs.objects))
    snapshot = load_snapshot(inputs, scheduler_conf)
    progress.step(f"kqctl: simulating {len(snapshot.pod_groups):,} PodGroups...", len(inputs.objects))
    result = run(snapshot, SimulationOptions(sessions=cycles))
    progress.done()
    from kqctl.cli import options
    from kqctl.volcano.render.simulation import group_filter

    shown_groups = group_filter(result, namespace, selector)  # --fail-on asks about the PodGroups -n and -l show
    if not options.note_namespace(namespace, (group.namespace for group in snapshot.pod_groups.values()),
                                  "PodGroup"):
        options.note_selector(selector, namespace, map(shown_groups, result.groups.values()), "PodGroup")
    try:
        render_simulation(result, output, sys.stdout, namespace=namespace, selector=selector, table=view)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from kqctl.cli import fail_on

    failing = fail_on.failing(endings(snapshot, result), failing_states, lambda key: shown_groups(result.groups[key]))
    return EXIT_FINDINGS if fail_on.report(failing, failing_states, "PodGroup(s)") else EXIT_OK


def endings(snapshot: Any, result: Any) -> list[Any]:
    """Volcano's PodGroup phases in --fail-on's terms (README, "--fail-on"): running when Running or Completed;
    never when the engine says it can never run as configured (``GroupOutcome.never``, VC-NEVER-1); evicted
    when a pod of it was."""
    from kqctl.cli.fail_on import Ending

    found = []
    for key, outcome in result.groups.items():
        running = not outcome.ignored and outcome.phase in ("Running", "Completed")
        found.append(Ending(key, running, bool(outcome.never) and not running, bool(outcome.evicted)))
    return found


def explain(inputs: LoadResult, scheduler_conf: str | None, name: str | None, namespace: str | None,
            selector: dict[str, object] | None, output: str) -> int:
    """``kqctl explain`` for Volcano: one PodGroup (or vcjob or pod) by name, or every one -l selects that is
    not running in the steady state."""
    from kqctl.errors import EXIT_OK
    from kqctl.volcano.engine.explain import UnknownPodGroup
    from kqctl.volcano.engine.explain import explain as run_explain
    from kqctl.volcano.render.explain import render_explanation

    snapshot = load_snapshot(inputs, scheduler_conf)
    if name is not None:
        wanted = f"{namespace}/{name}" if namespace and "/" not in name else name
        try:
            explanations = [run_explain(snapshot, wanted)]
        except UnknownPodGroup as exc:
            raise UsageError(str(exc)) from None
    else:
        explanations, matched = _selected(snapshot, namespace, selector or {})
        if not matched:
            from kqctl.cli import options

            options.note_namespace(namespace, (group.namespace for group in snapshot.pod_groups.values()),
                                   "PodGroup")
    if output in ("json", "yaml") and name is None:
        from kqctl.render.structured import dump_json, dump_yaml
        from kqctl.volcano.render.explain import explanation_data

        data = [explanation_data(e) for e in explanations]
        sys.stdout.write(dump_json(data) if output == "json" else dump_yaml(data))
        return EXIT_OK
    for i, explanation in enumerate(explanations):
        if i:
            sys.stdout.write("\n")
        render_explanation(explanation, output, sys.stdout)
    if name is None and not matched:
        where = f" in namespace {namespace}" if namespace else ""
        sys.stderr.write(f"kqctl: no PodGroup matches the selector{where}\n" if selector
                         else f"kqctl: no PodGroup{where or ' in the input'}\n")
    elif not explanations:
        sys.stderr.write("kqctl: every PodGroup that matches is running\n")
    return EXIT_OK


def _selected(snapshot: Any, namespace: str | None, selector: dict[str, object]) -> tuple[list[Any], int]:
    """The explanations of the PodGroups -n/-l select that are not running, and how many they select."""
    from kqctl.k8s.selectors import selector_matches
    from kqctl.volcano.engine.explain import explain as run_explain
    from kqctl.volcano.engine.simulation import simulate

    outcomes = simulate(snapshot).groups
    matched = [key for key, outcome in outcomes.items()
               if (namespace is None or key.startswith(f"{namespace}/"))
               and selector_matches(selector, dict(outcome.labels))]
    keys = [key for key in matched if outcomes[key].phase not in ("Running", "Completed")]
    return [run_explain(snapshot, key) for key in keys], len(matched)


def audit(inputs: LoadResult, scheduler_conf: str | None, output: str, plot: str | None, headers: bool,
          sort_by: str | None = None, namespace: str | None = None, limit: int | None = None) -> int:
    """``kqctl audit`` for Volcano: the quota report as the cluster is now, and what costs money or time."""
    from kqctl.cli.charts import write_chart_file
    from kqctl.errors import EXIT_OK
    from kqctl.volcano.engine.audit import audit as run_audit
    from kqctl.volcano.engine.audit import for_namespace
    from kqctl.volcano.render.audit import quota_chart, render_audit

    report = run_audit(load_snapshot(inputs, scheduler_conf))
    if namespace is not None:
        from kqctl.cli import options

        options.note_namespace(namespace, report.namespaces, "PodGroup")
        report = for_namespace(report, namespace)
    try:
        render_audit(report, output, sys.stdout, headers, sort_by, limit)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if plot is not None:
        write_chart_file(quota_chart(report), plot)
    return EXIT_OK


# --- convert --to kueue --------------------------------------------------------------------------------------------


def convert_to_kueue(result: LoadResult, output: str) -> int:
    """Volcano queues as Kueue ResourceFlavor, Cohorts, ClusterQueues (and LocalQueues for the namespaces whose
    PodGroups use them) on stdout; what does not carry over, per field, on stderr."""
    from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK
    from kqctl.k8s.core import total_allocatable
    from kqctl.volcano.api.models import Node, Queue
    from kqctl.volcano.to_kueue import KUEUE_API, convert, preemption_issues, tree_problems
    from kqctl.volcano.validate.crossobject import configured

    volcano = [o for o in result.objects if o.info is not None and o.info.scheduler == "volcano"]
    queues = [o for o in volcano if o.info is not None and o.info.kind == "Queue"]
    if not queues:
        raise UsageError("--to kueue converts Volcano Queues: the input holds none")
    models = []
    for obj in queues:
        try:
            models.append(Queue.from_body(obj.body, obj.origin))
        except ValueError as exc:
            sys.stderr.write(f"kqctl: error: {obj.origin}: Queue {obj.name}: {exc}\n")
            return EXIT_INPUT
    by_name = {o.name: o for o in queues}
    broken = tree_problems(models)
    for issue in broken:  # no tree, no Cohort tree: refuse rather than emit Cohorts in a cycle
        obj = by_name[issue.queue]
        sys.stderr.write(f"{obj.origin.file}:{obj.line_of(issue.path)}: error: Queue {issue.queue}: "
                         f"{issue.rule_id}: {issue.message}\n")
    if broken:
        return EXIT_FINDINGS
    conf = configured(result.objects)
    actions = list(conf.actions) if conf is not None else []
    plugins = [p.name for p in conf.plugins()] if conf is not None else []
    preempt = "preempt" in actions and "priority" in plugins
    # every node's allocatable in all, in Volcano's units (None: no Node in the input)
    cluster = total_allocatable(Node.from_body(o.body, o.origin).allocatable for o in result.objects
                                if o.kind == "Node" and isinstance(o.body, dict))
    objects, issues = convert(models, "reclaim" in actions, {o.name or "": o.body.get("spec") or {} for o in queues},
                              preempt, cluster)
    if cluster is None and not any(m.name == "root" and (m.capability or m.deserved) for m in models):
        sys.stderr.write("kqctl: note: VC-CONV-CAPACITY: no Node in the input: the root Cohort gets no quota "
                         "(Volcano's root queue holds the nodes' allocatable), so a ClusterQueue without deserved or "
                         "guarantee admits nothing; give the input the Nodes (kubectl get nodes -o yaml) or the root "
                         "Cohort a nominalQuota\n")
    for message in preemption_issues(actions, plugins):
        sys.stderr.write(f"kqctl: note: VC-CONV-PREEMPT: {message}\n")
    objects.extend(_local_queues(volcano, {m.name for m in models}, KUEUE_API))
    for issue in issues:
        obj = by_name[issue.queue]
        sys.stderr.write(f"{obj.origin.file}:{obj.line_of(issue.path)}: warning: Queue {issue.queue}: "
                         f"{issue.rule_id}: {issue.message}\n")
    others = len(result.objects) - len(queues)
    if others:
        sys.stderr.write(f"kqctl: note: {others} other object(s) of the input are not converted (Kueue runs Jobs "
                         "labelled kueue.x-k8s.io/queue-name=<LocalQueue>, not PodGroups)\n")
    from kqctl.render.output import write_manifests

    write_manifests(sys.stdout, objects, output, single=False)
    return EXIT_OK


def _local_queues(objects: list[LoadedObject], queues: set[str], api: str) -> list[dict[str, Any]]:
    """A LocalQueue per namespace and queue that the input's PodGroups and vcjobs use."""
    wanted: set[tuple[str, str]] = set()
    for obj in objects:
        if obj.info is not None and obj.info.kind in ("PodGroup", "Job"):
            spec = obj.body.get("spec") if isinstance(obj.body.get("spec"), dict) else {}
            queue = str((spec or {}).get("queue") or "default")
            if queue in queues:
                wanted.add((obj.namespace or "default", queue))
    return [{"apiVersion": api, "kind": "LocalQueue", "metadata": {"namespace": ns, "name": queue},
             "spec": {"clusterQueue": queue}} for ns, queue in sorted(wanted)]
