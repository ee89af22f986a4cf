"""api/kueue layer."""
