"""Kubernetes resource quantities and Kueue's int64 view of them (design rules QTY-1..QTY-6, Q-10).

Everything here is an independent Python re-implementation of the behaviour described in
``kueue-semantics.md`` §1.6 and §3.1 (Q-10); where that text is silent, the behaviour of
Kubernetes ``resource.Quantity`` (apimachinery) is what we reproduce, because Kueue's messages and
decisions are made with it.

Layers:

* :func:`parse_quantity` -> :class:`Quantity` (QTY-1..QTY-3): exact value, remembered format and the
  user's spelling.
* :meth:`Quantity.canonical` (QTY-4): the string Kubernetes prints, quirks included.
* :func:`resource_value` / :func:`quota_value` (QTY-5): the int64 integers Kueue computes with.
* :func:`sat_add` & co. (Q-10): int64 arithmetic with saturation and the UNLIMITED sentinel.
* :func:`format_resource_value` (QTY-6): how Kueue prints those integers in its messages.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from kqctl.k8s.scalars import LiteralFloat, literal_text

__all__ = [
    "CPU_UNLIMITED_CORES",
    "ERR_FORMAT",
    "ERR_NUMERIC",
    "ERR_SUFFIX",
    "MAX_INT64",
    "MIN_INT64",
    "UNLIMITED",
    "UNLIMITED_TEXT",
    "Quantity",
    "QuantityError",
    "QuantityFormat",
    "canonical_quantity",
    "clamp_int64",
    "format_quantity_value",
    "format_resource_value",
    "int64_sat_add",
    "int64_sat_sub",
    "parse_quantity",
    "quota_value",
    "resource_value",
    "sat_add",
    "sat_mul",
    "sat_sub",
]

QuantityFormat = Literal["DecimalSI", "BinarySI", "DecimalExponent"]

# --- int64 bounds and the Q-10 sentinel -------------------------------------------------------

MAX_INT64 = 2**63 - 1
MIN_INT64 = -(2**63)
#: Q-10: a quota whose int64 value would not fit is stored as this sentinel.
UNLIMITED = MAX_INT64
#: QTY-6: how Kueue prints the UNLIMITED sentinel in quota-typed message slots.
UNLIMITED_TEXT = "<unlimited>"
#: QTY-5: a cpu quota of this many cores or more is UNLIMITED (floor((2^63-1)/1000)).
CPU_UNLIMITED_CORES = MAX_INT64 // 1000

# --- error texts (QTY-4): the exact Kubernetes messages ----------------------------------------

_SPLIT_RE_TEXT = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
ERR_FORMAT = f"quantities must match the regular expression '{_SPLIT_RE_TEXT}'"
ERR_SUFFIX = "unable to parse quantity's suffix"
ERR_NUMERIC = "unable to parse numeric part of quantity"
# kqctl's own limit (not a Kubernetes error): Python ints and Fractions of arbitrary size are exact
# but a hostile `1e999999999` (which the CRD pattern admits) would take forever to expand.
_MAX_INT_DIGITS = 4000
_ERR_TOO_LARGE = f"quantity is too large for kqctl (more than {_MAX_INT_DIGITS} integer digits)"


class QuantityError(ValueError):
    """A quantity that Kubernetes' parser rejects; ``str(err)`` is the Kubernetes message.

    ``kind`` is ``"format"``, ``"suffix"`` or ``"numeric"`` (the three Kubernetes errors) or
    ``"too-large"`` (a kqctl limit, see ``_MAX_INT_DIGITS``).
    """

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _format_error() -> QuantityError:
    return QuantityError(ERR_FORMAT, "format")


def _suffix_error() -> QuantityError:
    return QuantityError(ERR_SUFFIX, "suffix")


def _numeric_error() -> QuantityError:
    return QuantityError(ERR_NUMERIC, "numeric")


def _too_large_error() -> QuantityError:
    return QuantityError(_ERR_TOO_LARGE, "too-large")


# --- QTY-1 grammar ---------------------------------------------------------------------------

# One regex reproducing Kubernetes' hand-written scanner (not its documented split regex, which is
# only quoted in the error text): sign, leading zeros (stripped from the numerator), numerator,
# optional "." + fraction, then suffix letters, an optional sign and digits. Anything left over is
# the "must match the regular expression" error. Note the scanner accepts an empty number: "+",
# ".", "m" and "Ki" all parse as zero, while "Ei" or ".e-10" fail with the *numeric* error
# (they take the slow path, see _parse_text).
_SCANNER = re.compile(r"([+-]?)(0*)([0-9]*)(?:(\.)([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)")
# strconv.ParseInt(s, 10, 64) syntax, used for the digits after an `e`/`E` exponent suffix.
_EXPONENT_DIGITS = re.compile(r"[+-]?[0-9]+")

# QTY-1 suffix tables: suffix -> (base, exponent, format).
_SUFFIXES: dict[str, tuple[int, int, QuantityFormat]] = {
    "n": (10, -9, "DecimalSI"),
    "u": (10, -6, "DecimalSI"),
    "m": (10, -3, "DecimalSI"),
    "": (10, 0, "DecimalSI"),
    "k": (10, 3, "DecimalSI"),
    "M": (10, 6, "DecimalSI"),
    "G": (10, 9, "DecimalSI"),
    "T": (10, 12, "DecimalSI"),
    "P": (10, 15, "DecimalSI"),
    "E": (10, 18, "DecimalSI"),
    "Ki": (2, 10, "BinarySI"),
    "Mi": (2, 20, "BinarySI"),
    "Gi": (2, 30, "BinarySI"),
    "Ti": (2, 40, "BinarySI"),
    "Pi": (2, 50, "BinarySI"),
    "Ei": (2, 60, "BinarySI"),
}
# QTY-4 printing tables. A decimal exponent missing here prints with *no* suffix: that is the
# Kubernetes quirk that makes `1000E` (10^21) print as "1".
_DECIMAL_SUFFIX_BY_EXPONENT = {
    -9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E",
}
_BINARY_SUFFIX_BY_POWER = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")

_NANO = 10**9
# Kubernetes' fast path handles at most 18 decimal digits (they surely fit an int64).
_FAST_DECIMAL_DIGITS = 18
# Fraction digits kept when a binary value must be rounded (see _truncate_sticky).
_STICKY_DIGITS = 80


def _interpret_suffix(suffix: str) -> tuple[int, int, QuantityFormat]:
    """QTY-1: suffix -> (base, exponent, format); ``e<int>``/``E<int>`` is a decimal exponent."""
    known = _SUFFIXES.get(suffix)
    if known is not None:
        return known
    if len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT_DIGITS.fullmatch(suffix[1:]):
        parsed = int(suffix[1:])
        if MIN_INT64 <= parsed <= MAX_INT64:
            # Kubernetes parses the exponent as int64 and then keeps it in an int32: wrap likewise.
            return 10, (parsed + 2**31) % 2**32 - 2**31, "DecimalExponent"
    raise _suffix_error()


# --- the Quantity value object ---------------------------------------------------------------


@functools.total_ordering
@dataclass(frozen=True, eq=False)
class Quantity:
    """A parsed quantity: exact ``value``, remembered ``format`` (QTY-3) and original ``text``.

    Equality, ordering and hashing use the value only (``1k == 1000``); quantities also compare
    with ``int`` and ``Fraction``. ``verbatim`` records Kubernetes' "this spelling is already
    canonical" decision (QTY-4 quirk a), in which case :meth:`canonical` echoes ``text``.
    """

    value: Fraction
    format: QuantityFormat
    text: str
    verbatim: bool = field(default=False, repr=False)

    @classmethod
    def from_int(cls, v: int, fmt: QuantityFormat = "DecimalSI") -> Quantity:
        """An integer quantity with no spelling of its own (Kubernetes ``NewQuantity``)."""
        return cls(Fraction(v), fmt, "")

    @classmethod
    def from_milli(cls, v: int, fmt: QuantityFormat = "DecimalSI") -> Quantity:
        """``v / 1000`` with no spelling of its own (Kubernetes ``NewMilliQuantity``)."""
        return cls(Fraction(v, 1000), fmt, "")

    # QTY-4 -------------------------------------------------------------------------------

    def canonical(self) -> str:
        """QTY-4: the string Kubernetes prints for this quantity (its ``String()``)."""
        return self._canonical

    def __str__(self) -> str:
        return self._canonical

    @functools.cached_property
    def _canonical(self) -> str:
        if self.verbatim:
            return self.text
        return _canonical_string(self.value, self.format)

    # QTY-5 building blocks -----------------------------------------------------------------

    def milli_value(self) -> int:
        """``value * 1000`` rounded away from zero (Kubernetes ``MilliValue``), unbounded.

        Kueue never uses it unclamped: see :func:`resource_value` and :func:`quota_value`.
        """
        return self._milli

    def value_ceil(self) -> int:
        """``value`` rounded away from zero to an integer (Kubernetes ``Value``), unbounded."""
        return self._ceil

    @functools.cached_property
    def _milli(self) -> int:
        return _round_away(self.value * 1000)

    @functools.cached_property
    def _ceil(self) -> int:
        return _round_away(self.value)

    @property
    def overflows_int64(self) -> bool:
        """QTY-2: the value lies outside int64 (kqctl flags such quantities as "overflow")."""
        return not MIN_INT64 <= self.value <= MAX_INT64

    # value semantics -------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        other_value = _comparable(other)
        if other_value is None:
            return NotImplemented
        return self.value == other_value

    def __lt__(self, other: object) -> bool:
        other_value = _comparable(other)
        if other_value is None:
            return NotImplemented
        return self.value < other_value

    def __hash__(self) -> int:
        # Fraction hashes agree with int hashes, so this is consistent with __eq__ against ints.
        return hash(self.value)


def _comparable(other: object) -> Fraction | int | None:
    if isinstance(other, Quantity):
        return other.value
    if isinstance(other, (int, Fraction)) and not isinstance(other, bool):
        return other
    return None


def _round_away(x: Fraction) -> int:
    """Round to an integer away from zero (Kubernetes rounds "up" in magnitude)."""
    magnitude = -(-abs(x.numerator) // x.denominator)
    return magnitude if x >= 0 else -magnitude


# --- QTY-4 canonical string ------------------------------------------------------------------


def _canonical_string(value: Fraction, fmt: QuantityFormat) -> str:
    if value == 0:
        return "0"
    if fmt == "BinarySI" and abs(value) >= 1024 and value.denominator == 1:
        return _binary_canonical(value.numerator)
    # BinarySI below 1024 in magnitude, or with a fraction, prints as DecimalSI (no rounding).
    return _decimal_canonical(value, "DecimalExponent" if fmt == "DecimalExponent" else "DecimalSI")


def _binary_canonical(v: int) -> str:
    """Divide out 1024 while the mantissa stays an integer, then print with Ki..Ei."""
    if v == MIN_INT64:
        # Kubernetes negates the int64 to strip factors; -2^63 has no int64 negation, so nothing is
        # stripped and it prints as a plain number instead of "-8Ei".
        return str(v)
    mantissa, power = abs(v), 0
    # Ei is the largest suffix: a total past an int64 (2^70 bytes summed over pods) prints as "1024Ei".
    while mantissa >= 1024 and mantissa % 1024 == 0 and power < len(_BINARY_SUFFIX_BY_POWER) - 1:
        mantissa //= 1024
        power += 1
    sign = "-" if v < 0 else ""
    return f"{sign}{mantissa}{_BINARY_SUFFIX_BY_POWER[power]}"


def _decimal_canonical(value: Fraction, fmt: QuantityFormat) -> str:
    """value = m * 10^e with e a multiple of 3 as large as possible; print e as suffix/exponent."""
    # Every parsed value is a multiple of 1e-9 (QTY-2), so value * 10^9 is an integer.
    nanos = value.numerator * (_NANO // value.denominator)
    digits = str(abs(nanos))
    stripped = digits.rstrip("0")
    exponent = len(digits) - len(stripped) - 9
    # Move down to a multiple of 3 by giving the mantissa back some zeros (1.2 -> 1200m, not 1.2).
    pad = exponent % 3
    exponent -= pad
    mantissa = ("-" if nanos < 0 else "") + stripped + "0" * pad
    if fmt == "DecimalExponent":
        return mantissa if exponent == 0 else f"{mantissa}e{exponent}"
    return mantissa + _DECIMAL_SUFFIX_BY_EXPONENT.get(exponent, "")


# --- QTY-1..QTY-3 parsing --------------------------------------------------------------------


def parse_quantity(raw: str | int | float | Quantity) -> Quantity:
    """Parse a quantity as Kubernetes does (QTY-1..3); raise :class:`QuantityError` if it can't.

    YAML numbers are read as their literal text (QTY-1): ints via ``str``, a
    :class:`~kqctl.k8s.scalars.LiteralFloat` via its source text, a plain float via ``repr``.
    No whitespace is trimmed: the CRD pattern rejects it before Kubernetes would.
    """
    if isinstance(raw, Quantity):
        return raw
    if isinstance(raw, str):
        return _parse_text(raw)
    if isinstance(raw, bool):
        # YAML true/false in a quantity field: Kubernetes would see the word and reject it.
        return _parse_text(literal_text(raw))
    if isinstance(raw, int):
        if raw.bit_length() > _MAX_INT_DIGITS * 3:  # str() of a huge int is slow (and capped)
            raise _too_large_error()
        return _parse_text(str(raw))
    if isinstance(raw, LiteralFloat):
        return _parse_text(raw.text)
    if isinstance(raw, float):
        return _parse_text(repr(raw))
    raise _format_error()


def canonical_quantity(raw: str | int | float | Quantity) -> str:
    """QTY-4 canonical string of a raw quantity (convenience for ``parse_quantity(raw).canonical()``)."""
    return parse_quantity(raw).canonical()


@functools.lru_cache(maxsize=1 << 16)
def _parse_text(text: str) -> Quantity:
    # Validating 50k objects re-parses the same few spellings ("1", "500m", "1Gi") over and over,
    # hence the cache; Quantity is immutable so sharing instances is safe.
    if not text:
        raise _format_error()
    match = _SCANNER.fullmatch(text)
    if match is None:
        raise _format_error()
    sign, zeros, num, dot, denom, suffix = match.groups()
    denom = denom or ""
    base, exponent, fmt = _interpret_suffix(suffix)
    negative = sign == "-"
    # Only Kubernetes' slow path needs a digit somewhere ("Ki" parses, "Ei" does not).
    has_digits = bool(zeros or num or denom)
    # Kubernetes strips leading zeros and treats an empty numerator as "0".
    num = num or "0"
    if base == 10:
        return _parse_decimal(text, negative, num, denom, exponent, fmt, has_digits)
    return _parse_binary(text, negative, num, denom, exponent, dot is not None, has_digits)


def _parse_decimal(
    text: str, negative: bool, num: str, denom: str, exponent: int, fmt: QuantityFormat, has_digits: bool
) -> Quantity:
    shifted = num + denom  # all digits; value = shifted * 10^scale
    scale = exponent - len(denom)
    fast = len(shifted) <= _FAST_DECIMAL_DIGITS and scale >= -9
    if not fast and not has_digits:
        # The slow path re-reads the number with a decimal parser that needs at least one digit.
        raise _numeric_error()
    significant = shifted.lstrip("0") or "0"
    if significant != "0" and len(significant) + scale > _MAX_INT_DIGITS:
        raise _too_large_error()
    if scale >= -9:
        magnitude = int(significant)
        value = Fraction(magnitude * 10**scale) if scale >= 0 else Fraction(magnitude, 10**-scale)
    else:
        # QTY-2: below 1e-9, round away from zero to the next nano.
        value = Fraction(_ceil_nanos(significant, scale), _NANO)
    if negative:
        value = -value
    # QTY-4 quirk (a): the fast path keeps the user's spelling when it already looks canonical.
    verbatim = fast and scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return Quantity(value, fmt, text, verbatim)


def _ceil_nanos(significant: str, scale: int) -> int:
    """ceil(int(significant) * 10^(scale+9)) for scale < -9, using string cuts (no huge powers)."""
    drop = -9 - scale  # digits below the nano place
    if drop >= len(significant):
        return 0 if significant == "0" else 1
    head, tail = significant[:-drop], significant[-drop:]
    return int(head) + (1 if tail.strip("0") else 0)


def _parse_binary(
    text: str, negative: bool, num: str, denom: str, power: int, has_dot: bool, has_digits: bool
) -> Quantity:
    # Kubernetes' fast path: integer mantissa, few digits, product fits int64.
    fast = (
        not denom
        and 15 - len(num) - power * 3 // 10 - 1 >= 0
        and int(num) << power <= MAX_INT64
    )
    if not fast and not has_digits:
        raise _numeric_error()
    fmt: QuantityFormat = "BinarySI"
    if fast:
        value = Fraction(int(num) << power)
        # QTY-4 quirk (a), binary flavour: kept when the mantissa is not a multiple of 8.
        verbatim = int(num) & 7 != 0
    else:
        verbatim = False
        value = _slow_binary_value(num, denom, power)
        if 0 < value < 1:
            fmt = "DecimalSI"  # QTY-3: a BinarySI value strictly between 0 and 1 becomes DecimalSI
    if negative:
        value = -value
    return Quantity(value, fmt, text, verbatim)


def _slow_binary_value(num: str, denom: str, power: int) -> Fraction:
    """|value| of a binary quantity: exact, rounded up to a nano (QTY-2), capped at 2^63-1."""
    if len(num) > 30:  # >= 10^30 before the multiplier: certainly above the cap
        return Fraction(MAX_INT64)
    denom = _truncate_sticky(denom)
    exact = Fraction(int(num + denom) << power, 10 ** len(denom))
    rounded = Fraction(_round_away(exact * _NANO), _NANO)
    # QTY-2: Kubernetes caps BinarySI magnitudes at 2^63-1.
    return min(rounded, Fraction(MAX_INT64))


def _truncate_sticky(denom: str) -> str:
    """Shorten a very long fraction without changing how it rounds to a nano.

    Past 80 fraction digits (more than 9 + log10(2^60)) the only thing that matters for rounding
    up is whether anything non-zero follows, so replace the rest by a single "1" if it does.
    """
    if len(denom) <= _STICKY_DIGITS:
        return denom
    rest = denom[_STICKY_DIGITS:]
    return denom[:_STICKY_DIGITS] + ("1" if rest.strip("0") else "")


# --- QTY-5 Kueue integers --------------------------------------------------------------------


def clamp_int64(x: int) -> int:
    """Saturate a Python int to the int64 range [-2^63, 2^63-1]."""
    return MIN_INT64 if x < MIN_INT64 else MAX_INT64 if x > MAX_INT64 else x


_CPU_REQUEST_MAX = Fraction(MAX_INT64, 1000)
_CPU_REQUEST_MIN = Fraction(MIN_INT64, 1000)


def resource_value(resource: str, q: Quantity) -> int:
    """QTY-5, request side: cpu -> ceil(milli-cores), others -> ceil(units), clamped to int64.

    A clamped request is an ordinary int (never the UNLIMITED sentinel, Q-10). Negative values
    are kept (Kueue clamps them at -2^63, not -(2^63-1)); REQ-8 decides what negatives mean.
    """
    if resource == "cpu":
        if q.value > _CPU_REQUEST_MAX:
            return MAX_INT64
        if q.value < _CPU_REQUEST_MIN:
            return MIN_INT64
        return q.milli_value()
    if q.value > MAX_INT64:
        return MAX_INT64
    if q.value < MIN_INT64:
        return MIN_INT64
    return q.value_ceil()


def quota_value(resource: str, q: Quantity) -> int:
    """QTY-5, quota side (nominal, borrowingLimit, lendingLimit): may return UNLIMITED.

    cpu quotas of 9223372036854775 cores or more, and other quotas of 2^63-1 or more, become the
    UNLIMITED sentinel; note the cpu threshold is reached *before* the milli value overflows.
    Negative quotas are invalid (VAL); they are only clamped here so the result is an int64.
    """
    if resource == "cpu":
        if q.value >= CPU_UNLIMITED_CORES:
            return UNLIMITED
        return clamp_int64(q.milli_value())
    if q.value >= MAX_INT64:
        return UNLIMITED
    return clamp_int64(q.value_ceil())


# --- Q-10 arithmetic -------------------------------------------------------------------------


def sat_add(a: int, b: int) -> int:
    """Q-10 quota arithmetic: UNLIMITED + x = UNLIMITED, otherwise saturate to int64.

    A bounded sum that saturates high equals 2^63-1 and so reads as UNLIMITED afterwards, as in
    Kueue at the reference commit.
    """
    if a == UNLIMITED or b == UNLIMITED:
        return UNLIMITED
    total = a + b
    # the clamp written out: quota sums are summed for every head and admission, and nearly never saturate
    return total if MIN_INT64 <= total <= MAX_INT64 else (MAX_INT64 if total > 0 else MIN_INT64)


def sat_sub(a: int, b: int) -> int:
    """Q-10 quota arithmetic: UNLIMITED - bounded = UNLIMITED, bounded - UNLIMITED = -2^63,
    UNLIMITED - UNLIMITED = 0, otherwise saturate to int64."""
    if a == UNLIMITED:
        return 0 if b == UNLIMITED else UNLIMITED
    if b == UNLIMITED:
        return MIN_INT64
    difference = a - b
    return difference if MIN_INT64 <= difference <= MAX_INT64 else (MAX_INT64 if difference > 0 else MIN_INT64)


def sat_mul(a: int, b: int) -> int:
    """Saturating int64 product (per-pod request x pod count, QTY-5). There is no sentinel rule:
    Kueue never multiplies quota amounts."""
    return clamp_int64(a * b)


def int64_sat_add(a: int, b: int) -> int:
    """Request-side sum (Q-10): plain int64 saturation, 2^63-1 is just a number here."""
    return clamp_int64(a + b)


def int64_sat_sub(a: int, b: int) -> int:
    """Request-side difference (Q-10): plain int64 saturation, no sentinel."""
    return clamp_int64(a - b)


# --- QTY-6 printing Kueue integers -----------------------------------------------------------

_BINARY_FORMATTED = frozenset({"memory", "ephemeral-storage"})
_HUGEPAGES_PREFIX = "hugepages-"


def format_resource_value(
    resource: str,
    v: int,
    quota_side: bool = False,
    binary_resources: Collection[str] = (),
) -> str:
    """QTY-6: print a Kueue integer exactly as Kueue's messages do.

    ``quota_side`` marks message slots computed in the quota type (maximum capacity, previously
    considered podsets requests, "<n> more needed"): there UNLIMITED prints as ``<unlimited>``.
    ``binary_resources`` adds resource names printed like memory (Kueue registers DRA-backed
    resources that way).
    """
    if quota_side and v == UNLIMITED:
        return UNLIMITED_TEXT
    if resource == "cpu":
        return _format_milli(v)
    if _is_binary_formatted(resource, binary_resources):
        return _format_binary(v)
    return _format_decimal(v)


def _is_binary_formatted(resource: str, extra: Collection[str]) -> bool:
    # QTY-6: byte-valued resources print with binary suffixes.
    return resource in _BINARY_FORMATTED or resource.startswith(_HUGEPAGES_PREFIX) or resource in extra


#: Alias kept for callers that think of it as formatting a quantity value.
format_quantity_value = format_resource_value


@functools.lru_cache(maxsize=4096)
def _format_milli(v: int) -> str:
    # cpu integers are milli-cores: print v/1000 as a DecimalSI quantity.
    return Quantity.from_milli(v).canonical()


@functools.lru_cache(maxsize=4096)
def _format_decimal(v: int) -> str:
    return Quantity.from_int(v).canonical()


@functools.lru_cache(maxsize=4096)
def _format_binary(v: int) -> str:
    # Kueue prints a BinarySI quantity, re-parses that text and prints again: a value that is not a
    # multiple of 1024 comes back as a plain number, which re-parses as DecimalSI (1000000000 -> 1G).
    first = Quantity.from_int(v, "BinarySI").canonical()
    return _parse_text(first).canonical()
