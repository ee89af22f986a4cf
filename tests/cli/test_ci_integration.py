"""kqctl in other people's CI: the pre-commit hooks (.pre-commit-hooks.yaml), the composite GitHub Action
(action.yml, whose script steps run here as plain shell) and the container image (Dockerfile)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import REPO

KQCTL_BIN = str(Path(sys.executable).parent)  # where this environment's kqctl and python are
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.com"}
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{KQCTL_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1",
            **GIT_IDENTITY, **extra}


def run(*command: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, env=env(**extra), capture_output=True, text=True, timeout=600)


def git_repository(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    run("git", "init", "-q", "-b", "main", cwd=path)
    return path


def commit(repository: Path, message: str = "change") -> str:
    run("git", "add", "-A", cwd=repository)
    run("git", "commit", "-q", "-m", message, cwd=repository)
    return run("git", "rev-parse", "HEAD", cwd=repository).stdout.strip()


def lower_team_a_cpu(folder: Path) -> None:
    """team-a's cpu nominalQuota 20 -> 6: team-a/job-hparam-sweep-21f8c is not admitted any more (a regression)."""
    cluster = folder / "cluster.yaml"
    cluster.write_text(cluster.read_text().replace("nominalQuota: 20", "nominalQuota: 6", 1))


# --- pre-commit -------------------------------------------------------------------------------------------


