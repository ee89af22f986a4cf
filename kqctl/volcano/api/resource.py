"""Volcano's resource vector and its comparisons (scheduler ``api/resource_info.go``), with exact numbers.

Volcano turns a ResourceList into a vector (``NewResource``): cpu in milli-cores, memory in bytes, ``pods``
in whole units, ``ephemeral-storage`` and every other *scalar* resource (extended resources such as
``nvidia.com/gpu``, ``hugepages-*``, ``*kubernetes.io/*``, attachable volumes) in milli-units; ``count/*``
quota names and names that are not scalar resource names (``requests.cpu``, ``storage``) are dropped.

Volcano computes in float64 and treats a difference below 0.1 as equal (``minResource``). kqctl keeps
integers (and exact fractions where Volcano divides, e.g. proportion's weight shares) and applies the same
0.1 tolerance where Volcano does; an unlimited dimension is :data:`INFINITE`. Which side's missing scalar
counts as 0 or as unlimited is the ``default`` argument, as Volcano's ``DimensionDefaultValue``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any, Literal

from kqctl.k8s.quantity import Quantity, QuantityError, parse_quantity

Amount = int | Fraction | float  # float only for INFINITE: quantities themselves are exact
Default = Literal["zero", "infinity"]
ZERO: Default = "zero"
INFINITY: Default = "infinity"

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"
INFINITE = math.inf  # Volcano's MaxFloat64 / MaxInt64 "unlimited" dimension
MIN_RESOURCE = Fraction(1, 10)  # Volcano's minResource: smaller differences and amounts count as none

_NATIVE_PREFIX = "kubernetes.io/"
_REQUESTS_PREFIX = "requests."


def is_scalar_resource_name(name: str) -> bool:
    """Kubernetes' ``IsScalarResourceName``: extended, hugepages, prefixed native and attachable volumes."""
    return (_is_extended(name) or name.startswith("hugepages-") or _NATIVE_PREFIX in name
            or name.startswith("attachable-volumes-"))


def _is_extended(name: str) -> bool:
    if "/" not in name or _NATIVE_PREFIX in name or name.startswith(_REQUESTS_PREFIX):
        return False
    from kqctl.k8s.names import is_qualified_name

    return not is_qualified_name(_REQUESTS_PREFIX + name)


def volcano_units(name: str, quantity: Quantity) -> int | None:
    """One quantity in Volcano's unit for the resource (``NewResource``); None when Volcano ignores the name."""
    if name == CPU:
        return quantity.milli_value()
    if name in (MEMORY, PODS):
        return quantity.value_ceil()
    if name == EPHEMERAL_STORAGE:
        return quantity.milli_value()
    if name.startswith("count/") or not is_scalar_resource_name(name):
        return None
    return quantity.milli_value()


def resource_list(raw: Mapping[str, Any]) -> dict[str, int]:
    """A ResourceList (name -> quantity text or number) in Volcano's units; raises :class:`QuantityError`
    naming the first quantity Kubernetes cannot parse (as ``ValueError`` with the resource name)."""
    result: dict[str, int] = {}
    for name, value in raw.items():
        try:
            quantity = parse_quantity(value.strip() if isinstance(value, str) else value)
        except (QuantityError, TypeError) as exc:
            raise ValueError(f"{name}: {exc}") from None
        amount = volcano_units(str(name), quantity)
        if amount is not None:
            result[str(name)] = amount
    return result


