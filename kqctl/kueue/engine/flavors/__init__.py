"""Flavor assignment (rule set FA) and its TAS step: Kueue's flavorassigner package."""
