"""explain answers for every pod of random clusters (pending, allocated, running, preempted), in every format,
and each suggestion it makes was verified."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest
import yaml
from yunikorn_random import NOW, cluster

from kqctl.cli.schedulers import ALL_KINDS
from kqctl.load.objects import load_text
from kqctl.yunikorn.engine.explain import explain_pod
from kqctl.yunikorn.engine.simulation import simulate
from kqctl.yunikorn.load import build_snapshot
from kqctl.yunikorn.render.explain import render_pod


@pytest.mark.parametrize("seed", range(0, 60, 3))
def test_explain_every_pod(seed: int) -> None:
    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    for pod in simulate(copy.deepcopy(snapshot)).pods:
        explanation = explain_pod(copy.deepcopy(snapshot), pod.key)
        assert explanation.pod.state == pod.state
        assert all(s.verified for s in explanation.suggestions)
        for fmt in ("table", "json"):
            out = io.StringIO()
            render_pod(explanation, fmt, out)
            if fmt == "json":
                json.loads(out.getvalue())


@pytest.mark.parametrize("seed", range(1, 60, 3))
def test_queue_reports_audit_and_convert_on_random_clusters(seed: int, tmp_path: Path) -> None:
    from kqctl.render.charts import write_chart
    from kqctl.yunikorn.engine.audit import audit
    from kqctl.yunikorn.engine.partition import build_partition
    from kqctl.yunikorn.engine.priority import queue_report
    from kqctl.yunikorn.render.audit import quota_chart, render_audit, types_of
    from kqctl.yunikorn.render.explain import render_queue

    snapshot = build_snapshot(load_text(ALL_KINDS, yaml.safe_dump_all(cluster(seed))), NOW)
    partition = build_partition(copy.deepcopy(snapshot))
    for queue in partition.tree.queues():
        report = queue_report(partition, queue.path)
        for fmt in ("table", "json"):
            render_queue(report, fmt, io.StringIO())
    report = audit(copy.deepcopy(snapshot))
    for fmt in ("table", "json", "markdown"):
        render_audit(report, fmt, io.StringIO())
    chart = quota_chart(report)
    write_chart(chart, tmp_path / "quota.svg")
    assert "<svg" in (tmp_path / "quota.svg").read_text() and len(chart.panels) == len(types_of(report))
    from kqctl.yunikorn.convert import to_kueue

    assert snapshot.config.parsed.config is not None
    documents, _ = to_kueue(snapshot.config.parsed.config)
    assert any(d["kind"] == "ClusterQueue" for d in documents)
