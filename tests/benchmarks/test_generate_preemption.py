"""benchmarks/generate_preemption.py refuses a shape whose ClusterQueues Kueue would refuse (VAL-CQ-23: a lendingLimit
above the nominalQuota), with exit 2 and the reason, instead of writing a snapshot that does not load."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generate_preemption import main  # noqa: E402


@pytest.mark.parametrize(("arguments", "refused"), [
    (["--lending-limit", "40"], False),  # the whole nominalQuota may be lent
    (["--lending-limit", "41"], True),
    (["--lending-limit", "20", "--flavors", "2"], False),  # 40 cpu over two flavors: 20 each
    (["--lending-limit", "30", "--flavors", "2"], True),
    (["--lending-limit", "-1"], True),
    (["--borrowing-limit", "-1"], True),
    (["--borrowing-limit", "0"], False),
])
def test_a_lending_limit_above_each_flavor_s_nominal_quota_is_refused(
        arguments: list[str], refused: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--out", str(tmp_path / "out"), "--workloads", "20", *arguments])
    assert code == (2 if refused else 0)
    assert ("must be" in capsys.readouterr().err) is refused
