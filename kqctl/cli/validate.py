"""``kqctl validate``: check manifests as the API server and Kueue's webhooks would, plus cross-object checks."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options
from kqctl.cli import volcano as volcano_options
from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, UsageError
from kqctl.findings import Severity

if TYPE_CHECKING:
    from kqctl.validate.profile import ValidationProfile
    from kqctl.validate.report import ValidationReport

HELP = """Validate Kueue and Volcano manifests and YuniKorn's queues.yaml offline: schema, CEL rules, the
schedulers' webhooks and validators, and cross-object consistency.

Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage error; 3 unreadable input."""

FAIL_ON = ("error", "warning", "info", "never")


EXAMPLES = options.examples(
    "kqctl validate samples/cohort-borrowing",
    "kqctl validate -R deploy/ --closed",
    "kqctl validate -o github cluster.yaml  # annotations in a GitHub Actions log",
    "kubectl get clusterqueues,localqueues -A -o yaml | kqctl validate -",
    "kqctl validate --scheduler volcano samples/volcano-broken --vap",
)

def validate_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, json, yaml, junit, sarif, github or name."),
    fail_on: str = typer.Option("error", "--fail-on", metavar="SEVERITY",
                                help="Lowest severity that fails: error, warning, info, never."),
    closed: bool = typer.Option(False, "--closed", help="The inputs are the whole world: a reference to an object "
                                "not in them is an error, not a warning."),
    no_headers: bool = options.NoHeadersOption,
    sort_by: str | None = options.SortByOption,
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    jobs: int = typer.Option(0, "-j", "--jobs", metavar="N",
                             min=0, help="Processes for large inputs (0: one per core)."),
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    against: list[str] | None = volcano_options.AgainstOption,
    prune: bool = volcano_options.PruneOption,
    webhook_flags: list[str] | None = volcano_options.WebhookFlagOption,
    vap: bool = volcano_options.VapOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
    scheduler_conf: str | None = volcano_options.SchedulerConfOption,
) -> None:
    from kqctl import __version__
    from kqctl.cli.schedulers import validation_profiles
    from kqctl.render.validation import VALIDATE_FORMATS, render_validation

    if output not in VALIDATE_FORMATS:
        raise UsageError(f"unknown output format {output!r}; choose one of: {', '.join(VALIDATE_FORMATS)}")
    if fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on {fail_on!r}; choose one of: {', '.join(FAIL_ON)}")
    profiles = validation_profiles(scheduler)
    volcano = volcano_options.validate_options(against, prune, webhook_flags, vap, recursive, scheduler_conf,
                                               scheduler)
    if volcano is not None:
        profiles = volcano.profiles(profiles)
    if from_cluster or sets or override or volcano is not None:
        # What-if edits, the cluster and a diff need the objects in one process (no parallel split).
        from kqctl.validate.runner import validate_load

        result = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig,
                                     sets, override, scheduler, allow_empty=volcano is not None and prune,
                                     yunikorn_namespace=yunikorn_namespace, refuse=False)
        if volcano is not None:
            result = volcano.with_scheduler_conf(result)
        report, unreadable = validate_load(result, profiles, closed), [str(p) for p in result.unreadable]
        if volcano is not None:
            report = volcano.with_deletions(report, result.objects)
    else:
        from kqctl.cli.progress import Progress

        options.check_cluster_options(from_cluster, context, kubeconfig, yunikorn_namespace)
        given = options.all_paths(paths, filenames)
        progress = Progress()
        progress.step("kqctl: reading and validating the inputs...")
        report, unreadable = run_validation(given, recursive, strict, closed, jobs, profiles, scheduler)
        forced = scheduler is not None and scheduler.lower() == "yunikorn"
        if forced:
            from kqctl.cli.yunikorn import add_empty_configurations

            add_empty_configurations(report, given, recursive)
        if unreadable and (forced or scheduler is None):
            from kqctl.cli.yunikorn import queues_yaml_syntax_errors

            unreadable = queues_yaml_syntax_errors(report, unreadable, forced)
        progress.done()
        if not report.documents and not unreadable:
            from kqctl.load.sources import no_objects_error

            raise no_objects_error(given, recursive)
    render_validation(report, output, sys.stdout, color=color, tool_version=__version__, headers=not no_headers,
                      sort_by=sort_by)
    for problem in unreadable:
        sys.stderr.write(f"kqctl: error: {problem}\n")
    raise typer.Exit(exit_code(report, fail_on, unreadable=bool(unreadable)))


def run_validation(paths: list[str], recursive: bool, strict: bool, closed: bool, jobs: int,
                   profiles: tuple[ValidationProfile, ...],
                   scheduler: str | None = None) -> tuple[ValidationReport, list[str]]:
    """One process for small inputs; one per core when there is enough to share (same report)."""
    from kqctl.cli.schedulers import kinds_for
    from kqctl.load.objects import load_paths
    from kqctl.load.sources import expand_paths
    from kqctl.validate.parallel import Job, default_jobs, validate_files_parallel, worth_parallel
    from kqctl.validate.runner import validate_load

    skipped: list[str] = []
    files = expand_paths(paths, recursive, skipped)
    options.write_notes(skipped)
    kinds = kinds_for(scheduler)
    workers = jobs or default_jobs()
    if worth_parallel(files, workers):
        report, _ = validate_files_parallel(files, Job(kinds, profiles, strict), closed, workers)
        unreadable = [f"{d.origin}: {d.findings[0].message}" for d in report.documents
                      if d.findings and d.findings[0].rule_id == "LOAD-UNREADABLE"]
        return report, unreadable
    result = load_paths(kinds, files, strict=strict)
    return validate_load(result, profiles, closed), [str(problem) for problem in result.unreadable]


def exit_code(report: ValidationReport, fail_on: str, unreadable: bool) -> int:
    """3 when an input could not be read; else 1 when a finding reaches --fail-on; else 0."""
    if unreadable:
        return EXIT_INPUT
    worst = report.worst()
    if fail_on == "never" or worst is None:
        return EXIT_OK
    return EXIT_FINDINGS if worst.rank >= Severity(fail_on).rank else EXIT_OK
