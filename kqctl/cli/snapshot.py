"""``kqctl snapshot save``: what a live cluster holds, in one file every command reads offline."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import TYPE_CHECKING

import typer

from kqctl.cli.options import ContextOption, KubeconfigOption, SchedulerOption, YunikornNamespaceOption, examples
from kqctl.errors import EXIT_OK, UsageError

if TYPE_CHECKING:
    from kqctl.load.cluster import ClusterSnapshot

HELP = """Save a live cluster's Kueue, Volcano or YuniKorn state to a file, to validate, simulate and audit
offline."""

# One line per paragraph: the help formatter keeps line breaks, so hard-wrapped text would come out ragged.
SAVE_HELP = (
    "Read the cluster of a kubeconfig context (read-only: get and list) and write one snapshot file.\n\n"
    "The snapshot is a `kind: List` holding ResourceFlavors, ClusterQueues, LocalQueues, Cohorts, Workloads "
    "(with status), WorkloadPriorityClasses, AdmissionChecks, Topologies, Namespaces, PriorityClasses, "
    "LimitRanges, the Jobs and Pods labelled kueue.x-k8s.io/queue-name, and Kueue's manager Configuration (fair "
    "sharing, preemption strategies, feature gates): the ConfigMap kueue-manager-config in kueue-system, read by "
    "name. A missing one is a note (Kueue's defaults apply), and so is one RBAC forbids (RBAC: kqctl rbac --scheduler "
    "kueue); pass --fair-sharing or --feature-gates to simulate then. A Helm release of another name keeps it in "
    "<fullname>-manager-config: save it with kubectl get configmap -o yaml and give that file as one more input. "
    "Its annotations record the context, server, time and Kueue API version.\n\n"
    "With --scheduler volcano: Queues, PodGroups, vcjobs (batch.volcano.sh Jobs), Namespaces, PriorityClasses, "
    "LimitRanges, Nodes, every Pod (paginated: pods of any scheduler use the nodes), and of the ConfigMaps only "
    "volcano-scheduler-configmap (the scheduler's configuration, asked for by name).\n\n"
    "With --scheduler yunikorn: Nodes, Namespaces, PriorityClasses, LimitRanges, every Pod not finished, and the "
    "ConfigMaps yunikorn-defaults and yunikorn-configs read by name in --yunikorn-namespace (default yunikorn) "
    "(RBAC: kqctl rbac --scheduler yunikorn).\n\n"
    "The file records the scheduler it was read for (annotation kqctl.dev/scheduler): every command reads it for "
    "that scheduler, and another scheduler's pods in it are other pods using node capacity.\n\n"
    "YAML or JSON by the file's extension (.yaml, .yml, .json); '-' writes YAML to stdout. Secrets and "
    "other ConfigMaps are never read from the cluster and no credentials are written. Container env values and "
    "kubectl's last-applied-configuration annotations are replaced by '<redacted by kqctl>'.\n\n"
    "Exit codes: 0 saved; 2 usage error; 4 the cluster could not be read."
)

FORMATS = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
STDOUT = "-"


snapshot_app = typer.Typer(
    name="snapshot",
    help=HELP,
    epilog=examples(  # the group's --help shows examples too, as every command's does
        "kqctl snapshot save -o prod.yaml --context prod",
        "kqctl snapshot save -o - | kqctl simulate -",
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain help, as the main app: no rich import for --help
    context_settings={"help_option_names": ["-h", "--help"]},
)


SAVE_EXAMPLES = examples(
    "kqctl snapshot save -o prod.yaml --context prod",
    "kqctl snapshot save -o - | kqctl simulate -",
    "kqctl snapshot save -o volcano.yaml --scheduler volcano",
    "kqctl snapshot save -o yunikorn.yaml --scheduler yunikorn --yunikorn-namespace yunikorn",
    "kqctl rbac --scheduler yunikorn  # the RBAC it needs",
)


@snapshot_app.command("save", help=SAVE_HELP, epilog=SAVE_EXAMPLES)
def save_command(
    output: str = typer.Option(..., "-o", "--output", metavar="FILE", show_default=False,
                               help="Where to write: a .yaml, .yml or .json file, or '-' for stdout (YAML)."),
    context: str | None = ContextOption,
    kubeconfig: str | None = KubeconfigOption,
    scheduler: str | None = SchedulerOption,
    yunikorn_namespace: str | None = YunikornNamespaceOption,
) -> None:
    from kqctl.cli.options import read_plan
    from kqctl.load.cluster import read_cluster, snapshot_text

    fmt = output_format(output)
    check_writable(output)  # before minutes of reading a large cluster, not after
    plan = read_plan(scheduler, yunikorn_namespace)
    snapshot = read_cluster(plan, context, kubeconfig)
    write_text(output, snapshot_text(snapshot, fmt))
    report(snapshot, output)
    raise typer.Exit(EXIT_OK)


def output_format(path: str) -> str:
    """yaml or json, from the file name: the same rule the loader uses to pick files in a directory."""
    if path == STDOUT:
        return "yaml"
    fmt = FORMATS.get(os.path.splitext(path)[1].lower())
    if fmt is None:
        raise UsageError(f"cannot tell the format of {path!r}: name it .yaml, .yml or .json (or '-' for stdout)")
    return fmt


def check_writable(path: str) -> None:
    if path == STDOUT:
        return
    if os.path.isdir(path):
        raise UsageError(f"cannot write {path}: it is a directory")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"cannot write {path}: no such directory {directory}")
    if not os.access(directory, os.W_OK):
        raise UsageError(f"cannot write {path}: permission denied")


def write_text(path: str, text: str) -> None:
    """All or nothing: a temporary file renamed into place, so a failure never leaves half a snapshot.

    The file is readable by its owner only (mkstemp's 0600): it holds pod specs, whose
    environment variables can carry values their authors would not publish.
    """
    if path == STDOUT:
        sys.stdout.write(text)
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".kqctl-snapshot-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def report(snapshot: ClusterSnapshot, path: str) -> None:
    """One line on stderr (stdout may be the snapshot itself), plus a warning per resource not read."""
    from kqctl.cli.schedulers import SCHEDULERS

    counts = ", ".join(f"{kind} {count}" for kind, count in snapshot.counts().items()) or "none"
    where = f"context {snapshot.context} ({snapshot.server})" if snapshot.context else snapshot.server
    target = "stdout" if path == STDOUT else path
    product = SCHEDULERS[snapshot.scheduler].product if snapshot.scheduler in SCHEDULERS else snapshot.scheduler
    sys.stderr.write(f"kqctl: saved {len(snapshot.objects)} objects ({counts}) from {where} for {product} "
                     f"(APIs {', '.join(snapshot.apis)}) to {target}\n")
    for note in snapshot.skipped:
        sys.stderr.write(f"kqctl: warning: {note}\n")
    note = other_schedulers_note(snapshot)
    if note:
        sys.stderr.write(f"kqctl: note: {note}\n")


def other_schedulers_note(snapshot: ClusterSnapshot) -> str:
    """What a cluster read for one scheduler holds of the others: said once, so the choice is never silent."""
    from kqctl.cli.schedulers import SCHEDULERS

    product = SCHEDULERS[snapshot.scheduler].product if snapshot.scheduler in SCHEDULERS else snapshot.scheduler
    by_scheduler: dict[str, int] = {}
    for obj in snapshot.objects:
        spec = obj.get("spec") if obj.get("kind") == "Pod" else None
        name = spec.get("schedulerName") if isinstance(spec, dict) else None
        if isinstance(name, str) and name in SCHEDULERS and name != snapshot.scheduler:
            by_scheduler[name] = by_scheduler.get(name, 0) + 1
    if not by_scheduler:
        return ""
    pods = ", ".join(f"{count} pod(s) of {SCHEDULERS[name].product} (schedulerName {name})"
                     for name, count in sorted(by_scheduler.items()))
    chosen = (f"read for {product}, the scheduler whose API group the cluster serves: " if snapshot.by_discovery
              else f"read for {product} (--scheduler {snapshot.scheduler}): ")
    return (f"{chosen}{pods} are saved as other pods using node capacity; pass --scheduler "
            f"{' or --scheduler '.join(sorted(by_scheduler))} to read the cluster for "
            f"{'that scheduler' if len(by_scheduler) == 1 else 'one of them'}")
