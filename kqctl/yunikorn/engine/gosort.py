"""Go's ``sort.SliceStable`` algorithm (insertion sort in blocks of 20, then in-place symmetric merges).

YuniKorn's queue order breaks exact ties on pending resources with a test that is not a strict weak
ordering (one queue may be "ahead" in one resource and "behind" in another). With such a comparator the
result depends on the sorting algorithm, not only on the input order, so kqctl sorts the way Go does to
give the answer YuniKorn gives for the same input order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_BLOCK = 20


def stable_sort(items: list[T], less: Callable[[T, T], bool]) -> None:
    """Sort ``items`` in place exactly as Go's ``sort.SliceStable(items, less)`` does."""
    n = len(items)
    a, b = 0, _BLOCK
    while b <= n:
        _insertion_sort(items, less, a, b)
        a, b = b, b + _BLOCK
    _insertion_sort(items, less, a, n)
    block = _BLOCK
    while block < n:
        a, b = 0, 2 * block
        while b <= n:
            _sym_merge(items, less, a, a + block, b)
            a, b = b, b + 2 * block
        middle = a + block
        if middle < n:
            _sym_merge(items, less, a, middle, n)
        block *= 2


def _insertion_sort(items: list[T], less: Callable[[T, T], bool], a: int, b: int) -> None:
    for i in range(a + 1, b):
        j = i
        while j > a and less(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1


def _sym_merge(items: list[T], less: Callable[[T, T], bool], a: int, m: int, b: int) -> None:
    if m - a == 1:
        i, j = m, b
        while i < j:
            h = (i + j) >> 1
            if less(items[h], items[a]):
                i = h + 1
            else:
                j = h
        for k in range(a, i - 1):
            items[k], items[k + 1] = items[k + 1], items[k]
        return
    if b - m == 1:
        i, j = a, m
        while i < j:
            h = (i + j) >> 1
            if not less(items[m], items[h]):
                i = h + 1
            else:
                j = h
        for k in range(m, i, -1):
            items[k], items[k - 1] = items[k - 1], items[k]
        return
    mid = (a + b) >> 1
    n = mid + m
    if m > mid:
        start, r = n - b, mid
    else:
        start, r = a, m
    p = n - 1
    while start < r:
        c = (start + r) >> 1
        if not less(items[p - c], items[c]):
            start = c + 1
        else:
            r = c
    end = n - start
    if start < m < end:
        _rotate(items, start, m, end)
    if a < start < mid:
        _sym_merge(items, less, a, start, mid)
    if mid < end < b:
        _sym_merge(items, less, mid, end, b)


def _rotate(items: list[T], a: int, m: int, b: int) -> None:
    i, j = m - a, b - m
    while i != j:
        if i > j:
            _swap_range(items, m - i, m, j)
            i -= j
        else:
            _swap_range(items, m - i, m + j - i, i)
            j -= i
    _swap_range(items, m - i, m, i)


def _swap_range(items: list[T], a: int, b: int, n: int) -> None:
    for i in range(n):
        items[a + i], items[b + i] = items[b + i], items[a + i]
