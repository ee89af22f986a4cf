"""Running the examples of kqctl's --help pages as a shell would (tests/cli/test_help_texts.py): pipes (``|``),
redirections (``<``, ``>``) and comments, every command in-process, in a directory that holds the samples and
examples, with
fake clusters for the examples that read one."""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from fake_apiserver import BUILTIN, KUEUE, KUEUE_RESOURCES, VOLCANO, FakeApiServer, FakeCluster
from support import REPO, run_kqctl

PLURALS = {(group, kind): plural
           for table in (BUILTIN, VOLCANO, {(KUEUE, "v1beta2"): KUEUE_RESOURCES})
           for (group, _), resources in table.items() for plural, (kind, _) in resources.items()}


def cluster_objects(*samples: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The objects of sample folders as the fake API server stores them."""
    objects: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for sample in samples:
        for path in sorted((REPO / "samples" / sample).glob("*.yaml")):
            for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
                if not isinstance(doc, dict) or "kind" not in doc:
                    continue
                group = doc["apiVersion"].rpartition("/")[0]
                plural = PLURALS.get((group, doc["kind"]))
                if plural is not None:
                    body = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind")}
                    objects.setdefault((group, plural), []).append(body)
    return objects


def kubeconfig(path: Path, server: FakeApiServer) -> str:
    """The server under the contexts the examples name (prod) and a current one."""
    config = {"apiVersion": "v1", "kind": "Config", "current-context": "prod",
              "clusters": [{"name": "c", "cluster": {"server": server.url}}],
              "users": [{"name": "u", "user": {"token": server.cluster.token}}],
              "contexts": [{"name": name, "context": {"cluster": "c", "user": "u"}} for name in ("prod", "fake")]}
    path.write_text(yaml.safe_dump(config))
    return str(path)


@contextlib.contextmanager
def serve_sample_clusters(directory: Path) -> Iterator[dict[str, str]]:
    """kubeconfigs by scheduler: Kueue (samples/cohort-borrowing), Volcano (volcano-two-teams), YuniKorn."""
    clusters = {
        "kueue": FakeCluster(objects=cluster_objects("cohort-borrowing")),
        "volcano": FakeCluster(objects=cluster_objects("volcano-two-teams"), kueue_installed=False,
                               volcano_installed=True),
        "yunikorn": FakeCluster(objects=cluster_objects("yunikorn-priority"), kueue_installed=False),
    }
    with contextlib.ExitStack() as stack:
        servers = {name: stack.enter_context(FakeApiServer(cluster)) for name, cluster in clusters.items()}
        yield {name: kubeconfig(directory / f"{name}.kubeconfig", server) for name, server in servers.items()}


def run_example(line: str, workdir: Path, kubeconfigs: dict[str, str]) -> tuple[int, str]:
    """Run one example line: its exit code (the last command's, as a shell's) and everything on stderr."""
    for shipped in ("samples", "examples"):
        (workdir / shipped).symlink_to(REPO / shipped)
    words = shlex.split(line, comments=True)
    scheduler = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "--scheduler"), "kueue")
    env = {"KUBECONFIG": kubeconfigs.get(scheduler, kubeconfigs["kueue"]), "HTTP_PROXY": "", "HTTPS_PROXY": "",
           "NO_PROXY": "127.0.0.1,localhost"}
    stages: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            stages.append([])
        else:
            stages[-1].append(word)
    stdin: bytes | None = None
    errors, code = [], 0
    for stage in stages:
        stage, source, target = _redirections(stage)
        assert stage[:1] == ["kqctl"], f"not a kqctl command: {' '.join(stage)}"
        if source is not None:
            stdin = (workdir / source).read_bytes()
        run = run_kqctl(*stage[1:], stdin=stdin, env=env, cwd=workdir)
        errors.append(run.err)
        if target is not None:
            (workdir / target).write_text(run.out)
        stdin, code = run.out.encode(), run.code
    return code, "".join(errors)


def _redirections(words: list[str]) -> tuple[list[str], str | None, str | None]:
    source = target = None
    kept: list[str] = []
    iterator = iter(words)
    for word in iterator:
        if word == "<":
            source = next(iterator)
        elif word == ">":
            target = next(iterator)
        else:
            kept.append(word)
    return kept, source, target
