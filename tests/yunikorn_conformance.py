"""The YuniKorn conformance data copied into the repository (tests/conformance/data/yunikorn), read as cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent / "conformance" / "data" / "yunikorn"


def load(directory: str) -> list[tuple[str, dict[str, Any]]]:
    """(file stem, parsed case) for every case file of ``directory``, in name order."""
    return [(path.stem, yaml.safe_load(path.read_text())) for path in sorted((DATA / directory).glob("*.yaml"))]


def ids(cases: list[tuple[str, dict[str, Any]]]) -> list[str]:
    return [name for name, _ in cases]