class Resource:
    """A mutable resource vector, as Volcano's ``*api.Resource``: cpu and memory always present (0 when
    unset), scalars only when named. Methods that change it return it, so calls chain as in Go."""

    __slots__ = ("cpu", "memory", "scalars")

    def __init__(self, cpu: Amount = 0, memory: Amount = 0, scalars: dict[str, Amount] | None = None) -> None:
        self.cpu: Amount = cpu
        self.memory: Amount = memory
        self.scalars: dict[str, Amount] = scalars if scalars is not None else {}

    @classmethod
    def of(cls, values: Mapping[str, Amount]) -> Resource:
        """From a name -> amount mapping already in Volcano's units."""
        scalars = {k: v for k, v in values.items() if k not in (CPU, MEMORY)}
        return cls(values.get(CPU, 0), values.get(MEMORY, 0), scalars)

    @classmethod
    def infinite(cls, scalar_names: Iterable[str] = ()) -> Resource:
        return cls(INFINITE, INFINITE, dict.fromkeys(scalar_names, INFINITE))

    def clone(self) -> Resource:
        return Resource(self.cpu, self.memory, dict(self.scalars))

    def get(self, name: str) -> Amount:
        if name == CPU:
            return self.cpu
        if name == MEMORY:
            return self.memory
        return self.scalars.get(name, 0)

    def as_dict(self) -> dict[str, Amount]:
        """cpu, memory (when non-zero or unlimited) and every scalar, by name."""
        values: dict[str, Amount] = {}
        if self.cpu:
            values[CPU] = self.cpu
        if self.memory:
            values[MEMORY] = self.memory
        values.update(self.scalars)
        return values

    def names(self) -> list[str]:
        """``ResourceNames``: dimensions of at least 0.1 (``pods`` included), cpu and memory first."""
        found = [n for n, v in ((CPU, self.cpu), (MEMORY, self.memory)) if _some(v)]
        return found + sorted(n for n, v in self.scalars.items() if _some(v))

    def is_empty(self) -> bool:
        """``IsEmpty``: every dimension below 0.1, ``pods`` not counted."""
        if _some(self.cpu) or _some(self.memory):
            return False
        return not any(_some(v) for n, v in self.scalars.items() if n != PODS)

    # --- arithmetic (in place) -----------------------------------------------------------------------

    def add(self, other: Resource) -> Resource:
        self.cpu += other.cpu
        self.memory += other.memory
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) + value
        return self

    def sub(self, other: Resource) -> Resource:
        """``sub``: only scalars this vector has are reduced (a Go nil map stays nil)."""
        self.cpu -= other.cpu
        self.memory -= other.memory
        if not self.scalars:
            return self
        for name, value in other.scalars.items():
            self.scalars[name] = self.scalars.get(name, 0) - value
        return self

    def multi(self, ratio: Fraction) -> Resource:
        self.cpu *= ratio
        self.memory *= ratio
        for name in self.scalars:
            self.scalars[name] *= ratio
        return self

    def min_dimension(self, other: Resource, default: Default) -> Resource:
        """``MinDimensionResource``: per dimension the smaller; a scalar of this vector missing in ``other``
        is kept (infinity) or set to 0 (zero). Scalars only ``other`` has are not added."""
        self.cpu = min(self.cpu, other.cpu)
        self.memory = min(self.memory, other.memory)
        for name, value in self.scalars.items():
            if name in other.scalars:
                self.scalars[name] = min(value, other.scalars[name])
            elif default == ZERO:
                self.scalars[name] = 0
        return self

    def __repr__(self) -> str:
        return f"Resource({self.as_dict()!r})"

    def __eq__(self, other: object) -> bool:
        """Exact equality of every dimension (Go's ``equality.Semantic.DeepEqual`` on the vector)."""
        if not isinstance(other, Resource):
            return NotImplemented
        return (self.cpu == other.cpu and self.memory == other.memory
                and _scalars_equal(self.scalars, other.scalars))

    __hash__ = None  # type: ignore[assignment]


def equal_in_float64(left: Resource, right: Resource) -> bool:
    """``reflect.DeepEqual`` of two vectors as Volcano holds them, in float64: each exact amount rounded to the
    nearest float64 first. Where Volcano's loops end on such an equality (proportion's water-filling), exact
    amounts can go on changing forever by ever smaller steps that float64 stopped seeing long before."""
    return (float(left.cpu) == float(right.cpu) and float(left.memory) == float(right.memory)
            and all(float(left.scalars.get(n, 0)) == float(right.scalars.get(n, 0))
                    for n in set(left.scalars) | set(right.scalars)))


def _scalars_equal(a: Mapping[str, Amount], b: Mapping[str, Amount]) -> bool:
    # A map entry at 0 and no entry decode alike for the vectors Volcano compares this way.
    names = set(a) | set(b)
    return all(a.get(n, 0) == b.get(n, 0) for n in names)


def _some(value: Amount) -> bool:
    """At least 0.1 (for a whole number: at least 1)."""
    return value >= 1 if type(value) is int else value >= MIN_RESOURCE


def _le(left: Amount, right: Amount) -> bool:
    """Volcano's ``l < r || |l - r| < 0.1`` (for whole numbers: ``l <= r``)."""
    if type(left) is int and type(right) is int:
        return left <= right
    if left < right:
        return True
    if left == right:
        return True
    if math.isinf(left) or math.isinf(right):
        return False
    return bool(abs(Fraction(left) - Fraction(right)) < MIN_RESOURCE)


def less_equal(left: Resource, right: Resource, default: Default) -> bool:
    """``LessEqual``: every dimension of ``left`` at most ``right`` (0.1 tolerance). With ``infinity``, a
    scalar ``right`` has and ``left`` lacks makes it false; a scalar ``left`` has and ``right`` lacks is
    unlimited (infinity) or 0 (zero)."""
    if not _le(left.cpu, right.cpu) or not _le(left.memory, right.memory):
        return False
    if default == INFINITY and any(name not in left.scalars for name in right.scalars):
        return False
    for name, value in left.scalars.items():
        if name not in right.scalars:
            if default == INFINITY:
                continue
            if not _le(value, 0):
                return False
        elif not _le(value, right.scalars[name]):
            return False
    return True


