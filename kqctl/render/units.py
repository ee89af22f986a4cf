"""Quantities for people, for the renderers: the formatter lives in :mod:`kqctl.k8s.units`, shared with
the engines' and validate's own messages so that every command words an amount the same way."""

from kqctl.k8s.units import cores, cores_figure, human, human_bytes, human_figure, human_request, is_bytes, settable

__all__ = ["cores", "cores_figure", "human", "human_bytes", "human_figure", "human_request", "is_bytes", "settable"]
