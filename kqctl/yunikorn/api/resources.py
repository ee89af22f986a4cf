"""YuniKorn's resources: quantities as the config reads them (R1-R3) and the arithmetic of the core.

A resource is a sparse map from a resource name to an int64 quantity in YuniKorn's internal unit
(``vcore`` in millicores, ``memory`` in bytes, anything else as written). ``None`` is YuniKorn's nil
resource, which several operations treat differently from an empty one (``FitIn``, ``ComponentWiseMin``,
the fair share). Quantities are exact integers, saturated at int64 as ``addVal``/``subVal`` do; only the
ratios YuniKorn itself computes in float64 (fair share, usage shares, node scores) are floats, so that
comparisons tie and break exactly where YuniKorn's do.

Source: yunikorn-core ``pkg/common/resources/quantity.go`` and ``resources.go``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from kqctl.k8s.units import cores, human_bytes, is_bytes

Resource = dict[str, int]
ResourceView = Mapping[str, int]

MAX_INT64 = (1 << 63) - 1
MIN_INT64 = -(1 << 63)

VCORE = "vcore"  # scheduler-interface common.CPU: the only key parsed in millicores (R3)
MEMORY = "memory"
PODS = "pods"

# R1: after trimming, digits, optional blanks (RE2's \s: tab, newline, form feed, return, space), an
# optional suffix of one of these letters and an optional "i"; nothing else (no sign, decimal or exponent).
_LEGAL = re.compile(r"([0-9]+)[\t\n\f\r ]*((?:[mkKMGTPE]i?)?)\Z")
# R2: the multipliers; "K" alone, "mi" and the like match the pattern but have no multiplier.
_MULTIPLIERS = {
    "": 1, "m": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}
# Go's strings.TrimSpace: Unicode White_Space (Python's str.strip also strips \x1c-\x1f, Go does not).
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000"

INVALID_QUANTITY = "invalid quantity"
INVALID_SUFFIX = "invalid suffix"
OVERFLOW = "invalid quantity: overflow"


class QuantityError(ValueError):
    """A configured quantity YuniKorn refuses; ``str()`` is YuniKorn's exact message."""


def parse_quantity(text: str) -> int:
    """R1/R2 (``ParseQuantity``): a plain non-negative integer with an optional SI suffix, in base units."""
    return _parse(text, milli=False)


def parse_vcore(text: str) -> int:
    """R3 (``ParseVCore``): cores to millicores (``2`` -> 2000), or millicores with ``m`` (``500m`` -> 500)."""
    return _parse(text, milli=True)


def _parse(text: str, milli: bool) -> int:
    match = _LEGAL.match(text.strip(_GO_SPACE))
    if match is None:
        raise QuantityError(INVALID_QUANTITY)
    number, suffix = int(match.group(1)), match.group(2)
    if number > MAX_INT64:
        raise QuantityError(OVERFLOW)
    scale = _MULTIPLIERS.get(suffix)
    if scale is None or (suffix == "m" and not milli):
        raise QuantityError(INVALID_SUFFIX)
    value = number * scale
    if milli and suffix != "m":
        value *= 1000
    if value > MAX_INT64:
        raise QuantityError(OVERFLOW)
    return value


def parse_config_value(name: str, text: str) -> int:
    """One entry of a configured resource map: ``vcore`` in millicores, anything else in its base unit."""
    return parse_vcore(text) if name == VCORE else parse_quantity(text)


def resource_from_conf(conf: Mapping[str, str] | None) -> Resource:
    """``NewResourceFromConf``: every entry parsed; the first bad one raises. YuniKorn walks a Go map (random
    order), so with two bad entries its message may name either; kqctl checks them in name order."""
    result: Resource = {}
    for name in sorted(conf or {}):
        result[name] = parse_config_value(name, (conf or {})[name])
    return result


# --- int64 arithmetic as the core does it -------------------------------------------------------------


