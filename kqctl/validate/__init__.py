"""Validation: schema, CEL rules, Kueue webhook rules and cross-object consistency."""
