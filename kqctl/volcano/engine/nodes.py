"""Choosing a node for a task (allocate's predicate and ``prioritizeNodes``), fast on large clusters.

Every check kqctl models depends only on the node's state (allocatable, idle, releasing, pipelined, the pods'
non-zero requests, cordoned) and on the task's shape (its request and non-zero request). So for each task
shape in use, the nodes that fit it are kept in two heaps by score (those that fit the idle resources, and
those that fit only what is being released), each entry stamped with the node's version: when a node changes,
a fresh entry is pushed for every shape and older ones lapse. The best node is the top of the first non-empty
heap: the highest score, then the first name. That is Volcano's choice, except that Volcano picks at random
among equally scored nodes and may look at a sample of the nodes of a large cluster (percentageOfNodesToFind).

The scores normalised over the candidate nodes (VC-SCORE-6/7: PreferNoSchedule taints, preferred node
affinity) depend on which nodes fit, so each heap is split by the node's raw values for the task (fixed within
a session): every node of a group gets the same normalised score, the highest raw values are those of the
groups that still hold a node, and the best node is the best group top once its group's score is added. The
pod's nodeSelector and node affinity read node labels, so nodes are alike for a shape only when they agree on
the label keys it reads.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import Any

from kqctl.k8s.affinity import NO_PLACEMENT
from kqctl.volcano.api.resource import less_equal, less_equal_with_names
from kqctl.volcano.engine.framework import NodeInfo, Session, TaskInfo, highest_raw

Shape = tuple[Any, ...]
# Every task shape met, once: the tasks of a shape share one tuple, so the node choice and allocate key their
# tables on its id (hashing a shape hashes its tolerations and placement every time)
_INTERNED: dict[Shape, Shape] = {}


class _ShapeIndex:
    """For one task shape: the fitting nodes by (group, -score, name), with the version they were judged at."""

    def __init__(self, chooser: NodeChooser, task: TaskInfo) -> None:
        self.chooser = chooser
        self.task = task  # a representative: every task of the shape judges alike
        self.shape = chooser.shape(task)
        # per gradient (fits idle, fits only the future idle): raw values -> heap of (-score, name, version)
        self.heaps: tuple[dict[tuple[int, ...], list[tuple[Any, str, int]]], ...] = ({}, {})
        self.failures: dict[str, str | None] = {}  # node -> why it does not fit (None: it fits)
        self.versions: dict[str, int] = {}  # node -> the version it was last judged at
        self.entries = 0  # heap entries pushed since the heaps were last compacted
        self.histogram: dict[str, int] = {}  # reason -> how many nodes fail for it
        self.synced = chooser.logged()  # where in the chooser's log (NodeChooser.log) this index is up to date
        # Log entries before ``synced`` this index has not read yet, folded: node -> the last version it was logged at
        # (an earlier entry of a node is read as nothing when a later one exists: versions only grow, so the node is no
        # longer at the earlier one)
        self.pending: dict[str, int] = {}
        for node in chooser.ssn.node_list:
            self.judge(node)

    def sync(self) -> None:
        """Before the index is read in a quiet session: the nodes the chooser logged since this index last read its
        log judged as they were logged (see NodeChooser.log), each once. A node logged at a version it still has is
        as it was then: judged now, its verdict is the one it had then (a verdict is a function of the node's state;
        the heaps' order is on (score, name) alone). A node whose version moved since it was last logged (an action
        changed it without telling the chooser) is left as it was: its entries have lapsed, as the entry it would have
        got when logged would have, and it is logged again at the next session's open."""
        chooser = self.chooser
        end = chooser.logged()
        if self.synced == end and not self.pending:
            return
        nodes = chooser.ssn.nodes
        if self.entries > 4 * len(nodes) + 64:
            self._compact()
        if self.pending:
            self._judge_logged(self.pending.items())
            self.pending = {}
        self._judge_logged(chooser.since(self.synced))
        self.synced = end

    def _judge_logged(self, logged: Iterable[tuple[str, int]]) -> None:
        nodes, versions = self.chooser.ssn.nodes, self.versions
        for name, version in logged:
            node = nodes[name]
            if node.version == version and versions.get(name) != version:
                self.judge(node)

    def fold(self) -> None:
        """The log this index has not read, folded into ``pending`` (the chooser is cutting its log)."""
        self.pending.update(self.chooser.since(self.synced))
        self.synced = self.chooser.logged()

    def refresh(self, stale: list[str]) -> None:
        """A new session: judge again only the nodes that changed since they were last judged (finished or
        arrived pods, the last session's binds); the verdicts of the others still hold. ``stale``: by name, every
        node whose version may have moved since the last refresh (the others have not)."""
        nodes = self.chooser.ssn.nodes
        if self.entries > 4 * len(nodes) + 64:
            self._compact()
        versions = self.versions
        for name in stale:
            node = nodes[name]
            if versions.get(name) != node.version:
                self.judge(node)

    def _compact(self) -> None:
        """Drop the heap entries of nodes that changed since (they only lapse when they reach the top)."""
        nodes = self.chooser.ssn.nodes
        for groups in self.heaps:
            for raw, heap in list(groups.items()):
                kept = [entry for entry in heap if nodes[entry[1]].version == entry[2]]
                heapq.heapify(kept)
                groups[raw] = kept
        self.entries = 0

    def judge(self, node: NodeInfo) -> None:
        self.versions[node.name] = node.version
        reason, idle, score, raw = self.chooser.verdict(self.task, node, self.shape)
        old = self.failures.get(node.name)
        if old is not None:
            self.histogram[old] -= 1
        if reason is not None:
            self.histogram[reason] = self.histogram.get(reason, 0) + 1
        self.failures[node.name] = reason
        if reason is None:
            self.entries += 1
            heapq.heappush(self.heaps[0 if idle else 1].setdefault(raw, []), (-score, node.name, node.version))

    def best(self) -> NodeInfo | None:
        self.sync()
        nodes = self.chooser.ssn.nodes
        for groups in self.heaps:
            tops = {}
            for raw, heap in groups.items():
                while heap:
                    _, name, version = heap[0]
                    if nodes[name].version == version:
                        tops[raw] = heap[0]
                        break
                    heapq.heappop(heap)  # the node changed since: a newer entry (or none) stands for it
            if not tops:
                continue
            if len(tops) == 1:
                return nodes[next(iter(tops.values()))[1]]
            highest = highest_raw(tops)
            normalized = self.chooser.ssn.normalized_score
            _, name = min((negative - normalized(raw, highest), top_name)
                          for raw, (negative, top_name, _) in tops.items())
            return nodes[name]
        return None


