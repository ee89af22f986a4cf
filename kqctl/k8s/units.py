"""Quantities for people: ``12.6Gi`` rather than ``13529146982`` bytes or ``12888Mi``; ``3.29`` cores.

In the Kubernetes base so that every layer words an amount the same way: the engines' own findings
(audit), the cross-object checks of validate, and the renderers of every scheduler (through
``kqctl.render.units``). JSON and YAML output keep exact Kubernetes quantities; Kueue's own messages
print quantities its way (kqctl.k8s.quantity.format_resource_value, kept verbatim where a message
is Kueue's).

The reading style (one rule, every command and scheduler):

* **bytes** (memory, storage, hugepages): the largest binary unit the amount reaches, with at most
  three significant digits (more only in the integer part: ``1000Gi``), rounded half up:
  ``80Gi``, ``1.5Gi``, ``12.6Gi``, ``4.56Ti``, ``512``. An amount a person set (a quota, a
  request) therefore reads back exactly whenever its exact form is that short (``80Gi``, ``1.5Gi``,
  ``1.25Ti``, ``512Mi``); a longer one (``4669Gi``, ``1500Mi``) is rounded like every other amount
  of its column (``4.56Ti``, ``1.46Gi``), so that a column never puts ``4669Gi`` beside ``1.8Ti``
  and the eye compares like with like.
* **cpu**, in cores: an amount a person set reads back exactly (``4``, ``2.5``, ``3.294``, below
  one core ``500m``), as it is never longer than milli-cores; a computed figure (a sum, a share, a
  mean, what is lent or left) keeps three significant digits (``3.29``, ``12.9``, ``129``; below one
  core whole milli-cores, ``346m``).
* **other resources** (GPUs, pods): whole units as they are (``8``); a computed fraction keeps three
  significant digits.
* beyond 10^12 cores or units, a rounded SI figure (``2.3P``) says more than a long exact one.

:func:`settable` is the exception: amounts a person is asked to write into a manifest (explain's
suggestions) are exact and short Kubernetes quantities, never rounded.
"""

from __future__ import annotations

from fractions import Fraction

from kqctl.k8s.quantity import UNLIMITED, format_resource_value

_BINARY_SUFFIXES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_BYTE_RESOURCES = frozenset({"memory", "ephemeral-storage", "storage"})
_DECIMAL_SUFFIXES = ("", "k", "M", "G", "T", "P", "E")
# Beyond this many cores or units an exact figure (2305843009213693.95) says less than a rounded one (2.3P).
_HUGE = 10**12
#: How many significant digits an amount keeps when it is rounded for reading.
SIGNIFICANT = 3

Amount = int | Fraction


def is_bytes(resource: str) -> bool:
    """Resources counted in bytes: shown with binary suffixes (Ki, Mi, Gi, ...)."""
    return resource in _BYTE_RESOURCES or resource.startswith("hugepages-") or resource.endswith("/memory")


def human(resource: str, value: int | None) -> str:
    """A quota amount a person set, as they read it; ``None`` is "-" (no limit set), the sentinel "unlimited"."""
    if value is None:
        return "-"
    if value == UNLIMITED:  # the quota arithmetic's "no limit"
        return "unlimited"
    return human_request(resource, value)


def human_request(resource: str, value: int) -> str:
    """A requested (or set) amount as a person reads it: always a finite figure, even at the int64
    ceiling Kueue's request arithmetic saturates at (that is a huge request, not "no limit")."""
    if value == 0:
        return "0"
    if resource == "cpu":
        return cores(value)
    if is_bytes(resource):
        return human_bytes(value)
    if abs(value) >= _HUGE:
        return _scaled_decimal(value)
    return format_resource_value(resource, value)


