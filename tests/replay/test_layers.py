"""The replay packages keep to their layers: the generic loop never knows a scheduler, Kueue's replay is pure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import REPO

GENERIC = sorted((REPO / "kqctl" / "replay").glob("*.py"))
KUEUE = sorted((REPO / "kqctl" / "kueue" / "replay").glob("*.py"))
UI_AND_IO = ("kqctl.cli", "kqctl.load", "kqctl.render", "kqctl.validate", "typer", "rich", "yaml", "kubernetes",
             "jsonschema", "matplotlib")
SCHEDULERS = ("kqctl.kueue", "kqctl.volcano", "kqctl.yunikorn")


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def offending(path: Path, forbidden: tuple[str, ...]) -> set[str]:
    return {m for m in imports(path) if any(m == f or m.startswith(f + ".") for f in forbidden)}


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: p.name)
def test_the_generic_replay_never_imports_a_scheduler_or_the_user_interface(path: Path) -> None:
    assert not offending(path, (*SCHEDULERS, *UI_AND_IO)), path.name


@pytest.mark.parametrize("path", KUEUE, ids=lambda p: p.name)
def test_kueues_replay_is_pure_and_never_imports_another_scheduler(path: Path) -> None:
    assert not offending(path, (*UI_AND_IO, "kqctl.volcano", "kqctl.yunikorn")), path.name
