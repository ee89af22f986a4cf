"""Nodes in the order YuniKorn tries them (yunikorn-core ``objects/nodesorting.go``,
``node_collection.go``) and the shim's predicates kqctl models.

Node sort policy (partition ``nodesortpolicy``): a node's score is the weighted mean of its usage shares over
the weighted resource types (default vcore and memory, weight 1); ``fair`` tries the least used node first,
``binpacking`` the most used. Equal scores go by node name. Reserved nodes are skipped by the normal
iterator. Predicates: ``nodeSelector``, required node affinity and NoSchedule/NoExecute taints (the rest of
the default Kubernetes plugins the shim runs are not modelled).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kqctl.k8s.selectors import first_untolerated_taint
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.api.snapshot import PodInfo
from kqctl.yunikorn.engine.objects import Node

FAIR = "fair"
BINPACKING = "binpacking"
DEFAULT_WEIGHTS = {"vcore": 1.0, "memory": 1.0}


BLOCK = 64  # nodes per block of the sorted order


class _Block:
    """A run of the sorted order: its entries, at least the most any open node (unreserved, schedulable) has free
    per resource type (None: to be worked out; it may stay above the exact figure when nodes fill up, and is
    made exact again by a search that goes through the whole block), and the failed scans of its nodes by ask
    shape, valid while ``version`` is unchanged."""

    __slots__ = ("entries", "room", "version", "scans", "no_fit")

    def __init__(self, entries: list[tuple[float, str]]) -> None:
        self.entries = entries
        self.room: dict[str, int] | None = None
        self.version = 0
        self.scans: dict[object, tuple[int, Scan]] = {}
        self.no_fit: dict[object, int] = {}  # ask shapes no open node here takes, at that version

    def touched(self) -> None:
        self.version += 1


@dataclass
class Scan:
    """What trying every open node of a block (or of all of them) found for an ask that fits none: how many
    nodes failed each way, the first predicate's reason, and the node a reservation would take."""

    unschedulable: int = 0
    too_small: int = 0
    full: int = 0
    predicates: int = 0
    predicate_reason: str = ""
    best: Node | None = None
    best_score: float = math.inf

    def merge(self, other: Scan) -> None:
        self.unschedulable += other.unschedulable
        self.too_small += other.too_small
        self.full += other.full
        self.predicates += other.predicates
        self.predicate_reason = self.predicate_reason or other.predicate_reason
        if other.best is not None and other.best_score < self.best_score:
            self.best, self.best_score = other.best, other.best_score