def less_equal_with_names(left: Resource, right: Resource, default: Default) -> list[str]:
    """``LessEqualWithResourcesName``: the dimensions where ``left`` exceeds ``right``; [] means it fits."""
    failing = [name for name, l_value, r_value in ((CPU, left.cpu, right.cpu), (MEMORY, left.memory, right.memory))
               if not _le(l_value, r_value)]
    for name, value in left.scalars.items():
        if name not in right.scalars and default == INFINITY:
            continue
        if not _le(value, right.scalars.get(name, 0)):
            failing.append(name)
    return failing


def exceeding_requested_dims(left: Resource, right: Resource, request: Resource) -> list[str]:
    """``LessEqualWithDimensionAndResourcesName``: the dimensions the request asks for (> 0, ``pods``
    never) where ``left`` is strictly above ``right`` (no tolerance); [] means within bounds."""
    failing: list[str] = []
    if request.cpu > 0 and left.cpu > right.cpu:
        failing.append(CPU)
    if request.memory > 0 and left.memory > right.memory:
        failing.append(MEMORY)
    if not left.scalars:
        return failing
    for name, amount in request.scalars.items():
        if name == PODS:
            continue
        if amount > 0 and left.scalars.get(name, 0) > right.scalars.get(name, 0):
            failing.append(name)
    return failing


def less_partly(left: Resource, right: Resource, default: Default) -> bool:
    """``LessPartly``: some dimension of ``left`` strictly below ``right``."""
    if left.cpu < right.cpu or left.memory < right.memory:
        return True
    if default == ZERO and any(name not in left.scalars for name in right.scalars):
        return True
    for name, value in left.scalars.items():
        if name not in right.scalars:
            if default == INFINITY:
                return True
            continue
        if value < right.scalars[name]:
            return True
    return False


def less_equal_partly_zero_filtered(left: Resource, right: Resource, request: Resource) -> list[str]:
    """``LessEqualPartlyWithDimensionZeroFiltered``: requested dimensions (ignoring those where both sides
    are below 0.1) where ``left`` is at most ``right``; non-empty means "partly within"."""
    fits: list[str] = []
    if request.cpu > 0 and not (left.cpu < MIN_RESOURCE and right.cpu < MIN_RESOURCE) and _le(left.cpu, right.cpu):
        fits.append(CPU)
    if (request.memory > 0 and not (left.memory < MIN_RESOURCE and right.memory < MIN_RESOURCE)
            and _le(left.memory, right.memory)):
        fits.append(MEMORY)
    for name, amount in request.scalars.items():
        if name == PODS or amount <= 0:
            continue
        l_value, r_value = left.get(name), right.get(name)
        if not (l_value < MIN_RESOURCE and r_value < MIN_RESOURCE) and _le(l_value, r_value):
            fits.append(name)
    return fits


def greater_on_relevant_dims(left: Resource, right: Resource, request: Resource) -> list[str]:
    """``GreaterPartlyWithRelevantDimensions``: dimensions the request asks for and ``right`` defines (cpu
    and memory only when at least 0.1; a scalar when present, even at 0) where ``left`` exceeds ``right``."""
    above: list[str] = []
    if request.cpu > 0 and right.cpu >= MIN_RESOURCE and left.cpu > right.cpu:
        above.append(CPU)
    if request.memory > 0 and right.memory >= MIN_RESOURCE and left.memory > right.memory:
        above.append(MEMORY)
    for name, amount in request.scalars.items():
        if name == PODS or amount <= 0 or name not in right.scalars:
            continue
        if left.get(name) > right.scalars[name]:
            above.append(name)
    return above


def diff(left: Resource, right: Resource) -> tuple[Resource, Resource]:
    """``Diff`` with zero defaults: (how much ``left`` is above ``right``, how much below), per dimension."""
    increased, decreased = Resource(), Resource()
    if left.cpu > right.cpu:
        increased.cpu = left.cpu - right.cpu
    else:
        decreased.cpu = right.cpu - left.cpu
    if left.memory > right.memory:
        increased.memory = left.memory - right.memory
    else:
        decreased.memory = right.memory - left.memory
    for name in set(left.scalars) | set(right.scalars):
        l_value, r_value = left.scalars.get(name, 0), right.scalars.get(name, 0)
        if l_value > r_value:
            increased.scalars[name] = l_value - r_value
        else:
            decreased.scalars[name] = r_value - l_value
    return increased, decreased


