"""Fixtures for every test that runs kqctl: the real command (in-process), and files to feed it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import Run, run_kqctl


@pytest.fixture
def kqctl() -> Callable[..., Run]:
    return run_kqctl


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], str]:
    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return str(path)

    return _write
