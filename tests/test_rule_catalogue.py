"""Every rule ID a user can see resolves in the shipped catalogue (kqctl rules, docs/rules.md)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator

import pytest
from support import REPO, run_kqctl

from kqctl import catalogue
from kqctl.render.rules import markdown

ID_PATTERN = re.compile(r"(?<![A-Za-z0-9_./-])[A-Z][A-Z0-9]{0,7}(?:-[A-Z0-9]+)+(?![A-Za-z0-9_-])")
# Upper-case tokens in user-visible strings that are not rule IDs.
NOT_RULE_IDS = {"UTF-8", "UTF-16", "UTF-16LE", "UTF-16BE", "UTF-32", "UTF-32LE", "UTF-32BE", "DNS-1123"}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def user_visible_ids() -> Iterator[tuple[str, str]]:
    """(ID, file:line) for every ID inside a string literal of the package that is not a docstring."""
    for path in sorted((REPO / "kqctl").rglob("*.py")):
        if path.name == "catalogue.py":
            continue
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                for rule_id in ID_PATTERN.findall(node.value):
                    if rule_id not in NOT_RULE_IDS:
                        yield rule_id, f"{path.relative_to(REPO)}:{node.lineno}"


def test_every_rule_id_in_a_user_visible_string_is_in_the_catalogue() -> None:
    missing = sorted({f"{rule_id} (seen at {where})" for rule_id, where in user_visible_ids()
                      if catalogue.lookup(rule_id) is None and not catalogue.family(rule_id)})
    assert not missing, "add these to kqctl/catalogue.py:\n" + "\n".join(missing)


def test_every_catalogue_entry_is_cited_by_the_code() -> None:
    cited = {rule_id for rule_id, _ in user_visible_ids()}
    source = "\n".join(p.read_text() for p in (REPO / "kqctl").rglob("*.py") if p.name != "catalogue.py")
    unused = [rule.id for rule in catalogue.all_rules() if rule.id not in cited and rule.id not in source]
    assert not unused, f"catalogue entries no code cites (remove them or cite them): {unused}"


def test_every_finding_of_the_broken_samples_resolves() -> None:
    report = json.loads(run_kqctl("validate", "-R", "samples", "-o", "json").out)
    ids = {f["ruleId"] for doc in report["documents"] for f in doc["findings"]}
    assert ids and all(catalogue.lookup(rule_id) is not None for rule_id in ids), ids


def test_docs_rules_md_is_generated_from_the_catalogue() -> None:
    doc = REPO / "docs" / "rules.md"
    assert doc.read_text() == markdown(catalogue.all_rules()), \
        "docs/rules.md is stale: run python scripts/generate_rules_doc.py"


def readme_ids() -> list[str]:
    """Every rule ID README.md cites (the same pattern as the package's strings)."""
    return sorted(set(ID_PATTERN.findall((REPO / "README.md").read_text(encoding="utf-8"))) - NOT_RULE_IDS)


# Upper-case tokens of the shipped samples and docs that are names, not rule IDs.
NOT_RULE_IDS_IN_DOCS = {"NVIDIA-A100-SXM4-80GB", "RULE-ID", "A-Z", "SHA-256"}


def test_every_rule_id_the_samples_and_docs_cite_is_catalogued() -> None:
    """What a user reads besides the README (the samples and their comments, the architecture, the benchmarks'
    figures) cites only IDs ``kqctl rules`` explains: the design document's own numbers (VAL-CQ-3, XO-1, REQ-6,
    CYC-14) are not shipped."""
    shipped = [*sorted((REPO / "samples").rglob("*")), REPO / "docs" / "architecture.md",
               REPO / "benchmarks" / "README.md"]
    missing = sorted({f"{rule_id} ({path.relative_to(REPO)})" for path in shipped if path.is_file()
                      for rule_id in ID_PATTERN.findall(path.read_text(encoding="utf-8", errors="replace"))
                      if rule_id not in NOT_RULE_IDS | NOT_RULE_IDS_IN_DOCS
                      and catalogue.lookup(rule_id) is None and not catalogue.family(rule_id)})
    assert not missing, missing


def test_the_readme_cites_rule_ids() -> None:
    assert {"LOAD-DUPLICATE", "LEG-VERSION", "Q-7"} <= set(readme_ids())  # the pattern finds them


@pytest.mark.parametrize("rule_id", readme_ids())
def test_every_rule_id_in_the_readme_resolves_with_kqctl_rules(rule_id: str) -> None:
    run = run_kqctl("rules", rule_id)
    assert run.code == 0 and rule_id in run.out, run.err


def test_no_user_visible_text_points_at_the_design_document() -> None:
    shipped = [*sorted((REPO / "samples").rglob("*")), REPO / "README.md", REPO / "docs" / "rules.md"]
    offenders = [str(p.relative_to(REPO)) for p in shipped
                 if p.is_file() and re.search(r"§\d|semantics\.md|\.\./shared|shared/design", p.read_text())]
    assert not offenders, offenders


@pytest.mark.parametrize("args,expected", [
    (("rules", "VAL-CQ-23"), "VAL-CQ-23: A ClusterQueue's lendingLimit must not exceed its nominalQuota"),
    (("rules", "cel-val-cq-12"), "CEL-VAL-CQ-12:"),
    (("rules", "XO"), "XO-CQ-FLAVOR"),
])
def test_rules_command_looks_up_ids_and_families(args: tuple[str, ...], expected: str) -> None:
    run = run_kqctl(*args)
    assert run.code == 0 and expected in run.out, run.err


def test_unknown_rule_is_a_usage_error_with_did_you_mean() -> None:
    run = run_kqctl("rules", "XO-CQ-FLAVR")
    assert run.code == 2 and "did you mean XO-CQ-FLAVOR" in run.err


def test_rules_json_lists_every_entry_with_its_source() -> None:
    data = json.loads(run_kqctl("rules", "-o", "json").out)
    assert len(data) == len(catalogue.all_rules())
    assert all(entry["enforcedBy"] and entry["title"] for entry in data)


def test_catalogue_ids_are_unique_and_well_formed() -> None:
    ids = [rule.id for rule in catalogue.all_rules()]
    assert len(ids) == len(set(ids))
    assert all(ID_PATTERN.fullmatch(rule_id) for rule_id in ids)
    assert all(rule.source in catalogue.SOURCES for rule in catalogue.all_rules())


