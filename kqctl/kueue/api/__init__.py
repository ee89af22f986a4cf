"""Kueue's API: one model for every version, conversion, its Configuration, the snapshot the engine reads."""
