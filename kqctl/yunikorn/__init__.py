"""Apache YuniKorn: queues.yaml validation, queue priorities and sorting, quota gating and allocation.

The rules come from ``shared/design/yunikorn-semantics.md`` (cited by ID: R1-R5 units, V1-V28 validation,
P1-P4 priorities, G1-G7 quota gating, E/F preemption) and, where that is silent, from yunikorn-core and
yunikorn-k8shim themselves. This package imports nothing of the other schedulers.
"""
