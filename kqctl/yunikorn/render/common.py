"""Cells and table output shared by YuniKorn's renderers: resources in human units, limited tables."""

from __future__ import annotations

from collections.abc import Mapping

from kqctl.render.units import cores, cores_figure, human_bytes, is_bytes

MAIN_TYPES = ("vcore", "memory")


def amount(name: str, value: int) -> str:
    """One quantity a person set, in YuniKorn's units as a person reads it (kqctl.k8s.units): vcore as cores,
    memory with binary suffixes."""
    if value == 0:
        return "0"
    if name == "vcore":
        return cores(value)
    if is_bytes(name):
        return human_bytes(value)
    return str(value)


def amount_figure(name: str, value: int) -> str:
    """A computed quantity (allocated, pending, what is left): vcore keeps three significant digits."""
    return cores_figure(value) if name == "vcore" and value else amount(name, value)


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

