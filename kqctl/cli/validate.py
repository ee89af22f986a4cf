"""``kqctl validate``: check manifests as the API server and Kueue's webhooks would, plus cross-object checks."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

import typer

from kqctl.cli import options
from kqctl.cli import volcano as volcano_options
from kqctl.errors import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, UsageError
from kqctl.findings import Severity

if TYPE_CHECKING:
    from kqctl.validate.cache import ValidationCache
    from kqctl.validate.profile import ValidationProfile
    from kqctl.validate.releases import Release
    from kqctl.validate.report import ValidationReport
    from kqctl.validate.skip import Skipping

HELP = """Validate Kueue and Volcano manifests and YuniKorn's queues.yaml offline: schema, CEL rules, the
schedulers' webhooks and validators, and cross-object consistency.

Exit codes: 0 clean; 1 findings at or above --fail-on; 2 usage error; 3 unreadable input."""

FAIL_ON = ("error", "warning", "info", "never")


EXAMPLES = options.examples(
    "kqctl validate samples/cohort-borrowing",
    "kqctl validate -R samples/broken --closed",
    "kqctl validate -o github samples/broken  # annotations in a GitHub Actions log",
    "kqctl validate -R samples/ --ignore-missing-kinds --skip ConfigMap -o tap  # kubeconform's habits",
    "kqctl validate samples/spot-gpu --kueue-version v0.19 --cache .kqctl-cache  # the release the cluster runs",
    "kqctl snapshot save -o - | kqctl validate -",
    "kqctl validate --scheduler volcano samples/volcano-broken --vap",
)

CacheOption = typer.Option(None, "--cache", metavar="DIR",
                           help="Keep each file's results in DIR and reuse them while the file, kqctl and the flags "
                                "are unchanged (cross-object checks always run again). Under pre-commit the "
                                "default is the user's cache directory (kqctl/validate).")
KueueVersionOption = typer.Option(None, "--kueue-version", metavar="VERSION",
                                  help="Check Kueue objects against this release's CRDs and webhooks, e.g. v0.19 "
                                       "(default: the version kqctl mirrors; kqctl version lists them).")
VolcanoVersionOption = typer.Option(None, "--volcano-version", metavar="VERSION",
                                    help="Check Volcano objects against this release, e.g. v1.15.")
YunikornVersionOption = typer.Option(None, "--yunikorn-version", metavar="VERSION",
                                     help="Check YuniKorn's configuration against this release, e.g. v1.8.")
# validate's table has its own columns (simulate's "priority" is not one of them).
SortByOption = typer.Option(None, "--sort-by", metavar="COLUMN",
                            help="Sort the table's findings by a column: location, severity, rule, object, field or "
                                 "message.")
SkipOption = typer.Option(None, "--skip", metavar="KIND[,KIND]", show_default=False,
                          help="Kinds not to validate at all (repeatable), e.g. Deployment,Service or "
                               "apps/v1/Deployment; counted as skipped.")


def validate_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table (one line per finding), wide (a table), json, yaml, junit, sarif, github, "
                                    "name, text or tap (one line per object, as kubeconform prints them), "
                                    "jsonpath=TEMPLATE or custom-columns=SPEC."),
    fail_on: str = typer.Option("error", "--fail-on", metavar="SEVERITY",
                                help="Lowest severity that fails: error, warning, info, never."),
    closed: bool = typer.Option(False, "--closed", help="The inputs are the whole world: a reference to an object "
                                "not in them is an error, not a warning."),
    skip: list[str] | None = SkipOption,
    ignore_missing_kinds: bool = typer.Option(False, "--ignore-missing-kinds",
                                              help="Skip objects of kinds kqctl does not validate (a Helm render's "
                                                   "Deployments, Services) instead of a LOAD-SKIPPED warning each."),
    summary: bool = typer.Option(True, "--summary/--no-summary",
                                 help="The closing count line of table, github, text and tap."),
    no_headers: bool = options.NoHeadersOption,
    sort_by: str | None = SortByOption,
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
    kueue_version: str | None = KueueVersionOption,
    volcano_version: str | None = VolcanoVersionOption,
    yunikorn_version: str | None = YunikornVersionOption,
    cache: str | None = CacheOption,
    no_cache: bool = typer.Option(False, "--no-cache", help="No cache, not even under pre-commit."),
) -> None:
    from kqctl import __version__
    from kqctl.cli.schedulers import target_releases, validation_profiles, with_releases
    from kqctl.render.output import check_output
    from kqctl.render.validation import VALIDATE_FORMATS, render_validation

    check_output(output, VALIDATE_FORMATS)
    if fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on {fail_on!r}; choose one of: {', '.join(FAIL_ON)}")
    from kqctl.validate.skip import Skipping

    if ignore_missing_kinds and strict:
        raise UsageError("--ignore-missing-kinds skips the kinds --strict makes errors: pass one of them")
    skipping = Skipping.parse(skip, ignore_missing_kinds)
    profiles = validation_profiles(scheduler)
    releases = target_releases({"kueue": kueue_version, "volcano": volcano_version, "yunikorn": yunikorn_version})
    volcano = volcano_options.validate_options(against, prune, webhook_flags, vap, recursive, scheduler_conf,
                                               scheduler)
    if volcano is not None:
        profiles = volcano.profiles(profiles)
    profiles = with_releases(profiles, releases)
    if cache is not None and (from_cluster or sets or override or volcano is not None):
        raise UsageError("--cache keeps the results of files read as they are: not with --from-cluster, --set, "
                         "--override or Volcano's --against/--prune/--vap/--webhook-flag/--scheduler-conf")
    if from_cluster or sets or override or volcano is not None:
        # What-if edits, the cluster and a diff need the objects in one process (no parallel split).
        from kqctl.validate.runner import validate_load

        result = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig,
                                     sets, override, scheduler, allow_empty=volcano is not None and prune,
                                     yunikorn_namespace=yunikorn_namespace, refuse=False)
        if volcano is not None:
            result = volcano.with_scheduler_conf(result)
        report, unreadable = validate_load(result, profiles, closed, skipping), [str(p) for p in result.unreadable]
        if volcano is not None:
            report = volcano.with_deletions(report, result.objects)
    else:
        from kqctl.cli.progress import Progress

        options.check_cluster_options(from_cluster, context, kubeconfig, yunikorn_namespace)
        given = options.all_paths(paths, filenames)
        progress = Progress()
        progress.step("kqctl: reading and validating the inputs...")
        kept = None if no_cache else cache_for(cache, scheduler, strict, skipping, releases)
        report, unreadable = run_validation(given, recursive, strict, closed, jobs, profiles, scheduler, skipping,
                                            kept)
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
                      sort_by=sort_by, summary=summary, failing=Severity(fail_on if fail_on != "never" else "error"))
    for problem in unreadable:
        sys.stderr.write(f"kqctl: error: {problem}\n")
    raise typer.Exit(exit_code(report, fail_on, unreadable=bool(unreadable)))


def cache_for(directory: str | None, scheduler: str | None, strict: bool, skipping: Skipping,
              releases: Mapping[str, Release]) -> ValidationCache | None:
    """--cache DIR; under pre-commit (PRE_COMMIT=1) the user's cache directory unless --cache names another.
    The setting holds every flag that changes a file's per-object results."""
    import os
    from pathlib import Path

    from kqctl.validate.cache import default_directory, open_cache

    if directory is None and os.environ.get("PRE_COMMIT") != "1":
        return None
    path = Path(directory).expanduser() if directory is not None else default_directory()
    setting = [f"scheduler={(scheduler or '').lower()}", f"strict={strict}",
               f"skip={','.join(sorted(skipping.kinds))}", f"missing-kinds={skipping.missing_kinds}",
               *(f"{name}={release.version}" for name, release in sorted(releases.items()))]
    return open_cache(path, setting)