def add_val(a: int, b: int) -> int:
    """``addVal``: a + b saturated at the int64 limits."""
    result = a + b
    return MAX_INT64 if result > MAX_INT64 else MIN_INT64 if result < MIN_INT64 else result


def sub_val(a: int, b: int) -> int:
    return add_val(a, -b)


def _saturated(value: int) -> int:
    return MAX_INT64 if value > MAX_INT64 else MIN_INT64 if value < MIN_INT64 else value


# add, sub_only_existing and add_only_existing run hundreds of thousands of times in a simulation: they
# saturate inline (the same result as add_val) and call out only when a value leaves the int64 range.


def add(left: ResourceView | None, right: ResourceView | None) -> Resource:
    """``Add``: the union of types, nil as empty."""
    out = dict(left) if left else {}
    if right:
        get = out.get
        for name, value in right.items():
            result = get(name, 0) + value
            out[name] = result if MIN_INT64 <= result <= MAX_INT64 else _saturated(result)
    return out


def sub(left: ResourceView | None, right: ResourceView | None) -> Resource:
    """``Sub``: may go negative."""
    out = dict(left or {})
    for name, value in (right or {}).items():
        out[name] = sub_val(out.get(name, 0), value)
    return out


def sub_only_existing(base: ResourceView | None, delta: ResourceView | None) -> Resource | None:
    """``SubOnlyExisting``: only the types of ``base``."""
    if base is None:
        return None
    if delta is None:
        return dict(base)
    get = delta.get
    return {name: result if MIN_INT64 <= (result := value - get(name, 0)) <= MAX_INT64 else _saturated(result)
            for name, value in base.items()}


def add_only_existing(base: ResourceView | None, delta: ResourceView | None) -> Resource | None:
    """``AddOnlyExisting``: only the types of ``base``."""
    if base is None:
        return None
    if delta is None:
        return dict(base)
    get = delta.get
    return {name: result if MIN_INT64 <= (result := value + get(name, 0)) <= MAX_INT64 else _saturated(result)
            for name, value in base.items()}


def prune(resource: ResourceView | None) -> Resource | None:
    """``Prune``: drop zero quantities."""
    if resource is None:
        return None
    return {name: value for name, value in resource.items() if value != 0}


# --- comparisons --------------------------------------------------------------------------------------


def fit_in(larger: ResourceView | None, smaller: ResourceView | None) -> bool:
    """``FitIn``: every type of ``smaller`` fits; a type ``larger`` lacks counts as 0; negatives of larger as 0."""
    if smaller is None:
        return True
    bound = larger or {}
    return all(value <= max(0, bound.get(name, 0)) for name, value in smaller.items())


def fit_in_max_undef(larger: ResourceView | None, smaller: ResourceView | None) -> bool:
    """``FitInMaxUndef``: as ``FitIn`` but a type ``larger`` does not define is unlimited."""
    if smaller is None or not larger:
        return True
    get = larger.get
    for name, value in smaller.items():
        limit = get(name)
        # value > max(0, limit), without the call: every ask is checked against its headrooms at each retry
        if limit is not None and value > limit and value > 0:
            return False
    return True


def component_wise_min(left: ResourceView | None, right: ResourceView | None) -> Resource | None:
    """``ComponentWiseMin``: per type the smaller; a type on one side only is kept; nil and nil is nil."""
    if left is None and right is None:
        return None
    if left is None:
        return dict(right or {})
    if right is None:
        return dict(left)
    out = dict(left)
    for name, value in right.items():
        out[name] = min(out[name], value) if name in out else value
    return out


def strictly_greater_than_zero(resource: ResourceView | None) -> bool:
    """``StrictlyGreaterThanZero``: some value > 0 and none < 0; nil is not."""
    if resource is None:
        return False
    greater = False
    for value in resource.values():
        if value < 0:
            return False
        if value > 0:
            greater = True
    return greater


def is_zero(resource: ResourceView | None) -> bool:
    """``IsZero``: nil, empty or all zeros."""
    return resource is None or all(value == 0 for value in resource.values())


