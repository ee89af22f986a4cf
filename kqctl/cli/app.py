"""The ``kqctl`` command: sub-commands, and the one place where errors become exit codes.

Heavy libraries (jsonschema, CEL, rich tables, kubernetes) are imported inside the commands
that need them so that ``kqctl --help`` starts fast.
"""

from __future__ import annotations

import gc
import os
import sys
import textwrap
from typing import Any

import typer
from typer._click import _textwrap as _click_textwrap
from typer.core import TyperArgument

from kqctl import __version__, diagnostics
from kqctl.cli import (
    audit,
    completion,
    convert,
    diff,
    explain,
    fields,
    plan,
    rbac,
    replay,
    rules,
    simulate,
    snapshot,
    validate,
    version,
)
from kqctl.diagnostics import extract_verbosity
from kqctl.errors import EXIT_BROKEN_PIPE, EXIT_INPUT, EXIT_INTERNAL, EXIT_USAGE, KqctlError

EXIT_CODES = """Exit codes:

\b
  0   success (validate: no finding at or above --fail-on)
  1   validate found problems; simulate --fail-on matched a workload;
      diff --fail-on regression found one; plan met the target at no
      quota it tried
  2   usage error (unknown option, bad value, unknown name)
  3   unreadable or invalid input (file, document and field named)
  4   the cluster could not be read (--from-cluster, snapshot save)
  70  a bug in kqctl: please report it (KQCTL_DEBUG=1 prints a traceback)
  141 the reader of the output went away (e.g. | head), as for any Unix tool

Diagnostics: -v N (or --v=N, anywhere on the line, as kubectl's) writes them to stderr:
1 the phases and their times, 2 the scheduler chosen, 4 every file read, 6 every request to a cluster."""


HELP_WIDTH = 100

# `kqctl --help` lists each command with these words, whole (click would cut the first sentence with "...").
SUMMARIES = {
    "validate": "Check manifests as the API server and the webhooks would.",
    "simulate": "Dry-run admission: who gets in, where, and why not.",
    "explain": "Why one workload is or is not admitted, and what would help.",
    "audit": "Quota report: nominal, used, borrowed, idle; findings.",
    "replay": "Run the scheduler in virtual time: waits, usage, completions.",
    "diff": "Compare two configurations and what each admits.",
    "plan": "Find the smallest quota that meets a wait-time target.",
    "convert": "Convert to Kueue's API: older versions, Volcano, YuniKorn.",
    "snapshot": "Save a live cluster's queue state to a file.",
    "rbac": "Print the least-privilege RBAC for reading a cluster.",
    "rules": "Explain a rule ID kqctl cites.",
    "fields": "Document a kind's fields (kubectl explain's meaning).",
    "version": "Print kqctl's version and the scheduler versions it mirrors.",
    "completion": "Print the shell completion script (bash, zsh, fish).",
}


def _usage_name(self: TyperArgument) -> str:
    # kubectl's usage style: WORKLOAD, [PATH]... (typer writes {WORKLOAD} for a required argument).
    name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
    return name + ("..." if self.nargs != 1 else "")


def _help_name(self: TyperArgument) -> str:
    return self.display_name_raw + ("..." if self.nargs != 1 else "")


def _help_type(self: TyperArgument, ctx: object) -> str | None:
    # An argument's help row shows its metavar in words (PATH...), never a Python type (<list[str]>).
    return None if self.metavar is not None else TyperArgument.display_type(self, ctx)  # type: ignore[arg-type]


