"""Rewrite every README ```text block that starts with ``$ kqctl ...`` with what that command prints today.

    python scripts/refresh_readme_examples.py [--check]

Each command runs from the repository root with its standard output piped (no colour, no wrapping), as
tests/cli/test_readme_examples.py runs it; the block keeps its command line and gets the new output. With
--check nothing is written: the blocks that differ are listed and the exit code is 1.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"(```text\n\$ kqctl (?P<command>[^\n]*)\n)(?P<shown>.*?)(```)", re.S)


def printed(command: str) -> str:
    """The standard output of ``kqctl COMMAND`` run from the repository root, piped."""
    environment = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(REPO)}
    environment.pop("COLUMNS", None)
    run = subprocess.run([sys.executable, "-m", "kqctl", *shlex.split(command)], cwd=REPO, capture_output=True,
                         text=True, env=environment, check=False)
    if run.returncode not in (0, 1):
        raise SystemExit(f"`kqctl {command}` exited {run.returncode}: {run.stderr.strip()}")
    return run.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only list the blocks that differ")
    args = parser.parse_args(argv)
    readme = REPO / "README.md"
    text = readme.read_text(encoding="utf-8")
    differing: list[str] = []

    def refreshed(match: re.Match[str]) -> str:
        output = printed(match["command"])
        if output != match["shown"]:
            differing.append(match["command"])
        return match.group(1) + output + match.group(4)

    new_text = BLOCK.sub(refreshed, text)
    for command in differing:
        print(f"{'differs' if args.check else 'refreshed'}: kqctl {command}")
    if not args.check and new_text != text:
        readme.write_text(new_text, encoding="utf-8")
    return 1 if args.check and differing else 0


if __name__ == "__main__":
    sys.exit(main())
