"""The ``kqctl`` command: sub-commands, and the one place where errors become exit codes.

Heavy libraries (jsonschema, CEL, rich tables, kubernetes) are imported inside the commands
that need them so that ``kqctl --help`` starts fast.
"""

from __future__ import annotations

import gc
import os
import sys

import typer

from kqctl import __version__
from kqctl.cli import audit, convert, explain, simulate, snapshot, validate, version
from kqctl.errors import EXIT_INPUT, EXIT_INTERNAL, KqctlError

app = typer.Typer(
    name="kqctl",
    help="Offline validation, dry-run admission and quota audits for Kubernetes batch queues (Kueue).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: typer would otherwise import rich markdown rendering (~0.1 s)
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("validate", help=validate.HELP)(validate.validate_command)
app.command("simulate", help=simulate.HELP)(simulate.simulate_command)
app.command("explain", help=explain.HELP)(explain.explain_command)
app.command("audit", help=audit.HELP)(audit.audit_command)
app.command("convert", help=convert.HELP)(convert.convert_command)
app.add_typer(snapshot.snapshot_app, name="snapshot", help=snapshot.HELP)
app.command("version", help=version.HELP)(version.version_command)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"kqctl {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """kqctl answers offline what would otherwise need a live cluster and waiting."""


def main() -> None:
    """Entry point for the ``kqctl`` and ``kubectl-kqctl`` scripts.

    typer (standalone mode) turns usage errors into exit code 2; our own errors become one line
    on stderr with their exit code; anything else unexpected is still one line, never a traceback.
    """
    # A short-lived process that builds millions of small acyclic objects: the cyclic garbage
    # collector would only cost time (half of it on 50,000 manifests).
    gc.disable()
    try:
        app()
    except KqctlError as exc:
        _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        sys.exit(0)
    except RecursionError:
        _fail("input is nested too deeply to process", EXIT_INPUT)
    except Exception as exc:  # a bug of ours: still one readable line, traceback on request
        if os.environ.get("KQCTL_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (this is a bug in kqctl, please report it; "
              "set KQCTL_DEBUG=1 for a traceback)", EXIT_INTERNAL)


def _fail(message: str, code: int) -> None:
    sys.stderr.write(f"kqctl: error: {message}\n")
    sys.exit(code)