class NodeSet:
    """The partition's nodes, kept sorted by the policy's score.

    The order is kept in blocks (a sorted list of sorted lists), each with the most any of its open nodes has
    free per resource type: ``first_fit`` skips a block none of whose nodes can take the ask, and finds the node
    the full iterator would find first; ``scan`` reuses a block's result for an ask of the same shape while none
    of its nodes changed."""

    def __init__(self, nodes: list[Node], policy: str, weights: Mapping[str, float] | None) -> None:
        self.policy = BINPACKING if policy == BINPACKING else FAIR
        self.weights = dict(weights) if weights else dict(DEFAULT_WEIGHTS)
        self.by_name = {node.name: node for node in nodes}
        self.names = sorted(self.by_name)  # the nodes never change during a run: preemption tries them in this order
        for node in nodes:
            node.score = self.score(node)
        order = sorted((node.score, node.name) for node in nodes)
        self._blocks = [_Block(order[i:i + BLOCK]) for i in range(0, len(order), BLOCK)]
        self._lasts = [block.entries[-1] for block in self._blocks]
        self.reserved = 0  # nodes with a reservation
        # the names of the nodes without one: on a full cluster a preemption attempt looks at these few (and at the
        # nodes an old reservation leaves open) instead of passing every reserved node by
        self.unreserved: set[str] = {node.name for node in nodes if node.reserved_by is None}
        self._reserver: dict[str, int] = {}  # a reserved node's name -> the priority of the ask it is reserved for
        self.reserver_priorities: dict[int, int] = {}  # priority -> how many reservations asks of it hold

    @property
    def order(self) -> list[tuple[float, str]]:
        return [entry for block in self._blocks for entry in block.entries]

    def score(self, node: Node) -> float:
        """``absResourceUsage`` (fair) or 1 minus it (binpacking)."""
        usage = 0.0
        total_weight = 0.0
        for name, share in node.usage_shares().items():
            weight = self.weights.get(name)
            if not weight or math.isnan(share):
                continue
            usage += share * weight
            total_weight += weight
        mean = usage / total_weight if total_weight else 0.0
        return 1.0 - mean if self.policy == BINPACKING else mean

    def changed(self, node: Node) -> None:
        """Re-place a node after its usage changed."""
        key = (node.score, node.name)
        i = bisect.bisect_left(self._lasts, key)
        if i < len(self._blocks):
            block = self._blocks[i]
            entries = block.entries
            j = bisect.bisect_left(entries, key)
            if j < len(entries) and entries[j] == key:
                del entries[j]
                block.touched()
                if entries:
                    self._lasts[i] = entries[-1]
                else:
                    del self._blocks[i], self._lasts[i]
        node.score = self.score(node)
        self._insert((node.score, node.name))

    def _insert(self, key: tuple[float, str]) -> None:
        if not self._blocks:
            self._blocks.append(_Block([key]))
            self._lasts.append(key)
            return
        i = min(bisect.bisect_left(self._lasts, key), len(self._blocks) - 1)
        block = self._blocks[i]
        bisect.insort(block.entries, key)
        block.touched()
        self._grow(block, self.by_name[key[1]])
        entries = block.entries
        self._lasts[i] = entries[-1]
        if len(entries) > 2 * BLOCK:
            self._blocks[i:i + 1] = [_Block(entries[:BLOCK]), _Block(entries[BLOCK:])]
            self._lasts[i:i + 1] = [entries[BLOCK - 1], entries[-1]]

    def _block_of(self, node: Node) -> _Block | None:
        if not self._blocks:
            return None
        return self._blocks[min(bisect.bisect_left(self._lasts, (node.score, node.name)), len(self._blocks) - 1)]

    def reservation_changed(self, node: Node) -> None:
        """The node was reserved, or its reservation ended."""
        counts = self.reserver_priorities
        before = self._reserver.pop(node.name, None)
        if before is not None:
            counts[before] -= 1
            if not counts[before]:
                del counts[before]
        if node.reserved_by is None:
            self.unreserved.add(node.name)
        else:
            self.unreserved.discard(node.name)
            priority = self._reserver[node.name] = node.reserved_by.priority
            counts[priority] = counts.get(priority, 0) + 1
        block = self._block_of(node)
        if block is not None:
            block.touched()
            self._grow(block, node)

    @staticmethod
    def _grow(block: _Block, node: Node) -> None:
        room = block.room
        if room is None or node.reserved_by is not None or not node.schedulable:
            return
        for name, value in node.free.items():
            if value > room.get(name, value - 1):
                room[name] = value

    def _room(self, block: _Block) -> dict[str, int]:
        room = block.room
        if room is not None:
            return room
        room = {}
        by_name = self.by_name
        for _, name in block.entries:
            node = by_name[name]
            if node.reserved_by is not None or not node.schedulable:
                continue
            for key, value in node.free.items():
                if value > room.get(key, value - 1):
                    room[key] = value
        block.room = room
        return room

    def iterate(self, unreserved: bool) -> Iterator[Node]:
        """The full iterator, or the normal one that skips reserved nodes."""
        by_name = self.by_name
        for block in list(self._blocks):
            for _, name in list(block.entries):  # callers stop at the first node they change
                node = by_name[name]
                if unreserved and node.reserved_by is not None:
                    continue
                yield node

    def first_fit(self, shape: object, resource: Mapping[str, int], fits: Callable[[Node], bool]) -> Node | None:
        """The first open node of the normal iterator for which ``fits`` holds (``fits`` must imply the free
        room for ``resource`` and depend only on the ask's ``shape`` and the node), skipping the nodes and blocks
        without that room, and the blocks where an ask of that shape found no node since they last changed."""
        wanted = [(name, value) for name, value in resource.items() if value > 0]
        by_name = self.by_name
        for block in self._blocks:
            version = block.version
            no_fit = block.no_fit
            if no_fit.get(shape) == version:
                continue
            room = block.room
            if room is None:
                room = self._room(block)
            for name, value in wanted:
                if room.get(name, 0) < value:
                    break
            else:
                for _, name in block.entries:
                    node = by_name[name]
                    if node.reserved_by is not None:
                        continue
                    free = node.free
                    for key, value in wanted:
                        if free.get(key, 0) < value:
                            break
                    else:
                        if node.schedulable and fits(node):
                            return node
                # nothing here: the room was above the exact figure, work it out again (only now: a search that
                # finds a node would throw it away)
                block.room = None
                self._room(block)
            if len(no_fit) > 256:
                no_fit.clear()
            no_fit[shape] = version
        return None

    def scan(self, shape: object, resource: Resource, pod: PodInfo) -> Scan:
        """Every open node, for an ask that fits none of them (``first_fit`` found nothing): a block's result is
        kept for asks of the same shape (resources and placement constraints) until one of its nodes changes."""
        total = Scan()
        for block in self._blocks:
            cached = block.scans.get(shape)
            if cached is None or cached[0] != block.version:
                if len(block.scans) > 64:
                    block.scans.clear()
                cached = (block.version, self._scan_block(block, resource, pod))
                block.scans[shape] = cached
                block.no_fit[shape] = block.version
            total.merge(cached[1])
        return total

    def _scan_block(self, block: _Block, resource: Resource, pod: PodInfo) -> Scan:
        found = Scan()
        by_name = self.by_name
        for _, name in block.entries:
            node = by_name[name]
            if node.reserved_by is not None:
                continue
            if not node.schedulable:
                found.unschedulable += 1
                continue
            if not node.fits_total(resource):
                found.too_small += 1
                continue
            if node.fits_available(resource):
                why = predicates_pass(pod, node)
                assert why, "scan() is for asks no open node takes"
                found.predicates += 1
                found.predicate_reason = found.predicate_reason or why
            else:
                found.full += 1
            score = node.fit_in_score(resource)
            if score < found.best_score:
                found.best, found.best_score = node, score
        return found


