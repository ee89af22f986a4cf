"""Volcano's part of kqctl validate: its webhooks, the chart's admission policy, tree errors and lints."""
