"""``--fail-on pending|inadmissible|preempted``: one meaning for every scheduler.

Each scheduler's command glue says, for each workload it simulated, three things about its end (an
:class:`Ending`); the states are defined on those alone, so that a CI gate means the same thing
whichever scheduler the inputs are for (README, "--fail-on"):

* ``pending``: not running at the end, for any reason (waiting for quota, for a preemption, for
  admission checks, or never getting in at all);
* ``inadmissible``: can never get in as configured (too big for its queue, no flavor or node that
  matches it, a closed or missing queue), whatever else finishes;
* ``preempted``: evicted during the run to make room for another workload (whether it got back in
  or not).

So every ``inadmissible`` workload is also ``pending``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from kqctl.errors import UsageError

STATES = ("inadmissible", "pending", "preempted")
HELP = ("Exit 1 when any workload ends in one of these states (the same for every scheduler): pending (not running "
        "at the end, for any reason), inadmissible (can never get in as configured: too big for its queue, no "
        "flavor or node matches it, a closed or missing queue), preempted (evicted during the run). Repeatable or "
        "comma-separated.")


@dataclass(frozen=True)
class Ending:
    """What --fail-on asks of one workload at the end of a simulation."""

    key: str  # namespace/name, as the failure line names it
    running: bool
    never: bool  # can never get in as configured
    evicted: bool

    def states(self) -> frozenset[str]:
        found = set()
        if not self.running:
            found.add("pending")
            if self.never:
                found.add("inadmissible")
        if self.evicted:
            found.add("preempted")
        return frozenset(found)


def parse(values: list[str] | None) -> set[str]:
    """The states of ``--fail-on`` (repeatable, comma-separated); an unknown one is a usage error."""
    states = {part.strip().lower() for value in values or [] for part in value.split(",") if part.strip()}
    unknown = sorted(states - set(STATES))
    if unknown:
        import difflib

        close = [match for state in unknown for match in difflib.get_close_matches(state, STATES, n=1)]
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise UsageError(f"unknown --fail-on state(s) {', '.join(unknown)}; {hint}choose from: {', '.join(STATES)}")
    return states


def failing(endings: Iterable[Ending], states: set[str], shown: Callable[[str], bool] | None = None) -> list[str]:
    """The keys (sorted) of the workloads in one of ``states``, among those ``shown`` (-n and -l) keeps."""
    return sorted(e.key for e in endings if e.states() & states and (shown is None or shown(e.key)))


def report(keys: list[str], states: set[str], noun: str = "workload(s)") -> bool:
    """Say on stderr which workloads fail the gate (the first five); True when some do (exit 1)."""
    if not keys:
        return False
    shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
    sys.stderr.write(f"kqctl: {len(keys)} {noun} end {' or '.join(sorted(states))} (--fail-on): {shown}\n")
    return True
