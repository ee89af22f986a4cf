#!/usr/bin/env python3
"""Regenerate ``kqctl/fielddocs/``: the field descriptions ``kqctl fields`` prints, from the CRDs in ``upstream/``.

The validation schemas (``kqctl/schemas``) keep no descriptions (they would triple their size and slow every
load); ``kqctl fields`` reads the structure from them and the words from here. One gzipped JSON per kind and
served version, ``{"": kind description, "spec.preemption": ..., ...}`` (a list's items share its path, as in
kubectl explain), and ``index.json``: every name a user may type for a kind (kind, singular, plural, short
names, case-insensitive) -> its group, its versions (the storage version first) and its file per version.
Core kinds (Pod, Job, ...) come from the schemas alone: kqctl ships no prose for them (kubectl explain has it).

Usage: ``python scripts/generate_field_docs.py [--out DIR]``. Deterministic output (sorted keys, gzip mtime 0).
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
CRD_DIRS = (REPO_ROOT / "upstream" / "kueue-crds", REPO_ROOT / "upstream" / "volcano-crds")
DEFAULT_OUT = REPO_ROOT / "kqctl" / "fielddocs"


def descriptions(schema: dict[str, Any], path: str = "") -> dict[str, str]:
    """Every description in an openAPIV3Schema, by dotted field path (array items keep their list's path)."""
    found: dict[str, str] = {}
    if isinstance(schema.get("description"), str):
        found[path] = " ".join(schema["description"].split())
    for name, child in sorted((schema.get("properties") or {}).items()):
        found.update(descriptions(child, f"{path}.{name}" if path else name))
    items = schema.get("items")
    if isinstance(items, dict):
        for key, text in descriptions(items, path).items():
            found.setdefault(key, text)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key, text in descriptions(extra, path).items():
            found.setdefault(key, text)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    index: dict[str, Any] = {"kinds": {}, "names": {}}
    for crd_dir in CRD_DIRS:
        for path in sorted(crd_dir.glob("*.yaml")):
            for doc in yaml.safe_load_all(path.read_text()):
                if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
                    continue
                spec = doc["spec"]
                group, names = spec["group"], spec["names"]
                kind = names["kind"]
                served = [v for v in spec["versions"] if v.get("served")]
                served.sort(key=lambda v: (not v.get("storage"), v["name"]))
                files = {}
                for version in served:
                    file_name = f"{kind.lower()}-{group}-{version['name']}.json.gz"
                    text = json.dumps(descriptions(version["schema"]["openAPIV3Schema"]), sort_keys=True, indent=0)
                    (out / file_name).write_bytes(gzip.compress(text.encode(), mtime=0))
                    files[version["name"]] = file_name
                key = f"{group}/{kind}"
                index["kinds"][key] = {"group": group, "kind": kind, "versions": [v["name"] for v in served],
                                       "files": files}
                for name in sorted({n.lower() for n in (kind, names.get("singular", ""), names["plural"],
                                                         *names.get("shortNames", [])) if n}):
                    index["names"].setdefault(name, []).append(key)
    (out / "index.json").write_text(json.dumps(index, sort_keys=True, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
