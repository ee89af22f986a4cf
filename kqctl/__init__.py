"""kqctl: offline validation, dry-run admission and quota audits for Kubernetes batch queues."""

__version__ = "0.1.0"
