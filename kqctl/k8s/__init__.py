"""The Kubernetes base every scheduler shares: quantities, names, selectors, core objects, pod requests, kinds."""
