"""JSON text YAML reads otherwise: a raw U+0085 (NEL) is a line break to YAML, so locating a finding by
composing the document's YAML fails; the finding falls back to the document's first line."""

from __future__ import annotations

from pathlib import Path

from support import run_kqctl


def test_a_raw_nel_in_a_json_key_does_not_crash_validate(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"\u0085": null}', encoding="utf-8")
    run = run_kqctl("validate", str(tmp_path))
    assert run.code == 1, run.err
    assert "LOAD-NO-KIND" in run.out and f"{tmp_path / 'a.json'}:1" in run.out
