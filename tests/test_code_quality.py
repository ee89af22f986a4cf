"""The habits the architecture asks for, enforced: layering, lint and types."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO

ENGINE = REPO / "kqctl" / "engine"
# The engine is pure: the api layer and the standard library only (architecture.md).
FORBIDDEN_IN_ENGINE = ("kqctl.cli", "kqctl.load", "kqctl.render", "kqctl.validate", "typer", "rich", "yaml",
                       "kubernetes", "jsonschema")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_engine_imports_only_the_api_layer_and_the_standard_library(path: Path) -> None:
    bad = {m for m in imported_modules(path) if any(m == f or m.startswith(f + ".") for f in FORBIDDEN_IN_ENGINE)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = run_tool("ruff", "check", "kqctl", "tests", "scripts", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run_tool("mypy", "kqctl")
    assert result.returncode == 0, result.stdout + result.stderr
