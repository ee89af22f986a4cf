"""How long Kueue's controller takes: the cycle-latency model (``--cycle-latency``).

Kueue's own performance runs (``test/performance/scheduler``) are bound by the API server, not by
the scheduler's arithmetic: minimalkueue's client is limited to 50 requests per second with a burst
of 100 (``kubeConfig.QPS = 50; Burst = 100`` in ``minimalkueue/main.go``), and the published runs
admit about 42.5 workloads per second whatever their size (baseline: 15,000 workloads in 351 s;
large-scale: 50,000 in 1,179 s). The model therefore charges every API write the scheduler makes to
one token bucket of that rate and burst:

* an admission (the ``status.admission`` patch) is written asynchronously: the workload holds its
  quota from the cycle on, but runs (``Admitted=True``, what Kueue's recorder times) only once its
  write gets through;
* an eviction of a preemption victim is written during the cycle (the cycle waits for it); the
  victim releases its quota once the write is through (the performance runner finishes evictions
  at once);
* a head that is not admitted gets its ``QuotaReserved=False`` condition patched during the cycle
  when its reason or message changed (Kueue skips unchanged patches).

On top of the writes, a cycle costs ``per_cycle`` plus ``per_head`` for each head it considers
(the scheduler's own CPU time); the cycle ends when its CPU time is spent and its synchronous
writes are through. Calibration: the rate and burst are minimalkueue's settings, not fitted, and
they alone bring the replays of Kueue's baseline and large-scale configurations within 5% of the
published run lengths and usage (see the README's comparison). ``per_cycle`` and ``per_head`` are
estimates of the scheduler's own CPU time that barely move those figures (the baseline ends between
346 s and 354 s for anything from nothing to 10 ms per cycle and 2 ms per head).
A fixed latency (``--cycle-latency 50ms``) replaces all of this: every cycle then takes exactly
that long and writes cost nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kqctl.replay.durations import MAX_DURATION_MS, MAX_DURATION_TEXT, DurationError, parse_duration

MICROS_PER_MS = 1000
CALIBRATED = "calibrated"


@dataclass(frozen=True)
class Throughput:
    """The cycle-latency model; ``fixed_ms`` set means every cycle takes that long and nothing else."""

    qps: int = 50
    burst: int = 100
    per_cycle_us: int = 2000
    per_head_us: int = 200
    fixed_ms: int | None = None

    def describe(self) -> str:
        if self.fixed_ms is not None:
            return f"every cycle takes {self.fixed_ms} ms; API writes are not modelled"
        text = (f"API writes at {self.qps}/s (burst {self.burst}); a cycle costs {_ms_text(self.per_cycle_us)} plus "
                f"{_ms_text(self.per_head_us)} per head")
        if self == Throughput():
            text += (" (the default, calibrated against Kueue's own performance runs: minimalkueue's client limits; "
                     "--cycle-latency to change)")
        return text

    def data(self) -> dict[str, object]:
        if self.fixed_ms is not None:
            return {"model": "fixed", "cycleMs": self.fixed_ms}
        return {"model": CALIBRATED, "qps": self.qps, "burst": self.burst, "perCycleMicroseconds": self.per_cycle_us,
                "perHeadMicroseconds": self.per_head_us}


def _ms_text(micros: int) -> str:
    whole, rest = divmod(micros, MICROS_PER_MS)
    return f"{whole}.{rest:03d}".rstrip("0").rstrip(".") + " ms"


_SETTING = re.compile(r"^(qps|burst|per-cycle|per-head)=(.+)$")


def parse_throughput(text: str) -> Throughput:
    """``calibrated``, a fixed duration (``50ms``), or settings: ``qps=50,burst=100,per-cycle=2ms,per-head=200us``."""
    raw = text.strip()
    if raw in ("", CALIBRATED):
        return Throughput()
    if "=" not in raw:
        return Throughput(fixed_ms=parse_duration(raw))
    values: dict[str, int] = {}
    for part in raw.split(","):
        match = _SETTING.match(part.strip())
        if match is None:
            raise DurationError(f"{part.strip()!r}: expected qps=N, burst=N, per-cycle=DURATION or per-head=DURATION")
        name, value = match.groups()
        if name in values:
            raise DurationError(f"{name} is given twice in {raw!r}")
        values[name] = _count(name, value) if name in ("qps", "burst") else _micros(name, value)
    default = Throughput()
    return Throughput(values.get("qps", default.qps), values.get("burst", default.burst),
                      values.get("per-cycle", default.per_cycle_us), values.get("per-head", default.per_head_us))


def _count(name: str, value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise DurationError(f"{name}={value!r}: expected a whole number of at least 1")
    return int(value)


def _micros(name: str, value: str) -> int:
    text = value.strip()
    if text.endswith(("us", "µs")):
        number = text[:-2] if text.endswith("us") else text[:-2]
        if number.isdigit():
            if int(number) > MAX_DURATION_MS * MICROS_PER_MS:
                raise DurationError(f"{name}={value!r} is longer than {MAX_DURATION_TEXT}")
            return int(number)
    return parse_duration(text) * MICROS_PER_MS if text else _bad(name, value)


def _bad(name: str, value: str) -> int:
    raise DurationError(f"{name}={value!r}: expected a duration such as 2ms or 200us")


class TokenBucket:
    """client-go's rate limiter as a generic cell-rate algorithm, in integer microseconds.

    ``reserve(now)`` returns when a write requested at ``now`` goes out: the first ``burst`` go at
    once, then one every 1/qps s, first come first served (as ``rate.Limiter.Wait`` serves callers).
    """

    def __init__(self, qps: int, burst: int) -> None:
        self.interval = -(-1_000_000 // qps)  # us between two writes, rounded up
        self.tolerance = (burst - 1) * self.interval
        self.theoretical = 0

    def reserve(self, now_us: int) -> int:
        self.theoretical = max(self.theoretical, now_us)
        go = max(now_us, self.theoretical - self.tolerance)
        self.theoretical += self.interval
        return go
