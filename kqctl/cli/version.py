"""``kqctl version``: kqctl's own version and the scheduler versions whose behaviour it mirrors."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import typer

from kqctl import __version__
from kqctl.cli import options

if TYPE_CHECKING:
    from kqctl.validate.releases import Release

HELP = """Print kqctl's version and the scheduler versions it mirrors."""

# What kqctl's engines reproduce; "supported" is false until the scheduler's engine exists.
MIRRORED: dict[str, dict[str, Any]] = {
    "kueue": {
        "supported": True,
        "version": "v0.20.0-devel (after v0.19.2)",
        "commit": "ff69552e79ad21652c36caa97038382e55625cf7",
        "apiVersions": ["kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1alpha1 (convert only)"],
    },
    "volcano": {
        "supported": True,
        "version": "v1.16.0-devel (after v1.16.0-alpha.1)",
        "commit": "ed72c7c815a9fd547a787134676f73d42e9d049c",
        "apiVersions": ["scheduling.volcano.sh/v1beta1", "batch.volcano.sh/v1alpha1"],
    },
    "yunikorn": {
        "supported": True,
        "version": "yunikorn-core master of July 2026 (k8shim 23b6b47f)",
        "commit": "be3bb487298956dd70906fca15e577bbc12d23cb",
        "apiVersions": [],  # no CRDs: the queues.yaml of the ConfigMaps yunikorn-configs and yunikorn-defaults
    },
}


EXAMPLES = options.examples(
    "kqctl version",
    "kqctl version -o wide  # what each release validate checks against does differently",
    "kqctl version -o json",
)

FORMATS = ("text", "wide", "json")


def version_command(
    output: str = typer.Option("text", "-o", "--output", metavar="FORMAT",
                               help="text, wide (with what each release changes), json, jsonpath=TEMPLATE or "
                                    "custom-columns=SPEC."),
) -> None:
    from kqctl.render.output import check_output, is_data_format, write_data

    check_output(output, FORMATS)
    releases = _releases()
    schedulers = {name: {**mirrored, "validateReleases": [
        {"version": r.version, "commit": r.commit, "default": r.reference, "differences": list(r.differences)}
        for r in releases[name]]} for name, mirrored in MIRRORED.items()}
    if output == "json":
        sys.stdout.write(json.dumps({"kqctl": __version__, "schedulers": schedulers}, indent=2) + "\n")
        return
    if is_data_format(output):
        write_data(sys.stdout, {"kqctl": __version__, "schedulers": schedulers}, output, rows="schedulers")
        return
    lines = [f"kqctl {__version__}"]
    for name, mirrored in MIRRORED.items():
        if not mirrored["supported"]:
            lines.append(f"{name}: not yet supported")
            continue
        lines.append(f"{name}: {mirrored['version']}, commit {str(mirrored['commit'])[:8]}")
        shipped = ", ".join(r.version + (" (default)" if r.reference else "") for r in releases[name])
        lines.append(f"  validate --{name}-version: {shipped}")
        if output == "wide":
            for release in releases[name]:
                for difference in release.differences:
                    lines.append(f"    {release.version}: {difference}")
    sys.stdout.write("\n".join(lines) + "\n")


def _releases() -> dict[str, tuple[Release, ...]]:
    from kqctl.cli.schedulers import SCHEDULERS

    return {name: scheduler.releases().releases for name, scheduler in SCHEDULERS.items()}
