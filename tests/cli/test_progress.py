"""Progress shows on a terminal only, and leaves nothing behind; piped runs print nothing extra."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from support import run_kqctl

from kqctl.cli.progress import LARGE_INPUT, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_written_to_a_terminal_and_erased() -> None:
    terminal = _Terminal()
    progress = Progress(terminal)
    progress.step("kqctl: simulating 50,000 workloads...", LARGE_INPUT)
    progress.done()
    assert "simulating 50,000 workloads" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\x1b[K")


def test_an_error_erases_the_progress_line_before_its_message(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from kqctl.cli import app

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    Progress(terminal).step("kqctl: reading the inputs...")
    with pytest.raises(SystemExit):
        app._fail("<stdin>:4: bad quantity", 3)
    assert terminal.getvalue().endswith("kqctl: reading the inputs...\r\x1b[Kkqctl: error: <stdin>:4: bad quantity\n")


def test_small_inputs_and_pipes_get_no_progress(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    terminal = _Terminal()
    Progress(terminal).step("x", LARGE_INPUT - 1)
    assert terminal.getvalue() == ""
    piped = io.StringIO()
    Progress(piped).step("x")
    assert piped.getvalue() == ""
    monkeypatch.setenv("KQCTL_NO_PROGRESS", "1")
    Progress(terminal).step("x")
    assert terminal.getvalue() == ""


def test_piped_runs_print_nothing_on_stderr() -> None:
    for args in (("simulate", "samples/preemption"), ("validate", "samples/preemption")):
        assert run_kqctl(*args).err == ""


def test_the_line_is_cut_to_the_terminals_width_so_it_never_wraps(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from kqctl.cli.progress import fit

    long = "kqctl: replaying [####................] 1,234 of 15,000 workloads finished, virtual time 1m30s"
    assert len(long) > 80
    for columns in ("80", "40", "1"):
        monkeypatch.setenv("COLUMNS", columns)  # a StringIO has no terminal: $COLUMNS says the width
        terminal = _Terminal()
        Progress(terminal).step(long)
        shown = terminal.getvalue().removeprefix("\r\x1b[K")
        assert len(shown) <= max(1, int(columns) - 1) and shown.startswith(long[:max(0, min(10, int(columns) - 2))])
    monkeypatch.setenv("COLUMNS", "200")
    terminal = _Terminal()
    Progress(terminal).step(long)
    assert terminal.getvalue() == "\r\x1b[K" + long
    assert fit(long, 80) == long[:78] + "…" and fit("short", 80) == "short"


def _large_list(path: Path, cpu_quota: str) -> str:
    """One ClusterQueue with ``cpu_quota`` cpu and LARGE_INPUT one-cpu Workloads, as one JSON List at ``path``."""
    items: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "f", "resources": [{"name": "cpu", "nominalQuota": cpu_quota}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
         "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}]
    items += [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
               "metadata": {"name": f"w{i:04d}", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z"},
               "spec": {"queueName": "lq", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                   "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}}
              for i in range(LARGE_INPUT)]
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def test_explain_shows_its_progress_on_a_terminal_and_erases_it(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import kqctl.cli.progress as progress_module

    monkeypatch.setattr(progress_module, "_is_terminal", lambda stream: True)
    run = run_kqctl("explain", "ns/w0001", _large_list(tmp_path / "big.json", "100000"), "--no-estimate")
    assert run.code == 0, run.err
    assert "kqctl: explaining ns/w0001 among 2,000 workloads..." in run.err
    assert run.err.endswith("\r\x1b[K")  # erased: what follows starts on a clean line


def test_simulate_shows_its_cycles_on_a_terminal_for_a_large_input(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import kqctl.cli.progress as progress_module

    monkeypatch.setattr(progress_module, "_is_terminal", lambda stream: True)
    monkeypatch.setenv("COLUMNS", "200")
    run = run_kqctl("simulate", _large_list(tmp_path / "big.json", "10"), "-o", "json")
    assert run.code == 0, run.err
    # The first cycle is shown at once (later ones at most 5 times a second), then the line is erased.
    assert "kqctl: simulating 2,000 workloads: cycle 1 of at most 4,200, 1 admitted so far" in run.err
    assert run.err.endswith("\r\x1b[K")
    json.loads(run.out)  # the output itself is untouched
