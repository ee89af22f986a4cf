"""Volcano: its kinds, snapshot, validation, scheduling session engine and renderers (imports nothing of Kueue)."""
