"""LOAD: a FIFO (or socket, device) inside a directory is skipped with a located note, never read: nothing writes to
it, and reading it would wait forever (every command hung on -R over such a directory)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from support import REPO, Run

from kqctl.load.sources import expand_paths

Kq = Callable[..., Run]
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _directory_with_a_fifo(tmp_path: Path) -> Path:
    for source in (REPO / "samples" / "single-clusterqueue").glob("*.yaml"):
        shutil.copy(source, tmp_path / source.name)
    (tmp_path / "nested").mkdir()
    os.mkfifo(tmp_path / "nested" / "pipe.yaml")
    return tmp_path


@needs_fifo
def test_load_a_fifo_in_a_directory_is_left_out_with_a_note(tmp_path: Path) -> None:
    directory = _directory_with_a_fifo(tmp_path)
    skipped: list[str] = []
    files = expand_paths([str(directory)], recursive=True, skipped=skipped)
    assert not any(name.endswith("pipe.yaml") for name in files) and files
    assert skipped == [f"{directory}/nested/pipe.yaml: skipped: not a regular file (a FIFO, socket or device is "
                       "never read from a directory; name it to read it)"]


@needs_fifo
@pytest.mark.parametrize("command", [["validate"], ["simulate"], ["audit"], ["convert"], ["replay"],
                                     ["explain", "default/job-data-prep-a81c4", "--no-estimate"]])
def test_load_no_command_waits_on_a_fifo_in_a_directory(kqctl: Kq, tmp_path: Path, command: list[str]) -> None:
    directory = _directory_with_a_fifo(tmp_path)
    result: list[Run] = []
    worker = threading.Thread(target=lambda: result.append(kqctl(*command, "-R", str(directory))), daemon=True)
    worker.start()
    worker.join(timeout=120)
    if worker.is_alive():  # unblock the reader so the test process can end, then fail
        with open(directory / "nested" / "pipe.yaml", "w"):
            pass
        pytest.fail(f"kqctl {command[0]} waited on the FIFO")
    [run] = result
    assert run.code == 0, run.err
    assert "pipe.yaml: skipped: not a regular file" in run.err and "pipe.yaml" not in run.out
