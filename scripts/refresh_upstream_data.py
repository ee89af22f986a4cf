#!/usr/bin/env python3
"""Refresh the repository's copies of upstream data from a ``shared`` folder beside the checkout.

The tests read only the copies (tests/conformance/data/, upstream/), so a clone runs them with nothing
beside it; this script is how the copies are brought up to date when a newer recording is available.

Usage: ``python scripts/refresh_upstream_data.py [SHARED_DIR]`` (default: ``../shared``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# (source under SHARED_DIR, destination in the repository)
COPIES = (
    ("conformance/kueue", "tests/conformance/data/kueue"),
    ("upstream/kueue-crds", "upstream/kueue-crds"),
    ("conformance/volcano", "tests/conformance/data/volcano"),
    ("upstream/volcano-crds", "upstream/volcano-crds"),
)


# Copies that hold more than the shared folder provides (three Kueue CRDs come from Kueue's own repository,
# see upstream/README.md): files are replaced, none removed.
MERGED = {"upstream/kueue-crds"}


def refresh(shared: Path) -> list[str]:
    """Replace every copy whose source exists; returns what was copied."""
    copied = []
    for source, destination in COPIES:
        src = shared / source
        if not src.is_dir():
            continue
        dst = REPO / destination
        if dst.exists() and destination not in MERGED:
            shutil.rmtree(dst)
        shutil.copytree(src, dst, dirs_exist_ok=True)
        copied.append(f"{src} -> {destination}")
    return copied


def main(argv: list[str]) -> int:
    shared = Path(argv[1]) if len(argv) > 1 else REPO.parent / "shared"
    if not shared.is_dir():
        sys.stderr.write(f"refresh_upstream_data: {shared} is not a directory\n")
        return 2
    copied = refresh(shared)
    if not copied:
        sys.stderr.write(f"refresh_upstream_data: nothing to copy under {shared}\n")
        return 1
    print("\n".join(copied))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
