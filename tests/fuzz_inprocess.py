"""The fuzz tests run kqctl in-process through the suite's shared runner."""

from support import Run, run_kqctl

__all__ = ["Run", "run_kqctl"]
