"""The pre-commit hook ``kqctl-diff`` (``.pre-commit-hooks.yaml``): a queue-configuration folder as committed
(``HEAD``) against the same folder as it is about to be committed, through ``kqctl diff --fail-on regression``.

    python -m kqctl.cli.hooks diff FOLDER [kqctl diff options...]

The folder at ``HEAD`` is written into a temporary directory with ``git show`` (read-only: nothing in the
repository changes); a folder new in this commit has nothing to compare and passes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

USAGE = "usage: python -m kqctl.cli.hooks diff FOLDER [kqctl diff options...]"


def git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], capture_output=True, check=False)


def committed_copy(folder: str, into: Path) -> Path | None:
    """``folder`` as ``HEAD`` holds it, written under ``into``; None when HEAD has no such folder (or no HEAD)."""
    prefix = git("rev-parse", "--show-prefix").stdout.decode().strip()
    listed = git("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", folder)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if not names:
        return None
    target = into / "HEAD"
    for name in names:  # paths relative to the repository's top: HEAD:<path>
        shown = git("show", f"HEAD:{name}")
        if shown.returncode != 0:
            sys.stderr.write(f"kqctl-diff: cannot read {name} at HEAD: {shown.stderr.decode().strip()}\n")
            raise SystemExit(2)
        relative = name[len(prefix):] if prefix and name.startswith(prefix) else name
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(shown.stdout)
    return target / os.path.normpath(folder)


def diff(arguments: list[str]) -> int:
    if not arguments or arguments[0].startswith("-"):
        sys.stderr.write(f"{USAGE}\n(set the folder with `args: [FOLDER]` in .pre-commit-config.yaml)\n")
        return 2
    folder, options = arguments[0], arguments[1:]
    if not os.path.isdir(folder):
        sys.stderr.write(f"kqctl-diff: {folder}: no such folder\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="kqctl-diff-") as temporary:
        before = committed_copy(folder, Path(temporary))
        if before is None:
            print(f"kqctl-diff: {folder} is new in this commit: nothing to compare")
            return 0
        command = [sys.executable, "-m", "kqctl", "diff", str(before), folder, "--fail-on", "regression", *options]
        return subprocess.run(command, check=False).returncode


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] != "diff":
        sys.stderr.write(f"{USAGE}\n")
        return 2
    return diff(argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
