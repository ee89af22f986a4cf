"""YuniKorn's scheduler core reimplemented as pure functions: queue tree, properties, priorities, sorting,
headroom, placement, allocation and preemption. No I/O, no printing."""
