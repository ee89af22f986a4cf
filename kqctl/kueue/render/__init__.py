"""Kueue results for people and programs: simulate, explain and audit tables and data."""
