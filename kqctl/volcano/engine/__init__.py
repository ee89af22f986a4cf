"""Volcano's scheduling session, reimplemented: framework, plugins (proportion, capacity, overcommit, gang,
priority, drf, conformance, predicates, nodeorder, binpack), actions (enqueue, allocate, reclaim, backfill) and the
sessions-to-steady-state driver. Pure: no I/O, no printing."""