def predicates_pass(pod: PodInfo, node: Node) -> str:
    """The shim's predicates kqctl models; "" when the node passes, else why not."""
    labels: Mapping[str, str] = node.info.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return f"node(s) didn't match Pod's node affinity/selector ({key}={value})"
    if pod.affinity_terms and not any(_term_matches(term, node) for term in pod.affinity_terms):
        return "node(s) didn't match Pod's node affinity/selector"
    taint = first_untolerated_taint(node.info.taints, list(pod.tolerations))
    if taint is not None:
        taint_key = taint.get("key") if isinstance(taint, Mapping) else str(taint)
        return f"node(s) had untolerated taint {{{taint_key}}}"
    return ""


def _term_matches(term: Any, node: Node) -> bool:
    if not isinstance(term, Mapping):
        return False
    labels = node.info.labels
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False  # an empty term matches nothing
    return all(_requirement(e, labels) for e in expressions if isinstance(e, Mapping)) and \
        all(_requirement(f, {"metadata.name": node.name}) for f in fields if isinstance(f, Mapping))


def _requirement(requirement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key = str(requirement.get("key"))
    operator = requirement.get("operator")
    values = [str(v) for v in requirement.get("values") or []]
    if operator == "In":
        return labels.get(key) in values
    if operator == "NotIn":
        return labels.get(key) not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    if operator in ("Gt", "Lt") and len(values) == 1 and key in labels:
        try:
            have, want = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return have > want if operator == "Gt" else have < want
    return False
