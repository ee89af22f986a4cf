"""Preemption (rule sets PRE and FS-5..FS-10): Kueue's pkg/scheduler/preemption.

targets.py holds what every search shares (candidates, their order, the fit check, the minimal
set, the victims' message); classical.py the classical search (PRE-5..PRE-10); fair_sharing.py
the fair-sharing strategies (FS-5..FS-10); preemptor.py picks one and answers the flavor
assigner's oracle (PRE-11).
"""
