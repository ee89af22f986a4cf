"""LEG-6: a legacy Workload admitted in spec.admission keeps its usage once converted."""

from __future__ import annotations

import json

from support import run_kqctl

SAMPLE = "samples/legacy-v1alpha1/kueue-v0.1-v1alpha1.yaml"


def test_converted_v1alpha1_workload_holds_its_pod_sets_requests_leg6() -> None:
    # No API server serves v1alpha1 (simulate refuses it, as validate does); --as-given reads it as converted.
    data = json.loads(run_kqctl("simulate", SAMPLE, "-o", "json", "--as-given").out)
    assignment = data["admitted"]["legacy-team/sample-job-7f3kq"]["podSetAssignments"][0]
    assert assignment["resourceUsage"] == {"cpu": "6", "memory": "12Gi"}  # 3 pods x (2 cpu, 4Gi)
    assert data["clusterQueues"]["legacy-batch"]["spot/cpu"]["used"] == "6"


def test_kqctl_convert_writes_the_recomputed_resource_usage_leg6() -> None:
    out = run_kqctl("convert", SAMPLE).out
    assert "resourceUsage:" in out and "memory: 12Gi" in out
