"""Regenerate the example charts in docs/ with the real commands (the README shows them).

Usage: python scripts/generate_doc_charts.py [--skip-replay]
  docs/audit-*.svg                     kqctl audit SAMPLE --plot (one sample per scheduler)
  docs/replay-baseline-*.svg           kqctl replay --generator <Kueue's baseline> --plot (about a minute)

Charts are deterministic: running this twice on the same code writes the same bytes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
AUDITS = {"audit-hierarchical-cohorts.svg": "samples/hierarchical-cohorts",
          "audit-volcano-hierarchy.svg": "samples/volcano-hierarchy",
          "audit-yunikorn-multi-tenant.svg": "samples/yunikorn-multi-tenant"}
BASELINE = "tests/data/replay/kueue-baseline-generator.yaml"
REPLAY = {"usage-cohorts.svg": "replay-baseline-usage-cohorts.svg",
          "time-to-admission.svg": "replay-baseline-time-to-admission.svg"}


def kqctl(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "kqctl", *args], cwd=REPO, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    for name, sample in AUDITS.items():
        kqctl("audit", sample, "-o", "json", "--plot", str(DOCS / name))
    if "--skip-replay" in sys.argv:
        return
    with tempfile.TemporaryDirectory() as folder:
        kqctl("replay", "--generator", BASELINE, "-o", "summary", "--plot", folder)
        for written, name in REPLAY.items():
            shutil.copyfile(Path(folder) / written, DOCS / name)
            print(f"kqctl: copied {written} to docs/{name}", file=sys.stderr)


if __name__ == "__main__":
    main()
