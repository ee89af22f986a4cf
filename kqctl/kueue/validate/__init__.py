"""Kueue's part of validation: webhook defaulting, webhook rules, cross-object checks (XO)."""