def is_empty(resource: ResourceView | None) -> bool:
    return resource is None or len(resource) == 0


def strictly_greater_than(larger: ResourceView | None, smaller: ResourceView | None) -> bool:
    """``StrictlyGreaterThan``: no type of either side smaller in ``larger``, and not all equal."""
    big, small = larger or {}, smaller or {}
    not_equal = False
    for name in set(big) | set(small):
        b, s = big.get(name, 0), small.get(name, 0)
        if s > b:
            return False
        if s != b:
            not_equal = True
    return not_equal


def greater_or_equal_only_existing(larger: ResourceView | None, smaller: ResourceView | None) -> bool:
    """``StrictlyGreaterThanOrEqualsOnlyExisting``: on the types both define, ``larger`` >= ``smaller``.

    An empty ``smaller`` passes when every value of ``larger`` is positive; disjoint types pass when both are
    non-empty (YuniKorn's own edge cases, kept as they are)."""
    big, small = larger or {}, smaller or {}
    common = False
    equal = False
    for name, value in big.items():
        if name in small:
            common = True
            if small[name] > value:
                return False
            equal = True
    if not small and big:
        return all(value > 0 for value in big.values())
    if common:
        return equal
    return bool(big) and bool(small)


def strictly_greater_only_existing(larger: ResourceView | None, smaller: ResourceView | None) -> bool:
    """``StrictlyGreaterThanOnlyExisting``: on the types both define, ``larger`` >= ``smaller`` and not all equal
    (an empty ``smaller`` passes when every value of ``larger`` is positive)."""
    big, small = larger or {}, smaller or {}
    common = False
    not_equal = False
    for name, value in big.items():
        if name in small:
            common = True
            if small[name] > value:
                return False
            if small[name] != value:
                not_equal = True
    if not small and big:
        return all(value > 0 for value in big.values())
    if common:
        return not_equal
    return bool(big) and bool(small)


def has_negative(resource: ResourceView | None) -> bool:
    return any(value < 0 for value in (resource or {}).values())


def matches_any(resource: ResourceView | None, other: ResourceView | None) -> bool:
    """``MatchAny``: the two share a type with a non-zero value on both sides."""
    mine, theirs = resource or {}, other or {}
    return any(value != 0 and theirs.get(name, 0) != 0 for name, value in mine.items())


# --- shares (float64, as YuniKorn computes them) --------------------------------------------------------


def _share_for(allocated: int, name: str, denominator: ResourceView | None) -> float | None:
    """``getShareFairForDenominator``: None when the denominator does not define the type."""
    if denominator is None or name not in denominator:
        return None
    value = denominator[name]
    if value <= 0:
        return 0.0 if allocated <= 0 else 1.0
    return allocated / value


def fair_share(allocated: ResourceView | None, guaranteed: ResourceView | None,
               fair_max: ResourceView | None) -> float:
    """``getFairShare`` (§7.1): the largest allocated/guaranteed ratio, falling back to the fair max per type."""
    if not allocated:
        return 0.0
    best = 0.0
    for name, value in allocated.items():
        if value < 0:
            continue
        share = _share_for(value, name, guaranteed)
        if share is None:
            share = _share_for(value, name, fair_max)
        if share is not None and share > best:
            best = share
    return best


def usage_shares(resource: ResourceView | None, total: ResourceView | None) -> list[float]:
    """``GetShares``: per type of ``resource`` its share of ``total`` (the raw value when the total lacks the
    type or has 0), zeros for zero usage, sorted ascending."""
    if not resource:
        return []
    shares: list[float] = []
    zeros = 0
    for name, value in resource.items():
        if value == 0:
            zeros += 1
            continue
        denominator = (total or {}).get(name, 0)
        shares.append(float(value) if denominator == 0 else value / denominator)
    shares.extend([0.0] * zeros)
    shares.sort()
    return shares