def human_figure(resource: str, value: Amount | None) -> str:
    """A computed amount (a sum, a mean, what is used, lent, borrowed or left) rounded for reading:
    cpu too keeps three significant digits. ``None`` is "-"; the sentinel is "unlimited"."""
    if value is None:
        return "-"
    if value == UNLIMITED:
        return "unlimited"
    if value == 0:
        return "0"
    if resource == "cpu":
        return cores_figure(value)
    if is_bytes(resource):
        return human_bytes(value)
    if abs(Fraction(value)) >= _HUGE:
        return _scaled_decimal(_round_half_up(value))
    if isinstance(value, Fraction) and value.denominator != 1:
        return _significant(value)
    return format_resource_value(resource, int(value))


def settable(resource: str, value: int) -> str:
    """An exact, short Kubernetes quantity a person can write back into a manifest (``1536Mi``, ``2.5``,
    ``4669Gi``): never rounded. For explain's suggestions."""
    if value == 0:
        return "0"
    if resource == "cpu":
        return cores(value)
    if is_bytes(resource):
        exact = _exact_binary(abs(value))
        if exact is not None:
            return ("-" if value < 0 else "") + exact
    return format_resource_value(resource, value)


def cores(milli: int) -> str:
    """CPU a person set, from milli-cores, exact: whole cores as ``4``, fractions as ``2.5``, below one core
    as ``500m``."""
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


def cores_figure(milli: Amount) -> str:
    """Computed CPU from milli-cores, three significant digits: ``3.29``, ``12.9``, ``129``, ``1290``; below one
    core whole milli-cores (``346m``)."""
    sign = "-" if milli < 0 else ""
    size = abs(Fraction(milli))
    if size >= _HUGE * 1000:
        return sign + _scaled_decimal(_round_half_up(size / 1000))
    if _round_half_up(size) < 1000:
        return f"{sign}{_round_half_up(size)}m"
    return sign + _significant(size / 1000)


def human_bytes(value: Amount) -> str:
    """Bytes in the largest binary unit reached, at most three significant digits (``80Gi``, ``1.5Gi``,
    ``12.6Gi``, ``1000Gi``, ``4.56Ti``); below 1Ki whole bytes. Rounded half up, in exact arithmetic."""
    sign = "-" if value < 0 else ""
    size = abs(Fraction(value))
    power = _largest_power(size, 1024, len(_BINARY_SUFFIXES))
    text = _significant(size / 1024**power)
    if power < len(_BINARY_SUFFIXES) - 1 and Fraction(text) >= 1024:  # 1023.7Gi rounds to 1Ti, not 1024Gi
        power += 1
        text = _significant(size / 1024**power)
    return f"{sign}{text}{_BINARY_SUFFIXES[power]}"


def _significant(value: Fraction) -> str:
    """``value`` (>= 0) with three significant digits, all of its integer digits kept, trailing zeros dropped."""
    digits = len(str(int(value))) if value >= 1 else 1
    decimals = max(0, SIGNIFICANT - digits)
    scaled = _round_half_up(value * 10**decimals)
    whole, fraction = divmod(scaled, 10**decimals)
    if decimals == 0 or fraction == 0:
        return str(whole)
    return f"{whole}.{fraction:0{decimals}d}".rstrip("0")


def _round_half_up(value: Amount) -> int:
    return int(value) if isinstance(value, int) else int((value * 2 + 1) // 2)


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


def _largest_power(value: Amount, base: int, suffixes: int) -> int:
    """The largest power of ``base`` (below ``suffixes``, the number of suffixes there are) that ``value`` reaches."""
    power = 0
    while power < suffixes - 1 and value >= base ** (power + 1):
        power += 1
    return power


def _exact_binary(value: int) -> str | None:
    """``1536Mi`` for 1.5Gi: exact with the largest binary suffix that divides it, when that stays short (at most
    five digits)."""
    for power in range(len(_BINARY_SUFFIXES) - 1, -1, -1):
        unit = 1024**power
        if value % unit == 0 and value // unit < 100_000:
            return f"{value // unit}{_BINARY_SUFFIXES[power]}"
    return None
