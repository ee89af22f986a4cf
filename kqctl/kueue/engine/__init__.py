"""Kueue's admission engine: pure functions of a snapshot (no I/O, no printing), in Kueue's own words."""