def hooks() -> dict[str, dict[str, object]]:
    return {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def test_the_hooks_file_declares_validate_and_diff() -> None:
    declared = hooks()
    assert declared["kqctl-validate"]["entry"] == "kqctl validate --ignore-missing-kinds"
    assert declared["kqctl-validate"]["types_or"] == ["yaml", "json"]
    assert declared["kqctl-diff"]["entry"] == "python -m kqctl.cli.hooks diff"
    assert declared["kqctl-diff"]["pass_filenames"] is False
    assert {hook["language"] for hook in declared.values()} == {"python"}


@needs_git
@pytest.mark.skipif(shutil.which("pre-commit", path=f"{KQCTL_BIN}{os.pathsep}{os.environ.get('PATH', '')}") is None,
                    reason="pre-commit is not installed (pip install -e '.[test]')")
@pytest.mark.skipif(not (os.environ.get("CI") or os.environ.get("KQCTL_TEST_PRE_COMMIT")),
                    reason="pre-commit try-repo installs kqctl from PyPI's packages into a new environment (minutes): "
                           "run in CI, or set KQCTL_TEST_PRE_COMMIT=1")
def test_pre_commit_try_repo_runs_kqctl_validate_on_a_fixture_repository(tmp_path: Path) -> None:
    fixture = git_repository(tmp_path / "fixture")
    shutil.copytree(REPO / "samples" / "cohort-borrowing", fixture / "queues")
    (fixture / "app.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n")
    commit(fixture)
    home = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    clean = run("pre-commit", "try-repo", str(REPO), "kqctl-validate", "--all-files", cwd=fixture, **home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert list((tmp_path / "cache" / "kqctl" / "validate").glob("*/*.part"))  # the default cache under pre-commit
    (fixture / "queues" / "broken.yaml").write_text((REPO / "samples" / "broken" / "10-schema.yaml").read_text())
    run("git", "add", "-A", cwd=fixture)
    broken = run("pre-commit", "try-repo", str(REPO), "kqctl-validate", "--all-files", cwd=fixture, **home)
    assert broken.returncode == 1 and "SCHEMA-" in broken.stdout


@needs_git
def test_the_diff_hook_compares_the_folder_with_its_last_commit(tmp_path: Path) -> None:
    fixture = git_repository(tmp_path / "fixture")
    shutil.copytree(REPO / "samples" / "cohort-borrowing", fixture / "queues")
    commit(fixture)
    unchanged = run(sys.executable, "-m", "kqctl.cli.hooks", "diff", "queues", cwd=fixture)
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    lower_team_a_cpu(fixture / "queues")
    changed = run(sys.executable, "-m", "kqctl.cli.hooks", "diff", "queues", cwd=fixture)
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert "team-a/job-hparam-sweep-21f8c" in changed.stdout + changed.stderr
    assert run("git", "status", "--porcelain", cwd=fixture).stdout.strip() == "M queues/cluster.yaml"  # untouched
    (fixture / "new").mkdir()
    (fixture / "new" / "q.yaml").write_text((REPO / "samples" / "cohort-borrowing" / "cluster.yaml").read_text())
    new = run(sys.executable, "-m", "kqctl.cli.hooks", "diff", "new", cwd=fixture)
    assert new.returncode == 0 and "new in this commit" in new.stdout
    assert run(sys.executable, "-m", "kqctl.cli.hooks", "diff", cwd=fixture).returncode == 2


# --- the GitHub Action ------------------------------------------------------------------------------------


def test_the_action_is_composite_and_its_steps_name_existing_scripts() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    scripts = [step["run"] for step in action["runs"]["steps"] if "run" in step and "action/" in step["run"]]
    assert len(scripts) == 2
    for script in scripts:
        name = script.split("action_path }}/", 1)[1].rstrip('"')
        assert (REPO / name).is_file(), name
    used = {word.split(".", 1)[1].rstrip(" }") for step in action["runs"]["steps"]
            for value in [*step.get("env", {}).values(), str(step.get("with", "")), step.get("if", "")]
            for word in str(value).replace("${{", " ").split() if word.startswith("inputs.")}
    assert used <= set(action["inputs"]), used - set(action["inputs"])


def test_the_validate_step_writes_annotations_and_fails_as_asked(tmp_path: Path) -> None:
    step = str(REPO / "action" / "validate.sh")
    broken = run("bash", step, cwd=REPO, KQCTL_PATHS="samples/broken", KQCTL_FAIL_ON="error", KQCTL_ARGS="")
    assert broken.returncode == 1
    assert any(line.startswith("::error file=samples/broken/") for line in broken.stdout.splitlines())
    versioned = run("bash", step, cwd=REPO, KQCTL_PATHS="samples/cohort-borrowing samples/submit-jobs",
                    KQCTL_FAIL_ON="warning", KQCTL_KUEUE_VERSION="v0.19")
    assert versioned.returncode == 0, versioned.stdout + versioned.stderr
    assert versioned.stdout.splitlines()[-1].startswith("19 documents")


@needs_git
def test_the_diff_step_posts_the_markdown_as_a_pull_request_comment(tmp_path: Path) -> None:
    fixture = git_repository(tmp_path / "fixture")
    shutil.copytree(REPO / "samples" / "cohort-borrowing", fixture / "queues")
    base = commit(fixture, "base")
    lower_team_a_cpu(fixture / "queues")
    commit(fixture, "head")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    calls = tmp_path / "gh-calls"
    (fake_bin / "gh").write_text(f'#!/usr/bin/env bash\necho "$@" >> {calls}\n'
                                 'while [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" '
                                 f'{tmp_path}/posted.md; shift; done\n')
    (fake_bin / "gh").chmod(0o755)
    step = str(REPO / "action" / "diff.sh")
    path = f"{fake_bin}{os.pathsep}{KQCTL_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    done = run("bash", step, cwd=fixture, PATH=path, KQCTL_DIFF_PATH="queues", KQCTL_BASE_SHA=base,
               KQCTL_PR_NUMBER="7", KQCTL_FAIL_ON_REGRESSION="true")
    assert done.returncode == 1, done.stdout + done.stderr  # the regression fails the job, after the comment
    assert calls.read_text().startswith("pr comment 7 --body-file ")
    posted = (tmp_path / "posted.md").read_text()
    assert posted.startswith("### kqctl diff") and "team-a/job-hparam-sweep-21f8c" in posted


# --- the container image ------------------------------------------------------------------------------------


def test_the_image_runs_kqctl_as_an_unprivileged_user() -> None:
    lines = [line.strip() for line in (REPO / "Dockerfile").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    user = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert user and user[-1] not in ("root", "0")
    assert 'ENTRYPOINT ["kqctl"]' in lines
    ignored = (REPO / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def _builder() -> str | None:
    """A container builder that can build here: docker with a reachable engine, or podman."""
    for tool in ("docker", "podman"):
        if shutil.which(tool) and subprocess.run([tool, "info"], capture_output=True, timeout=60).returncode == 0:
            return tool
    return None


def test_the_image_builds_and_answers(tmp_path: Path) -> None:
    builder = _builder()
    if builder is None:
        pytest.skip("no container builder here (docker without a reachable engine, no podman)")
    tag = "kqctl-test:ci"
    built = subprocess.run([builder, "build", "-t", tag, str(REPO)], capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stderr[-2000:]
    answer = subprocess.run([builder, "run", "--rm", tag, "version"], capture_output=True, text=True, timeout=300)
    assert answer.returncode == 0 and answer.stdout.startswith("kqctl ")
    whoami = subprocess.run([builder, "run", "--rm", "--entrypoint", "id", tag, "-u"], capture_output=True,
                            text=True, timeout=300)
    assert whoami.stdout.strip() == "10001"
