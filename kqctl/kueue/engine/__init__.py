"""Kueue's admission engine: pure functions of a snapshot (no I/O, no printing), in Kueue's own words.

Modules, each importing only those above it (tests/test_code_quality.py checks there is no cycle):

- quota (the quota tree, Q), workloads (REQ), transformations, features and feature_gates,
  admission_fair_sharing (FS-11);
- tas_cache (Topology-Aware Scheduling's topology cache), cache (QuotaCache: ClusterQueues, Cohorts,
  who holds quota, XO-1..XO-3), queues (a ClusterQueue's PendingQueue, CYC-1..CYC-17);
- flavors/ (flavor assignment, FA: assignment, tas_assigner, assigner);
- dominant_resource_share (FS-1..FS-3), preemption/ (PRE and FS-5..FS-10: targets, classical,
  fair_sharing, preemptor);
- entry (what a cycle decides per head), fair_sharing_tournament (FS-4), cycle (one cycle, CYC);
- outcomes (what happened to each workload, its decision), lending (borrowed and lent), results
  (the frozen SimulationResult), simulation (the run, SIM);
- explain and audit, built on a Simulation.
"""
