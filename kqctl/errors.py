"""Errors that end a command with a clear, located message and a documented exit code."""

from __future__ import annotations

# Exit codes shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_CLUSTER = 4
EXIT_INTERNAL = 70  # sysexits EX_SOFTWARE: a bug in kqctl, never a verdict on the input
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for any Unix tool whose reader went away


class KqctlError(Exception):
    """Base class: ``str(error)`` is the one line shown to the user."""

    exit_code = EXIT_USAGE


class UsageError(KqctlError):
    exit_code = EXIT_USAGE


class InputError(KqctlError):
    """Unreadable input: a file that cannot be read or parsed. Carries its location."""

    exit_code = EXIT_INPUT

    def __init__(self, file: str, message: str, line: int | None = None, index: int | None = None,
                 column: int | None = None) -> None:
        self.file = file
        self.line = line
        self.index = index
        self.column = column
        self.detail = message
        where = file if line is None else f"{file}:{line}"
        if line is not None and column is not None:
            where += f":{column}"
        if index is not None:
            # ``index`` counts from 0 inside kqctl; users count documents from 1, as kubectl's errors do.
            where += f" (document {index + 1})"
        super().__init__(f"{where}: {message}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, int | None, int | None, int | None]]:
        # Rebuilt from its fields, so it survives the trip back from a worker process.
        return (InputError, (self.file, self.detail, self.line, self.index, self.column))