def run_validation(paths: list[str], recursive: bool, strict: bool, closed: bool, jobs: int,
                   profiles: tuple[ValidationProfile, ...],
                   scheduler: str | None = None,
                   skipping: Skipping | None = None,
                   cache: ValidationCache | None = None) -> tuple[ValidationReport, list[str]]:
    """One process for small inputs; one per core when there is enough to share (same report); with a cache,
    every unchanged file's per-object results from it (the cross-object checks run again)."""
    from kqctl.cli.schedulers import kinds_for
    from kqctl.load.objects import load_paths
    from kqctl.load.sources import expand_paths
    from kqctl.validate.parallel import Job, default_jobs, validate_cached, validate_files_parallel, worth_parallel
    from kqctl.validate.runner import validate_load
    from kqctl.validate.skip import Skipping

    skipped: list[str] = []
    files = expand_paths(paths, recursive, skipped)
    options.write_notes(skipped)
    kinds = kinds_for(scheduler)
    workers = jobs or default_jobs()
    skipping = skipping or Skipping()
    cached = cache is not None and "-" not in files
    if cached or worth_parallel(files, workers):
        job = Job(kinds, profiles, strict, skipping)
        if cached:
            assert cache is not None
            report, _ = validate_cached(files, job, closed, workers, cache)
        else:
            report, _ = validate_files_parallel(files, job, closed, workers)
        unreadable = [f"{d.origin}: {d.findings[0].message}" for d in report.documents
                      if d.findings and d.findings[0].rule_id == "LOAD-UNREADABLE"]
        return report, unreadable
    result = load_paths(kinds, files, strict=strict)
    return validate_load(result, profiles, closed, skipping), [str(problem) for problem in result.unreadable]


def exit_code(report: ValidationReport, fail_on: str, unreadable: bool) -> int:
    """3 when an input could not be read; else 1 when a finding reaches --fail-on; else 0."""
    if unreadable:
        return EXIT_INPUT
    worst = report.worst()
    if fail_on == "never" or worst is None:
        return EXIT_OK
    return EXIT_FINDINGS if worst.rank >= Severity(fail_on).rank else EXIT_OK
