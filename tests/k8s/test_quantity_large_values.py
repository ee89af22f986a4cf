"""QTY-6: quantities past an int64 still print (a pod set's total can exceed 2^63 bytes)."""

from __future__ import annotations

import pytest

from kqctl.k8s.quantity import Quantity
from tests.support import REPO, run_kqctl


@pytest.mark.parametrize("value,expected", [
    (2**60, "1Ei"),
    (2**70, "1024Ei"),
    (-(2**70), "-1024Ei"),
    (3 * 2**80, "3145728Ei"),
])
def test_binary_canonical_stops_at_the_largest_suffix_qty6(value: int, expected: str) -> None:
    assert Quantity.from_int(value, "BinarySI").canonical() == expected


def test_a_workload_requesting_2_to_the_70_bytes_is_reported_not_a_crash(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cluster = (REPO / "samples" / "cohort-borrowing" / "cluster.yaml").read_text()
    workload = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: huge, namespace: team-b}
spec:
  queueName: team-b-queue
  podSets:
  - name: main
    count: 1024
    template:
      spec:
        containers:
        - name: c
          image: x
          resources: {requests: {cpu: "1", memory: 1Ei}}
"""
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "huge.yaml").write_text(workload)
    for command in (["validate"], ["simulate"], ["audit"], ["explain", "team-b/huge"]):
        run = run_kqctl(*command, str(tmp_path))
        assert run.code in (0, 1), (command, run.err)
        assert "internal error" not in run.err
