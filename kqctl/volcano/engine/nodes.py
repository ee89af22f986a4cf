"""Choosing a node for a task (allocate's predicate and ``prioritizeNodes``), fast on large clusters.

Every check kqctl models depends only on the node's state (allocatable, idle, releasing, pipelined, the pods'
non-zero requests, cordoned) and on the task's shape (its request and non-zero request). So for each task
shape in use, the nodes that fit it are kept in two heaps by score (those that fit the idle resources, and
those that fit only what is being released), each entry stamped with the node's version: when a node changes,
a fresh entry is pushed for every shape and older ones lapse. The best node is the top of the first non-empty
heap: the highest score, then the first name. That is Volcano's choice, except that Volcano picks at random
among equally scored nodes and may look at a sample of the nodes of a large cluster (percentageOfNodesToFind).
"""

from __future__ import annotations

import heapq
from typing import Any

from kqctl.volcano.api.resource import less_equal, less_equal_with_names
from kqctl.volcano.engine.framework import NodeInfo, Session, TaskInfo

Shape = tuple[Any, ...]


class _ShapeIndex:
    """For one task shape: the fitting nodes by (group, -score, name), with the version they were judged at."""

    def __init__(self, chooser: NodeChooser, task: TaskInfo) -> None:
        self.chooser = chooser
        self.task = task  # a representative: every task of the shape judges alike
        self.shape = chooser.shape(task)
        self.heaps: tuple[list[tuple[Any, str, int]], list[tuple[Any, str, int]]] = ([], [])
        self.failures: dict[str, str | None] = {}  # node -> why it does not fit (None: it fits)
        self.histogram: dict[str, int] = {}  # reason -> how many nodes fail for it
        for node in chooser.ssn.node_list:
            self.judge(node)

    def judge(self, node: NodeInfo) -> None:
        reason, idle, score = self.chooser.verdict(self.task, node, self.shape)
        old = self.failures.get(node.name)
        if old is not None:
            self.histogram[old] -= 1
        if reason is not None:
            self.histogram[reason] = self.histogram.get(reason, 0) + 1
        self.failures[node.name] = reason
        if reason is None:
            heapq.heappush(self.heaps[0 if idle else 1], (-score, node.name, node.version))

    def best(self) -> NodeInfo | None:
        nodes = self.chooser.ssn.nodes
        for heap in self.heaps:
            while heap:
                _, name, version = heap[0]
                if nodes[name].version == version:
                    return nodes[name]
                heapq.heappop(heap)  # the node changed since: a newer entry (or none) stands for it
        return None


class NodeChooser:
    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.shapes: dict[Shape, _ShapeIndex] = {}
        self.verdicts: dict[tuple[Any, ...], tuple[str | None, bool, Any]] = {}

    @staticmethod
    def shape(task: TaskInfo) -> Shape:
        return (tuple(sorted(task.request.as_dict().items())), task.pod.score_request, task.pod.tolerations)

    def verdict(self, task: TaskInfo, node: NodeInfo, shape: Shape) -> tuple[str | None, bool, Any]:
        """(why it does not fit, whether it fits idle, its score), once per node state and task shape."""
        key = (node.state_key(), shape)
        found = self.verdicts.get(key)
        if found is None:
            failing = less_equal_with_names(task.request, node.future_idle(), "zero")
            reason = insufficient(failing) if failing else self.ssn.predicate(task, node)
            idle = reason is None and less_equal(task.request, node.idle, "zero")
            score = self.ssn.node_score(task, node) if reason is None else 0
            found = (reason, idle, score)
            self.verdicts[key] = found
        return found

    def _index(self, task: TaskInfo) -> _ShapeIndex:
        shape = self.shape(task)
        index = self.shapes.get(shape)
        if index is None:
            index = self.shapes[shape] = _ShapeIndex(self, task)
        return index

    def changed(self, node: NodeInfo) -> None:
        """A node's resources changed (its version with them): judge it again for every shape in use."""
        for index in self.shapes.values():
            index.judge(node)

    def best(self, task: TaskInfo) -> NodeInfo | None:
        nominated = self.ssn.nodes.get(task.nominated) if task.nominated else None
        if nominated is not None and less_equal(task.request, nominated.future_idle(), "zero") \
                and self.ssn.predicate(task, nominated) is None:
            return nominated  # the node reclaim made room on (allocate tries the nominated node first)
        return self._index(task).best()

    def fit_error(self, task: TaskInfo) -> str:
        """Volcano's FitErrors text: ``0/N nodes are unavailable: <count> <reason>, ...``."""
        histogram = self._index(task).histogram
        parts = sorted(f"{count} {reason}" for reason, count in histogram.items() if count)
        text = f"0/{len(self.ssn.node_list)} nodes are unavailable"
        return f"{text}: {', '.join(parts)}." if parts else text


def insufficient(resources: list[str]) -> str:
    """``WrapInsufficientResourceReason``."""
    return f"Insufficient {resources[0]}"
