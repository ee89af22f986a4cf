"""Write docs/rules.md from the rule catalogue (kqctl/catalogue.py).

Usage: python scripts/generate_rules_doc.py  (tests/test_rule_catalogue.py fails when it is stale)
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kqctl.catalogue import all_rules  # noqa: E402
from kqctl.render.rules import markdown  # noqa: E402

DOC = REPO / "docs" / "rules.md"


def main() -> None:
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(markdown(all_rules()))
    print(f"wrote {DOC.relative_to(REPO)}")


if __name__ == "__main__":
    main()