class _WholeWordsWrapper(_click_textwrap.TextWrapper):
    """Help text wraps at spaces only: a hyphen or a long token (clusterqueue/team-a.flavor.default-flavor..., a
    flag such as --fail-on) is never split, so what a user copies from --help is whole; a token longer than the
    line runs past it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "break_on_hyphens": False, "break_long_words": False})

    def _handle_long_word(self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int) -> None:
        # click's version always cuts the word; the standard library's keeps it whole when break_long_words is off.
        textwrap.TextWrapper._handle_long_word(self, reversed_chunks, cur_line, cur_len, width)


# typer's vendored click builds its TextWrapper by this name at every wrap (click.formatting.wrap_text).
_click_textwrap.TextWrapper = _WholeWordsWrapper  # type: ignore[misc]
TyperArgument._usage_display_name = _usage_name  # type: ignore[method-assign]
TyperArgument._rich_display_name = _help_name  # type: ignore[method-assign]
TyperArgument.display_type_rich = _help_type  # type: ignore[method-assign,assignment]

app = typer.Typer(
    name="kqctl",
    help="Offline validation, dry-run admission, replays in virtual time, configuration diffs, capacity plans and "
         "quota audits for Kubernetes batch queues: Kueue, Volcano and YuniKorn (the scheduler is chosen from "
         "the input, or with --scheduler).",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: typer would otherwise import rich markdown rendering (~0.1 s)
    # Help wraps at the terminal's width up to 100 columns (longer lines are hard to read).
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_WIDTH},
    epilog=EXIT_CODES,
)
app.command("validate", help=validate.HELP, short_help=SUMMARIES["validate"],
            epilog=validate.EXAMPLES)(validate.validate_command)
app.command("simulate", help=simulate.HELP, short_help=SUMMARIES["simulate"],
            epilog=simulate.EXAMPLES)(simulate.simulate_command)
app.command("explain", help=explain.HELP, short_help=SUMMARIES["explain"],
            epilog=explain.EXAMPLES)(explain.explain_command)
app.command("audit", help=audit.HELP, short_help=SUMMARIES["audit"],
            epilog=audit.EXAMPLES)(audit.audit_command)
app.command("replay", help=replay.HELP, short_help=SUMMARIES["replay"],
            epilog=replay.EXAMPLES)(replay.replay_command)
app.command("diff", help=diff.HELP, short_help=SUMMARIES["diff"],
            epilog=diff.EXAMPLES)(diff.diff_command)
app.command("plan", help=plan.HELP, short_help=SUMMARIES["plan"],
            epilog=plan.EXAMPLES)(plan.plan_command)
app.command("convert", help=convert.HELP, short_help=SUMMARIES["convert"],
            epilog=convert.EXAMPLES)(convert.convert_command)
app.add_typer(snapshot.snapshot_app, name="snapshot", help=snapshot.HELP, short_help=SUMMARIES["snapshot"],
              epilog=snapshot.SAVE_EXAMPLES)
app.command("rbac", help=rbac.HELP, short_help=SUMMARIES["rbac"],
            epilog=rbac.EXAMPLES)(rbac.rbac_command)
app.command("rules", help=rules.HELP, short_help=SUMMARIES["rules"],
            epilog=rules.EXAMPLES)(rules.rules_command)
app.command("fields", help=fields.HELP, short_help=SUMMARIES["fields"],
            epilog=fields.EXAMPLES)(fields.fields_command)
app.command("version", help=version.HELP, short_help=SUMMARIES["version"],
            epilog=version.EXAMPLES)(version.version_command)
app.command("completion", help=completion.HELP, short_help=SUMMARIES["completion"],
            epilog=completion.EXAMPLES)(completion.completion_command)


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
    _new_run()
    argv, verbosity, problem = extract_verbosity(sys.argv[1:])
    if problem is not None:
        _fail(problem, EXIT_USAGE)
    diagnostics.set_level(verbosity or 0)  # every run starts from its own flags (tests run many in one process)
    diagnostics.log(1, f"kqctl {__version__}: {' '.join(argv)}")
    try:
        command = typer.main.get_command(app)
        if os.environ.get(completion.COMPLETE_VARIABLE) or os.environ.get("_KUBECTL_KQCTL_COMPLETE"):
            completion.attach(command)  # value completion: only when a shell asks
        command(args=argv, prog_name=_program_name())
    except SystemExit as exited:
        # click turns a write to a closed pipe (`kqctl ... | head`) into exit 1, which kqctl uses for
        # findings; say what happened instead, as a shell does for any tool killed by SIGPIPE.
        if exited.code == 1 and type(sys.stdout).__name__ == "PacifyFlushWrapper":
            sys.exit(EXIT_BROKEN_PIPE)
        raise
    except KqctlError as exc:
        _fail(str(exc), exc.exit_code)
    except BrokenPipeError:
        sys.exit(EXIT_BROKEN_PIPE)
    except RecursionError:
        _fail("input is nested too deeply to process", EXIT_INPUT)
    except Exception as exc:  # a bug of ours: still one readable line, traceback on request
        if os.environ.get("KQCTL_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (this is a bug in kqctl, please report it; "
              "set KQCTL_DEBUG=1 for a traceback)", EXIT_INTERNAL)
    finally:
        # The process exits next, and the interpreter's shutdown collection (gc.disable() does not stop it)
        # would traverse every object still alive: 0.5 s after a 50,000-pod YuniKorn simulate. Frozen objects
        # are skipped (0.04 s); exit codes, output flushing and atexit are as before.
        gc.freeze()


def _new_run() -> None:
    """Notes said once per run start unsaid (the tests run many commands in one process)."""
    schedulers = sys.modules.get("kqctl.cli.schedulers")
    if schedulers is not None:
        schedulers.NOTED.clear()


def _program_name() -> str:
    # `python -m kqctl` would otherwise call itself "python -m kqctl" in usage lines, and shell
    # completion (keyed on the program's name) would not answer; kubectl's plugin keeps its own name.
    invoked = os.path.basename(sys.argv[0]) if sys.argv else ""
    return "kubectl-kqctl" if invoked == "kubectl-kqctl" else "kqctl"


def _fail(message: str, code: int) -> None:
    from kqctl.cli.progress import erase_shown
    from kqctl.render.console import write_wrapped

    erase_shown()  # the message starts its own line, not after a progress line the error cut short
    # On a terminal the message wraps at spaces (a path or a flag it names stays whole); into a pipe or a
    # log it stays one line, as a CI system greps it.
    write_wrapped(sys.stderr, f"kqctl: error: {message}", hanging="  ")
    sys.exit(code)
