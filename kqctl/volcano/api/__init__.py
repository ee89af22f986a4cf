"""Volcano's objects as kqctl models them: resource vectors, Queue/PodGroup/pod/Node models, configuration."""
