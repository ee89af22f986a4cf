"""Volcano results for people (tables) and machines (json/yaml contracts)."""
