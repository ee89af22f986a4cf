"""The commands' YuniKorn branch: what validate, simulate, explain, audit and convert do for YuniKorn inputs.

The shared command modules dispatch here once they know the input is YuniKorn's (``--scheduler yunikorn``,
its ConfigMaps or queues.yaml, or pods with ``schedulerName: yunikorn``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqctl.validate.report import ValidationReport


def add_empty_configurations(report: ValidationReport, paths: list[str], recursive: bool) -> None:
    """Files that hold no YAML document at all are empty queues.yaml files under --scheduler yunikorn: YuniKorn
    takes zero bytes as its built-in default (V27) and blank or comment-only text as no partitions (V27b)."""
    from kqctl.errors import InputError
    from kqctl.load.sources import expand_paths, read_source
    from kqctl.origin import Origin
    from kqctl.validate.report import DocumentReport
    from kqctl.yunikorn.kinds import QUEUES_CONFIG
    from kqctl.yunikorn.validate.checks import check_config_text

    seen = {doc.origin.file for doc in report.documents}
    for name in expand_paths(paths, recursive):
        if name == "-" or name in seen:
            continue
        try:
            text = read_source(name).data.decode("utf-8")
        except (InputError, UnicodeDecodeError):
            continue  # reported by the loader
        if text.strip() and not _only_comments(text):
            continue
        check = check_config_text(text)
        report.documents.append(DocumentReport(Origin(name, 0, 1), "", QUEUES_CONFIG.kind, None,
                                               os.path.basename(name), list(check.findings), check.effective))


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())
