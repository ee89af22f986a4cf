"""Cells and table output shared by YuniKorn's renderers: resources in human units, limited tables."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TextIO

from kqctl.render.columns import Table, TableOptions, format_lines
from kqctl.render.units import cores, human_bytes, is_bytes

MAIN_TYPES = ("vcore", "memory")


def amount(name: str, value: int) -> str:
    """One quantity in YuniKorn's units as a person reads it: vcore as cores, memory with binary suffixes."""
    if value == 0:
        return "0"
    if name == "vcore":
        return cores(value)
    if is_bytes(name):
        return human_bytes(value)
    return str(value)


def pair(resource: Mapping[str, int] | None) -> str:
    """``vcore/memory`` of a resource (``-`` for a type it does not have; ``-`` alone for nil)."""
    if not resource:
        return "-"
    return "/".join(amount(n, resource[n]) if n in resource else "-" for n in MAIN_TYPES)


def others(resource: Mapping[str, int] | None, skip: tuple[str, ...] = (*MAIN_TYPES, "pods")) -> str:
    """Every other type as ``name=value``, comma-separated (``-`` when none)."""
    rest = [f"{n}={amount(n, v)}" for n, v in sorted((resource or {}).items()) if n not in skip]
    return ", ".join(rest) or "-"


def full(resource: Mapping[str, int] | None) -> str:
    """Every type, e.g. ``vcore 2, memory 4Gi, pods 1``; ``none`` for nil."""
    if resource is None:
        return "none"
    ordered = [n for n in MAIN_TYPES if n in resource] + sorted(n for n in resource if n not in MAIN_TYPES)
    return ", ".join(f"{n} {amount(n, resource[n])}" for n in ordered) or "empty"


def exact(resource: Mapping[str, int] | None) -> dict[str, int] | None:
    """For json/yaml: YuniKorn's internal integers (vcore millicores, memory bytes), keys sorted."""
    return None if resource is None else {name: resource[name] for name in sorted(resource)}


def write_table(out: TextIO, table: Table, view: TableOptions, paint: Callable[[str, str], str] | None,
                what: str) -> int:
    """At most ``view.limit`` rows and a note of how many were left out; returns the rows written."""
    total = len(table.rows)
    limit = total if view.limit is None else min(view.limit, total)
    rows, styles = table.rows, table.styles
    table.rows, table.styles = rows[:limit], styles[:limit]
    for line in format_lines(table, wide=view.wide, headers=view.headers, paint=paint):
        out.write(line + "\n")
    table.rows, table.styles = rows, styles
    if limit < total:
        (out if view.headers else sys.stderr).write(
            f"... {total - limit:,} more {what} not shown (first {limit:,} of {total:,}; --limit N or --show-all "
            "for more, -o json for everything)\n")
    return limit
