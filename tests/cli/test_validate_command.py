"""``kqctl validate`` end to end: exit codes, the json contract, located errors, no tracebacks."""

from __future__ import annotations

import json
from collections.abc import Callable

from support import Run

VALID = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources:
      - name: cpu
        nominalQuota: 9
      - name: memory
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: default
  name: user-queue
spec:
  clusterQueue: cluster-queue
"""

Kq = Callable[..., Run]
Write = Callable[[str, "str | bytes"], str]


def as_json(run: Run) -> dict:
    return json.loads(run.out)


def findings(run: Run) -> list[tuple[str, str, int]]:
    return [(f["ruleId"], f["field"], f["line"]) for d in as_json(run)["documents"] for f in d["findings"]]


def test_valid_manifests_exit_zero_and_every_document_is_valid(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("ok.yaml", VALID), "-o", "json")
    assert run.code == 0, run.err
    report = as_json(run)
    assert [d["kind"] for d in report["documents"]] == ["ResourceFlavor", "ClusterQueue", "LocalQueue"]
    assert [d["index"] for d in report["documents"]] == [0, 1, 2]
    assert all(d["valid"] for d in report["documents"])
    assert report["summary"]["errors"] == 0


def test_unknown_field_is_an_error_at_its_line(kqctl: Kq, write: Write) -> None:
    path = write("unknown.yaml", VALID.replace("  namespaceSelector: {}\n", "  namespaceSelector: {}\n  cohortt: x\n"))
    run = kqctl("validate", path, "-o", "json")
    assert run.code == 1
    assert ("SCHEMA-UNKNOWN-FIELD", "spec.cohortt", 12) in findings(run)
    cq = as_json(run)["documents"][1]
    assert cq["valid"] is False and cq["line"] == 6


def test_bad_quantity_is_a_located_error(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("q.yaml", VALID.replace("nominalQuota: 9", "nominalQuota: 1.2.3")), "-o", "json")
    assert run.code == 1
    lines = {line for rule, field, line in findings(run) if field.endswith("nominalQuota")}
    assert lines == {18}


def test_invalid_yaml_exits_3_with_file_and_line(kqctl: Kq, write: Write) -> None:
    path = write("broken.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: [x\n")
    run = kqctl("validate", path)
    assert run.code == 3
    assert "broken.yaml:" in run.out + run.err
    assert "Traceback" not in run.out + run.err


def test_binary_junk_exits_3_without_traceback(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("junk.yaml", bytes(range(256)) * 4), "-o", "json")
    assert run.code == 3
    assert "binary data" in run.out
    assert "Traceback" not in run.err


def test_alias_bomb_exits_3(kqctl: Kq, write: Write) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    run = kqctl("validate", write("bomb.yaml", "\n".join(lines) + "\n"))
    assert run.code == 3
    assert "alias bomb" in run.out


def test_huge_file_exits_3(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("big.yaml", VALID * 10), env={"KQCTL_MAX_INPUT_BYTES": "1000"})
    assert run.code == 3
    assert "limit" in run.out


def test_document_that_is_not_a_mapping_fails(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("list.yaml", "- a\n- b\n"), "-o", "json")
    assert run.code == 1
    assert findings(run) == [("LOAD-NOT-OBJECT", "", 1)]


def test_missing_file_exits_3(kqctl: Kq) -> None:
    run = kqctl("validate", "/nonexistent/file.yaml")
    assert run.code == 3
    assert "/nonexistent/file.yaml" in run.err and "Traceback" not in run.err


def test_stdin_is_read_with_dash(kqctl: Kq) -> None:
    run = kqctl("validate", "-", "-o", "json", stdin=VALID.encode())
    assert run.code == 0
    assert {d["file"] for d in as_json(run)["documents"]} == {"<stdin>"}


def test_unknown_output_format_is_a_usage_error(kqctl: Kq, write: Write) -> None:
    run = kqctl("validate", write("ok.yaml", VALID), "-o", "xml")
    assert run.code == 2
    assert "table, wide, json" in run.err


def test_no_input_is_a_usage_error(kqctl: Kq) -> None:
    assert kqctl("validate").code == 2


def test_fail_on_warning_turns_warnings_into_exit_1(kqctl: Kq, write: Write) -> None:
    path = write("w.yaml", VALID.replace("  namespaceSelector: {}\n", ""))  # XO-NS-NIL warning
    assert kqctl("validate", path).code == 0
    assert kqctl("validate", path, "--fail-on", "warning").code == 1


def test_closed_world_turns_missing_references_into_errors(kqctl: Kq, write: Write) -> None:
    path = write("lq.yaml", VALID.split("---\n")[2])
    open_run = kqctl("validate", path, "-o", "json")
    closed_run = kqctl("validate", path, "-o", "json", "--closed")
    assert open_run.code == 0 and ("XO-LQ-CQ", "spec.clusterQueue", 7) in findings(open_run)
    assert closed_run.code == 1


def test_github_format_prints_annotations(kqctl: Kq, write: Write) -> None:
    path = write("u.yaml", VALID.replace("  namespaceSelector: {}\n", "  namespaceSelector: {}\n  cohortt: x\n"))
    run = kqctl("validate", path, "-o", "github")
    assert run.code == 1
    assert any(line.startswith("::error file=") and "line=12" in line for line in run.out.splitlines())


def test_help_lists_the_commands(kqctl: Kq) -> None:
    run = kqctl("--help")
    assert run.code == 0
    assert "validate" in run.out and "convert" in run.out
