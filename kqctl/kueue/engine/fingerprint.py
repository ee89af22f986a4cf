"""Order-independent fingerprints kept up to date as a dict changes (SIM-7, SIM-8 state detection).

Steady-state detection compares the state after every cycle with earlier ones. Building that state
(every queued workload, as sets) costs O(N) per cycle, O(N²) over a run in which each of N queued
workloads is tried once: minutes at 10,000 workloads, and explain runs the cycles again for every
suggestion it checks. A :class:`FingerprintedDict` instead keeps a fingerprint of its items that
each insertion and removal updates in O(1): the sums, modulo 2**64, of two hashes of each item's
token. Two sets of tokens with equal sizes and equal sums in both hashes are taken to be equal.
The second hash of a token is computed from its first (Python hashes a tuple from its items' hashes), so
what bounds a false match is two different tokens of one run with the same 64-bit hash: with n distinct
tokens, about n**2 / 2**65 (3e-10 for 100,000 workload states); short of that, both sums must agree by
chance (about 2**-128).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

MASK = (1 << 64) - 1
_SECOND = "fingerprint:second"  # salts the second hash: equal first sums rarely mean equal second sums

V = TypeVar("V")


def token_hashes(token: object) -> tuple[int, int]:
    """The two 64-bit hashes a token adds to a fingerprint."""
    return hash(token) & MASK, hash((_SECOND, token)) & MASK


def fingerprint_of(tokens: Iterable[object]) -> tuple[int, int, int]:
    """(count, first sum, second sum) of a set of tokens, computed from scratch (what a dict keeps)."""
    count = first = second = 0
    for token in tokens:
        one, two = token_hashes(token)
        count, first, second = count + 1, (first + one) & MASK, (second + two) & MASK
    return count, first, second


class FingerprintedDict(dict[str, V], Generic[V]):
    """A dict whose :attr:`fingerprint` covers ``token(key, value)`` of every item, kept as it changes.

    The token is taken when an item is set: a value that changes while it sits in the dict (without being
    set again) is not seen until :meth:`resync`.
    """

    def __init__(self, token: Callable[[str, V], object], items: Iterable[tuple[str, V]] = ()) -> None:
        super().__init__()
        self._token = token
        self._parts: dict[str, tuple[int, int]] = {}
        self._first = 0
        self._second = 0
        self._fill(items)

    @property
    def fingerprint(self) -> tuple[int, int, int]:
        return len(self), self._first, self._second

    def resync(self) -> None:
        """Take every item's token again (after its values changed in place)."""
        self._parts.clear()
        self._first = self._second = 0
        self._fill(list(self.items()))

    def _fill(self, items: Iterable[tuple[str, V]]) -> None:
        """Set every item, as ``self[key] = value`` one by one would, in one loop (a queue's tracking starts with
        all of its workloads: 50,000 of them in explain's run to the steady state)."""
        token, parts, store = self._token, self._parts, super().__setitem__
        first, second = self._first, self._second
        for key, value in items:
            old = parts.get(key)
            if old is not None:
                first, second = first - old[0], second - old[1]
            item = token(key, value)
            one, two = hash(item) & MASK, hash((_SECOND, item)) & MASK
            store(key, value)
            parts[key] = (one, two)
            first, second = first + one, second + two
        self._first, self._second = first & MASK, second & MASK

    def _drop(self, key: str) -> None:
        one, two = self._parts.pop(key)
        self._first = (self._first - one) & MASK
        self._second = (self._second - two) & MASK

    def __setitem__(self, key: str, value: V) -> None:
        # _drop and the token's hashes (token_hashes) written out: queues move workloads between their sets hundreds
        # of thousands of times in one explain (every bulk move and requeue event), and the calls were most of the cost.
        parts = self._parts
        old = parts.pop(key, None)
        token = self._token(key, value)
        one, two = hash(token) & MASK, hash((_SECOND, token)) & MASK
        dict.__setitem__(self, key, value)
        parts[key] = (one, two)
        if old is None:
            self._first, self._second = (self._first + one) & MASK, (self._second + two) & MASK
        else:
            self._first = (self._first - old[0] + one) & MASK
            self._second = (self._second - old[1] + two) & MASK

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        one, two = self._parts.pop(key)
        self._first, self._second = (self._first - one) & MASK, (self._second - two) & MASK

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        if key in self._parts:
            self._drop(key)
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, V]:
        key, value = super().popitem()
        self._drop(key)
        return key, value

    def setdefault(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def __ior__(self, other: Any) -> FingerprintedDict[V]:  # type: ignore[override,misc]
        self.update(other)
        return self

    def clear(self) -> None:
        super().clear()
        self._parts.clear()
        self._first = self._second = 0

    def __reduce__(self) -> Any:
        # A copy rebuilt item by item would count every item twice: engine state is not copied or pickled.
        raise TypeError("a FingerprintedDict is engine state and is not copied or pickled")
