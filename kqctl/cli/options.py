"""Options shared by several commands, so every command spells them the same way."""

from __future__ import annotations

import typer

PathsArgument = typer.Argument(None, metavar="PATH...", help="Files or directories to read; '-' reads stdin.",
                               show_default=False)
FilenameOption = typer.Option(None, "-f", "--filename", show_default=False,
                              help="A file or directory to read (repeatable); '-' reads stdin.")
RecursiveOption = typer.Option(False, "-R", "--recursive", help="Read directories recursively.")
StrictOption = typer.Option(False, "--strict", help="Treat objects of kinds kqctl does not read as errors.")
ColorOption = typer.Option("auto", "--color",
                           help="Colour: auto (only on a terminal, never with NO_COLOR), always, never.")


def all_paths(paths: list[str] | None, filenames: list[str] | None) -> list[str]:
    """Positional paths and -f paths together; at least one is required."""
    combined = [*(filenames or []), *(paths or [])]
    if not combined:
        from kqctl.errors import UsageError

        raise UsageError("no input: pass files or directories (or '-' for stdin) as arguments or with -f")
    return combined
