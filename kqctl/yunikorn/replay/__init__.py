"""YuniKorn in virtual time: the core's cycles and the shim's loop, arrivals, runtimes, preemption and what
controllers do about it; diff and plan on top. Pure like the engine (no I/O)."""