def exceeded_part(left: Resource, right: Resource | None) -> Resource:
    """``ExceededPart``: per dimension ``max(left - right, 0)`` (a new vector)."""
    if right is None:
        return left.clone()
    return diff(left, right)[0]


def maximum(left: Resource, right: Resource) -> Resource:
    """``helpers.Max``: per-dimension maximum; negative scalars dropped."""
    result = Resource(max(left.cpu, right.cpu), max(left.memory, right.memory))
    for name, value in left.scalars.items():
        if value >= 0:
            result.scalars[name] = value
    for name, value in right.scalars.items():
        if value >= 0:
            result.scalars[name] = max(value, result.scalars.get(name, 0))
    return result


def share(allocated: Amount, deserved: Amount) -> Fraction | float:
    """``helpers.Share``: 0 when both are 0, 1 when only ``deserved`` is, else their ratio."""
    if deserved == 0:
        return Fraction(0) if allocated == 0 else Fraction(1)
    if isinstance(deserved, float):  # unlimited
        return Fraction(0)
    if isinstance(allocated, int) and isinstance(deserved, int):
        return Fraction(allocated, deserved)
    return Fraction(allocated) / Fraction(deserved)


def intersection(left: Resource, right: Resource) -> list[str]:
    """``Intersection``: dimension names both vectors hold at 0.1 or more."""
    right_names = set(right.names())
    return [name for name in left.names() if name in right_names]


def format_amount(value: Amount) -> str:
    """``%0.2f`` of an amount, as Volcano's ``Resource.String()``; unlimited prints as Volcano's maxFloat."""
    if isinstance(value, float) and math.isinf(value):
        return "maxFloat"
    hundredths = Fraction(value) * 100
    rounded = math.floor(hundredths + Fraction(1, 2))
    sign = "-" if rounded < 0 else ""
    whole, cents = divmod(abs(rounded), 100)
    return f"{sign}{whole}.{cents:02d}"


def format_vector(resource: Resource) -> str:
    """Volcano's ``Resource.String()``: ``cpu 9000.00, memory 19327352832.00[, <scalar> <v>...]``."""
    parts = [f"cpu {format_amount(resource.cpu)}", f"memory {format_amount(resource.memory)}"]
    parts.extend(f"{name} {format_amount(resource.scalars[name])}" for name in sorted(resource.scalars))
    return ", ".join(parts)


def to_quantity(name: str, value: Amount) -> str:
    """An amount in Volcano's unit as a Kubernetes quantity string, rounded down to the unit (milli-core,
    byte, milli-unit): memory in whichever of 2Gi or 4G is shorter; ``unlimited`` for an unlimited dimension."""
    if isinstance(value, float) and math.isinf(value):
        return "unlimited"
    whole = math.floor(value)
    if name == CPU:
        return Quantity.from_milli(whole).canonical()
    if name == MEMORY:
        binary, decimal = Quantity.from_int(whole, "BinarySI").canonical(), Quantity.from_int(whole).canonical()
        return binary if len(binary) <= len(decimal) else decimal
    if name == PODS:
        return Quantity.from_int(whole).canonical()
    return Quantity.from_milli(whole, "BinarySI" if name == EPHEMERAL_STORAGE else "DecimalSI").canonical()


def human_amount(name: str, value: Amount, figure: bool = False) -> str:
    """An amount in Volcano's unit in kqctl's reading style (kqctl.k8s.units): ``4``, ``500m``, ``12.6Gi``, ``2``
    GPUs, ``unlimited``. ``figure`` marks a computed amount (deserved, what is left): cpu then keeps three
    significant digits. Amounts Volcano divides are rounded down to its unit first (a milli-core, a byte)."""
    from kqctl.k8s.units import cores, cores_figure, human_bytes, human_figure, human_request

    if isinstance(value, float) and math.isinf(value):
        return "unlimited"
    whole = math.floor(value)
    if whole == 0:
        return "0"
    if name == CPU:
        return cores_figure(whole) if figure else cores(whole)
    if name in (MEMORY, PODS):
        return human_figure(name, whole) if figure else human_request(name, whole)
    units = Fraction(whole, 1000)  # scalars are milli-units in Volcano
    if name == EPHEMERAL_STORAGE or name.startswith("hugepages-"):
        return human_bytes(math.floor(units))
    if units.denominator == 1:
        return human_figure(name, int(units)) if figure else human_request(name, int(units))
    return cores_figure(whole) if figure else cores(whole)  # a fraction of a device reads like cpu: 500m
