"""Choosing a node for a task (allocate's predicate and ``prioritizeNodes``), fast on large clusters.

Nodes in the same state (allocatable, idle, releasing, pipelined, the pods' non-zero requests, cordoned) are
interchangeable for every check kqctl models, so they are kept in buckets by that state and each bucket is
checked once: the candidate groups (fits idle, else fits only what is being released), then the scores, then
the first node by name among the best. That is Volcano's choice, except that it picks at random among equally
scored nodes and may look at a sample of the nodes on large clusters (percentageOfNodesToFind).
"""

from __future__ import annotations

import heapq
from typing import Any

from kqctl.volcano.api.resource import less_equal, less_equal_with_names
from kqctl.volcano.engine.framework import NodeInfo, Session, TaskInfo


class NodeChooser:
    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.key_of: dict[str, tuple[Any, ...]] = {}
        self.token: dict[str, int] = {}  # a node's latest bucket entry: older entries have lapsed
        self.buckets: dict[tuple[Any, ...], list[tuple[str, int]]] = {}
        self.sizes: dict[tuple[Any, ...], int] = {}
        self.cache: dict[tuple[Any, ...], tuple[str | None, bool, Any]] = {}
        for node in ssn.node_list:
            self._insert(node)

    def _insert(self, node: NodeInfo) -> None:
        key = node.state_key()
        self.key_of[node.name] = key
        token = self.token[node.name] = self.token.get(node.name, 0) + 1
        heapq.heappush(self.buckets.setdefault(key, []), (node.name, token))
        self.sizes[key] = self.sizes.get(key, 0) + 1

    def changed(self, node: NodeInfo) -> None:
        """A node's resources changed: it moves to the bucket of its new state (the old entry lapses)."""
        old = self.key_of[node.name]
        new = node.state_key()
        if new == old:
            return
        self.sizes[old] -= 1
        self._insert(node)

    def _first(self, key: tuple[Any, ...]) -> str | None:
        heap = self.buckets[key]
        while heap and self.token[heap[0][0]] != heap[0][1]:
            heapq.heappop(heap)
        return heap[0][0] if heap else None

    def _judge(self, task: TaskInfo, key: tuple[Any, ...], node: NodeInfo) -> tuple[str | None, bool, Any]:
        """(why it does not fit, whether it fits idle, its score), cached per node state and task shape."""
        cache_key = (key, tuple(sorted(task.request.as_dict().items())), task.pod.score_request)
        found = self.cache.get(cache_key)
        if found is None:
            failing = less_equal_with_names(task.request, node.future_idle(), "zero")
            reason = insufficient(failing) if failing else self.ssn.predicate(task, node)
            idle = reason is None and less_equal(task.request, node.idle, "zero")
            score = self.ssn.node_score(task, node) if reason is None else 0
            found = (reason, idle, score)
            self.cache[cache_key] = found
        return found

    def best(self, task: TaskInfo) -> NodeInfo | None:
        nominated = self.ssn.nodes.get(task.nominated) if task.nominated else None
        if nominated is not None and less_equal(task.request, nominated.future_idle(), "zero") \
                and self.ssn.predicate(task, nominated) is None:
            return nominated  # the node reclaim made room on (allocate tries the nominated node first)
        groups: tuple[list[tuple[Any, str, int]], list[tuple[Any, str, int]]] = ([], [])
        for key in list(self.buckets):
            if self.sizes.get(key, 0) <= 0:
                del self.buckets[key]
                self.sizes.pop(key, None)
                continue
            name = self._first(key)
            if name is None:
                continue
            reason, idle, score = self._judge(task, key, self.ssn.nodes[name])
            if reason is None:
                groups[0 if idle else 1].append((score, name, self.sizes[key]))
        for group in groups:
            if not group:
                continue
            if len(group) == 1 and group[0][2] == 1:
                return self.ssn.nodes[group[0][1]]
            top = max(score for score, _, _ in group)
            return self.ssn.nodes[min(name for score, name, _ in group if score == top)]
        return None

    def fit_error(self, task: TaskInfo) -> str:
        """Volcano's FitErrors text: ``0/N nodes are unavailable: <count> <reason>, ...``."""
        reasons: dict[str, int] = {}
        for key in list(self.buckets):
            size = self.sizes.get(key, 0)
            name = self._first(key) if size > 0 else None
            if name is None:
                continue
            reason, _, _ = self._judge(task, key, self.ssn.nodes[name])
            if reason is not None:
                reasons[reason] = reasons.get(reason, 0) + size
        parts = sorted(f"{count} {reason}" for reason, count in reasons.items())
        text = f"0/{len(self.ssn.node_list)} nodes are unavailable"
        return f"{text}: {', '.join(parts)}." if parts else text


def insufficient(resources: list[str]) -> str:
    """``WrapInsufficientResourceReason``."""
    return f"Insufficient {resources[0]}"
