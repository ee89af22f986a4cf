"""``simulate -o json`` writes its report with kqctl.render.jsontext (tests/render/test_jsontext.py checks it on every
kind of value): a real report must be exactly what ``json.dumps(indent=2, ensure_ascii=False)`` writes."""

from __future__ import annotations

import json

from yunikorn_build import node, pod, snapshot

from kqctl.render.jsontext import dumps_indented
from kqctl.yunikorn.engine.simulation import simulate
from kqctl.yunikorn.render.simulation import contract


def test_simulate_json_report_is_json_dumps_indent_2() -> None:
    """A real report: queues with nil limits and float shares, pods allocated and pending, events."""
    queues = """
partitions:
  - name: default
    queues:
      - name: root
        submitacl: '*'
        queues:
          - name: a
            resources: {guaranteed: {vcore: 1}, max: {vcore: 2}}
          - name: b
"""
    pods = [pod(f"p{i}", queue="root.a" if i % 2 else "root.b", cpu="1", app=f"app-{i % 3}") for i in range(6)]
    result = simulate(snapshot(queues, node("n1", cpu="3"), *pods))
    data = contract(result)
    assert data["pods"] and data["events"]
    assert dumps_indented(data, ensure_ascii=False) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
