"""What an installed kqctl reads at run time is in its package: every data file under kqctl/ (schemas/, through the
link to the repository's schemas/, and fielddocs/) matches a [tool.setuptools.package-data] pattern, or a
`pip install .` (the Dockerfile's) would lack it. The release schemas of validate --kueue-version were left out once."""

from __future__ import annotations

import os
from fnmatch import fnmatchcase
from pathlib import PurePosixPath

import pytest
from support import REPO


def _patterns() -> list[str]:
    tomllib = pytest.importorskip("tomllib")  # the standard library's from Python 3.11
    with (REPO / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["tool"]["setuptools"]["package-data"]["kqctl"])


def _matches(path: PurePosixPath, pattern: str) -> bool:
    # setuptools' globs: '*' never crosses a '/', so schemas/*.json does not take schemas/releases/a.json
    wanted = PurePosixPath(pattern).parts
    return len(path.parts) == len(wanted) and all(fnmatchcase(p, w) for p, w in zip(path.parts, wanted, strict=True))


def test_every_data_file_of_the_package_is_declared_package_data() -> None:
    package = REPO / "kqctl"
    data = [PurePosixPath(os.path.relpath(os.path.join(root, name), package))
            for root, _, names in os.walk(package, followlinks=True) for name in names
            if not name.endswith((".py", ".pyc"))]
    assert any(path.parts[0] == "schemas" and len(path.parts) > 2 for path in data)  # the walk sees releases/
    patterns = _patterns()
    assert [str(path) for path in data if not any(_matches(path, p) for p in patterns)] == []
