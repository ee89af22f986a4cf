"""Kueue in virtual time: arrivals, runtimes, completions and evictions around Kueue's own cycles.

``timeline`` plugs Kueue's engine (cache, queues, ``cycle.Scheduler``) into the scheduler-agnostic
loop of :mod:`kqctl.replay`; ``throughput`` is the model of how long Kueue's controller takes;
``generator`` reads Kueue's scheduler performance configurations; ``report`` turns a replay into
the figures users read; ``estimate``, ``diff`` and ``plan`` answer explain's wait-time question,
what a configuration change does, and how much quota a target needs. Pure: no I/O, no printing.
"""
