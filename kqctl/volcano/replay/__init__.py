"""Volcano in virtual time: sessions every schedule period, arrivals, runtimes, evictions and what the job
controller does about them; diff and plan on top. Pure like the engine (no I/O)."""
