"""Kueue: its API, how its objects are loaded, validated, admitted (engine) and shown (render)."""
