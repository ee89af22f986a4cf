"""``kqctl version``: kqctl's own version and the scheduler versions whose behaviour it mirrors."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer

from kqctl import __version__
from kqctl.cli import options

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
    "kqctl version -o json",
)

def version_command(
    output: str = typer.Option("text", "-o", "--output", metavar="FORMAT", help="text or json."),
) -> None:
    from kqctl.render.output import check_output, is_data_format, write_data

    check_output(output, ("text", "json"))
    if output == "json":
        sys.stdout.write(json.dumps({"kqctl": __version__, "schedulers": MIRRORED}, indent=2) + "\n")
        return
    if is_data_format(output):
        write_data(sys.stdout, {"kqctl": __version__, "schedulers": MIRRORED}, output, rows="schedulers")
        return
    lines = [f"kqctl {__version__}"]
    for name, mirrored in MIRRORED.items():
        if mirrored["supported"]:
            lines.append(f"{name}: {mirrored['version']}, commit {str(mirrored['commit'])[:8]}")
        else:
            lines.append(f"{name}: not yet supported")
    sys.stdout.write("\n".join(lines) + "\n")
