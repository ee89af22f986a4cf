"""A small cluster of benchmarks/generate_volcano.py for tests (12 nodes, 5 queues, 60 groups): few nodes, so that they
fill up, shapes no node takes rule queues out and the node-choice log outgrows them."""

from __future__ import annotations

import importlib.util
from typing import Any

from support import REPO


def small_generated_cluster(placement: bool, actions: str | None) -> dict[str, Any]:
    """The cluster as one ``kind: List`` (``actions``: the scheduler configuration's actions instead of the chart's)."""
    spec = importlib.util.spec_from_file_location("generate_volcano", REPO / "benchmarks" / "generate_volcano.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    extra: dict[str, Any] = {}
    if actions is not None:
        extra["conf"] = module.CHART_CONF.replace('"enqueue, allocate, backfill"', f'"{actions}"')
    return module.generate(12, 5, 60, 4, placement=placement, **extra)  # type: ignore[no-any-return]
