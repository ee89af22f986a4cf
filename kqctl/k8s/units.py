"""Quantities for people: ``12.5Gi`` rather than ``13421772800`` or ``3294m`` of memory.

In the Kubernetes base so that every layer words an amount the same way: the engines' own findings
(audit), the cross-object checks of validate, and the renderers (through ``kqctl.render.units``).

Kueue's own messages print quantities its way (kqctl.k8s.quantity.format_resource_value, kept
verbatim where a message is Kueue's); tables and summaries use these human forms instead. JSON and
YAML output keep exact Kubernetes quantities.
"""

from __future__ import annotations

from kqctl.k8s.quantity import UNLIMITED, format_resource_value

_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_BYTE_RESOURCES = frozenset({"memory", "ephemeral-storage", "storage"})


def is_bytes(resource: str) -> bool:
    """Resources counted in bytes: shown with binary suffixes (Ki, Mi, Gi, ...)."""
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-") or resource.endswith("/memory")


_DECIMAL_SUFFIXES = ("", "k", "M", "G", "T", "P", "E")
# Beyond this many cores or units an exact figure (2305843009213693.95) says less than a rounded one (2.3P).
_HUGE = 10**12


def human(resource: str, value: int | None) -> str:
    """A quota amount as a person reads it; ``None`` is "-" (no limit set), the sentinel is "unlimited"."""
    if value is None:
        return "-"
    if value == UNLIMITED:  # the quota arithmetic's "no limit"
        return "unlimited"
    return human_request(resource, value)


def human_request(resource: str, value: int) -> str:
    """A requested (or freed, or added) amount as a person reads it: always a finite figure, even at the
    int64 ceiling Kueue's request arithmetic saturates at (that is a huge request, not "no limit")."""
    if value == 0:
        return "0"
    if resource == "cpu":
        return cores(value)
    if is_bytes(resource):
        return human_bytes(value)
    if abs(value) >= _HUGE:
        return _scaled_decimal(value)
    return format_resource_value(resource, value)


def cores(milli: int) -> str:
    """CPU from milli-cores: whole cores as ``4``, fractions as ``2.5``, below one core as ``500m``."""
    sign = "-" if milli < 0 else ""
    milli = abs(milli)
    if milli >= _HUGE * 1000:
        return sign + _scaled_decimal(milli // 1000)
    if milli < 1000:
        return f"{sign}{milli}m"
    whole, rest = divmod(milli, 1000)
    if rest == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{rest:03d}".rstrip("0")


def _scaled_decimal(value: int) -> str:
    """``2.3P``: one decimal with the largest SI suffix the value reaches, rounded half up in integers."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    power = _largest_power(value, 1000, len(_DECIMAL_SUFFIXES))
    unit = 1000**power
    tenths = (value * 10 + unit // 2) // unit
    whole, fraction = divmod(tenths, 10)
    text = f"{whole}.{fraction}" if fraction else f"{whole}"
    return f"{sign}{text}{_DECIMAL_SUFFIXES[power]}"


def _largest_power(value: int, base: int, suffixes: int) -> int:
    """The largest power of ``base`` (below ``suffixes``, the number of suffixes there are) that ``value`` reaches."""
    power = 0
    while power < suffixes - 1 and value >= base ** (power + 1):
        power += 1
    return power


def human_bytes(value: int) -> str:
    """Exact with the largest binary suffix that divides it (``80Gi``, ``1536Mi``); otherwise rounded to
    one decimal in the largest unit it reaches (``12.3Gi``), never raw bytes above 1Ki."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    power = _largest_power(value, 1024, len(_BINARY_SUFFIXES))
    unit = 1024**power
    if value % unit == 0:
        return f"{sign}{value // unit}{_BINARY_SUFFIXES[power]}"
    exact = _exact_binary(value)
    if exact is not None:
        return f"{sign}{exact}"
    tenths = (value * 10 + unit // 2) // unit  # round half up, in integers: quantities are never floats
    whole, fraction = divmod(tenths, 10)
    text = f"{whole}.{fraction}" if fraction else f"{whole}"
    return f"{sign}{text}{_BINARY_SUFFIXES[power]}"


def _exact_binary(value: int) -> str | None:
    """``1536Mi`` for 1.5Gi: exact in a smaller unit when that stays short (at most five digits)."""
    for power in range(len(_BINARY_SUFFIXES) - 1, 0, -1):
        unit = 1024**power
        if value % unit == 0 and value // unit < 100_000:
            return f"{value // unit}{_BINARY_SUFFIXES[power]}"
    return None