class NodeChooser:
    """The node choice of one session, kept for the next sessions on the same cache (the session's
    ``node_chooser``): a verdict is a function of the node's state, the task's shape and the scheduler
    configuration, none of which a session changes behind a node's version, so a later session judges again only
    the nodes whose version moved (what finished, arrived or was bound since)."""

    MAX_VERDICTS = 250_000  # remembered (node state, shape) verdicts; forgotten all at once beyond it

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.conf = ssn.conf
        self.shapes: dict[int, _ShapeIndex] = {}  # by the shape's id (see _INTERNED)
        self.verdicts: dict[tuple[Any, ...], tuple[str | None, bool, Any, tuple[int, ...]]] = {}
        # Nodes that may have changed since the shapes were last brought up to date: the session that keeps this
        # chooser adds the nodes the cache saw change (session.NodeLedger); the others' versions have not moved.
        self.stale: set[str] = set()
        # In quiet sessions the indexes are brought up to date when read, not when a node changes (a shape no session
        # asks about is not judged again for every node that changes, and a node placed on many times is judged once):
        # every node that may have changed (stale at a session's open, placed on or undone in it) is logged with its
        # version then, from the absolute position ``log_start`` on; each index reads the log from where it stopped
        # (``_ShapeIndex.sync``). The reasons of a node changed behind the chooser's back (``failures``, the histogram)
        # may then be older ones: only ``fit_error``'s text reads them, which a quiet session's outcome does not.
        self.log: list[tuple[str, int]] = []
        self.log_start = 0

    @classmethod
    def of(cls, ssn: Session) -> NodeChooser:
        """The session's chooser: the one an earlier session on the same cache left, brought up to date, or a new
        one."""
        kept = ssn.node_chooser
        if isinstance(kept, NodeChooser) and kept.conf is ssn.conf and kept.ssn.nodes is ssn.nodes:
            if kept.ssn is not ssn:
                kept.ssn = ssn
                if len(kept.verdicts) > cls.MAX_VERDICTS:
                    kept.verdicts.clear()
                # the nodes changed before this session and in it before now (an action before allocate evicted
                # pods); nobody keeping count: every node
                stale = sorted(ssn.nodes if ssn.changed_nodes is None else kept.stale | ssn.changed_nodes)
                kept.stale.clear()
                kept._open(stale)
            return kept
        chooser = ssn.node_chooser = cls(ssn)
        return chooser

    @staticmethod
    def shape(task: TaskInfo) -> Shape:
        shape = task.shape
        if shape is None:  # fixed for a task: its request and its pod's spec
            found = (tuple(sorted(task.request.as_dict().items())), task.pod.score_request, task.pod.tolerations,
                     task.pod.placement)
            shape = task.shape = _INTERNED.setdefault(found, found)
        return shape

    def verdict(self, task: TaskInfo, node: NodeInfo, shape: Shape) -> tuple[str | None, bool, Any, tuple[int, ...]]:
        """(why it does not fit, whether it fits idle, its own score, its raw normalised-score values), once per
        node state and task shape."""
        key = (node.state_key(), id(shape), _label_view(task, node))  # (shapes are interned: see _INTERNED)
        found = self.verdicts.get(key)
        if found is None:
            failing = less_equal_with_names(task.request, node.future_idle(), "zero")
            reason = insufficient(failing) if failing else self.ssn.predicate(task, node)
            idle = reason is None and less_equal(task.request, node.idle, "zero")
            score = self.ssn.node_score(task, node) if reason is None else 0
            found = (reason, idle, score, self.ssn.node_raw(task, node))
            self.verdicts[key] = found
        return found

    def _index(self, task: TaskInfo) -> _ShapeIndex:
        shape = id(self.shape(task))
        index = self.shapes.get(shape)
        if index is None:
            index = self.shapes[shape] = _ShapeIndex(self, task)
        return index

    def _open(self, stale: list[str]) -> None:
        """A new session: the nodes that may have changed since the last one, logged (a quiet session) or judged again
        for every shape (the others, after every index caught up with the log). An index further behind than there are
        nodes folds what it has not read (at most a version per node), so that the log stays short."""
        nodes = self.ssn.nodes
        if not self.ssn.quiet:
            for index in self.shapes.values():
                index.sync()
                index.refresh(stale)
            self.log_start, self.log = self.logged(), []
            return
        self.log.extend((name, nodes[name].version) for name in stale)
        end = self.logged()
        oldest = end
        for index in self.shapes.values():
            if end - index.synced > len(nodes):
                index.fold()
            oldest = min(oldest, index.synced)
        del self.log[:oldest - self.log_start]
        self.log_start = oldest

    def logged(self) -> int:
        """The log's end, as an absolute position."""
        return self.log_start + len(self.log)

    def since(self, position: int) -> list[tuple[str, int]]:
        """The nodes logged from an absolute position on."""
        return self.log[position - self.log_start:]

    def changed(self, node: NodeInfo) -> None:
        """A node's resources changed (its version with them): judged again for every shape in use, at once or (a
        quiet session) as each index is read next."""
        if self.ssn.quiet:
            self.log.append((node.name, node.version))
            return
        for index in self.shapes.values():
            index.judge(node)

    def best(self, task: TaskInfo) -> NodeInfo | None:
        nominated = self.ssn.nodes.get(task.nominated) if task.nominated else None
        if nominated is not None and less_equal(task.request, nominated.future_idle(), "zero") \
                and self.ssn.predicate(task, nominated) is None:
            return nominated  # the node reclaim made room on (allocate tries the nominated node first)
        return self._index(task).best()

    def fits_nowhere(self, task: TaskInfo) -> bool:
        """No node takes the task as the nodes are now (then :meth:`best` finds none, its nominated node included:
        the same checks)."""
        return self._index(task).best() is None

    def fit_error(self, task: TaskInfo) -> str:
        """Volcano's FitErrors text: ``0/N nodes are unavailable: <count> <reason>, ...``."""
        index = self._index(task)
        index.sync()
        histogram = index.histogram
        parts = sorted(f"{count} {reason}" for reason, count in histogram.items() if count)
        text = f"0/{len(self.ssn.node_list)} nodes are unavailable"
        return f"{text}: {', '.join(parts)}." if parts else text


def _label_view(task: TaskInfo, node: NodeInfo) -> tuple[Any, ...]:
    """What of the node's labels (and name) the pod's nodeSelector and node affinity read."""
    placement = task.pod.placement
    if placement is NO_PLACEMENT:
        return ()
    labels = node.model.labels
    view: tuple[Any, ...] = tuple((key, labels.get(key)) for key in placement.keys())
    return (*view, node.name) if placement.reads_name() else view


def insufficient(resources: list[str]) -> str:
    """``WrapInsufficientResourceReason``."""
    return f"Insufficient {resources[0]}"
