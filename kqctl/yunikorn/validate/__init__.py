"""``kqctl validate`` for YuniKorn: the config validator's rules V1-V19 in YuniKorn's order, the runtime-only
failures and the lints V20-V28, and the effective value of every queue property."""
