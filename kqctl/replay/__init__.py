"""Replay in virtual time, for any scheduler: the event loop, arrivals, durations and statistics.

Scheduler-agnostic on purpose: Kueue plugs in through :mod:`kqctl.replay.protocol` (see
``kqctl.kueue.replay``), and Volcano or YuniKorn engines can do the same. Nothing here imports a
scheduler package. Virtual time is an integer number of milliseconds since the replay's start, so
that adding durations never accumulates a rounding error.
"""