def compare_shares(left: list[float], right: list[float]) -> int:
    """``compareShares``: largest share first, then the next; a longer list decides by its leftover sign."""
    li, ri = len(left) - 1, len(right) - 1
    while li >= 0 and ri >= 0:
        if left[li] > right[ri]:
            return 1
        if left[li] < right[ri]:
            return -1
        li -= 1
        ri -= 1
    while li >= 0:
        if left[li] > 0:
            return 1
        if left[li] < 0:
            return -1
        li -= 1
    while ri >= 0:
        if right[ri] > 0:
            return -1
        if right[ri] < 0:
            return 1
        ri -= 1
    return 0


def comp_usage_ratio(left: ResourceView | None, right: ResourceView | None, total: ResourceView | None) -> int:
    """``CompUsageRatio`` (§7.2): -1 when ``left`` uses the smaller dominant share of ``total``."""
    return compare_shares(usage_shares(left, total), usage_shares(right, total))


# --- names pods never ask for (R4) -----------------------------------------------------------------------

_KUBECTL_NAMES = {"cpu": VCORE, "requests.cpu": VCORE, "limits.cpu": VCORE, "requests.memory": MEMORY,
                  "limits.memory": MEMORY, "mem": MEMORY, "vcores": VCORE, "cores": VCORE}


def kubectl_name(name: str) -> str | None:
    """R4: the name YuniKorn's pods use when ``name`` is written as kubectl writes it (``cpu`` is ``vcore``);
    None for a name pods do ask for (or may: extended resources keep their names)."""
    lowered = name.lower()
    meant = _KUBECTL_NAMES.get(lowered)
    if meant is None and lowered.startswith(("requests.", "limits.")):
        meant = name.split(".", 1)[1]
    return meant


def near_miss(name: str) -> str | None:
    """R4: ``vcore`` or ``memory`` when ``name`` is one of them in other letters or nearly (``Memory``, ``VCore``,
    ``memroy``), else None. YuniKorn accepts such a name as a resource of its own (``NewResourceFromConf`` parses
    every key, the validator checks values, never names) and no pod asks for it: Kubernetes only lets a container
    request cpu, memory, ephemeral-storage, hugepages-* or a domain-prefixed extended resource, all lower-case."""
    import difflib

    if name in (VCORE, MEMORY):
        return None
    close = difflib.get_close_matches(name.lower(), (VCORE, MEMORY), n=1, cutoff=0.8)
    return close[0] if close else None


# --- text ---------------------------------------------------------------------------------------------


def go_string(resource: ResourceView | None) -> str:
    """``Resource.String()``: Go's ``%v`` of the map (keys sorted), ``nil resource`` for nil."""
    if resource is None:
        return "nil resource"
    return "map[" + " ".join(f"{name}:{resource[name]}" for name in sorted(resource)) + "]"


def human_amount(name: str, value: int) -> str:
    """One of YuniKorn's internal integers as a person reads it: vcore in cores (``8``, ``500m``), byte resources
    with binary suffixes (``16Gi``), any other resource as its count."""
    if name == VCORE:
        return cores(value)
    if is_bytes(name):
        return human_bytes(value)
    return str(value)


def exceeding(amount: ResourceView | None, limit: ResourceView | None) -> str:
    """A short human hint for a validator message: the types of ``limit`` that ``amount`` goes above, e.g.
    ``vcore 8 > 4, memory 16Gi > 8Gi`` (YuniKorn's messages print whole Go maps in millicores and bytes)."""
    parts = [f"{name} {human_amount(name, (amount or {}).get(name, 0))} > {human_amount(name, value)}"
             for name, value in sorted((limit or {}).items(), key=lambda kv: (kv[0] != VCORE, kv[0] != MEMORY, kv[0]))
             if (amount or {}).get(name, 0) > value]
    return ", ".join(parts)


def union_types(resources: Iterable[ResourceView | None]) -> list[str]:
    """Every resource name used by any of ``resources``, sorted."""
    return sorted({name for resource in resources for name in (resource or {})})
