"""Shell completion of flag values and names, and ``kqctl completion bash|zsh|fish`` (kubectl's spelling).

typer completes commands and option names; this adds what a flag or argument takes: ``-o`` (the command's
formats), ``--scheduler``, ``--fail-on``, ``--sort-by`` (the columns of the command's table), ``--kueue-version`` and
its siblings (the releases kqctl ships), rule IDs after ``kqctl rules``, and workload names after ``kqctl explain``,
read from the inputs already on the line (``-f PATH`` or paths typed before or after the name).
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from collections.abc import Callable, Iterable
from typing import Any

import typer

from kqctl.errors import UsageError

HELP = """Print the shell completion script for bash, zsh or fish (as kubectl completion does).

Load it in the current shell with source <(kqctl completion bash), or write it where your shell reads
completions; --install-completion does the latter for the current shell."""

EXAMPLES = """Examples:

\b
  kqctl completion bash > kqctl.bash  # then: source kqctl.bash (in ~/.bashrc)
  kqctl completion zsh > _kqctl  # into a folder of $fpath
  kqctl completion fish > kqctl.fish  # into ~/.config/fish/completions/"""

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VARIABLE = "_KQCTL_COMPLETE"


def completion_command(
    shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish.", show_default=False),
) -> None:
    from typer._completion_shared import get_completion_script

    if shell not in SHELLS:
        raise UsageError(f"unknown shell {shell!r}; choose one of: {', '.join(SHELLS)}")
    program = "kubectl-kqctl" if os.path.basename(sys.argv[0] if sys.argv else "") == "kubectl-kqctl" else "kqctl"
    variable = f"_{program.replace('-', '_').upper()}_COMPLETE"
    sys.stdout.write(get_completion_script(prog_name=program, complete_var=variable, shell=shell).rstrip() + "\n")


# --- what each flag takes ------------------------------------------------------------------------------------

# Columns --sort-by accepts, as the tables' headers name them (tests/cli/test_completion.py runs each, and checks
# that the list is every column the command's table shows). Audit sorts its quota table (a tree: level by level), its
# ClusterQueue table, or its findings by severity, rule or object.
SORT_COLUMNS: dict[str, tuple[str, ...]] = {
    "validate": ("location", "severity", "rule", "object", "field", "message"),
    "simulate": ("workload", "clusterqueue", "decision", "flavors", "borrowed", "preemption", "reason", "priority",
                 "localqueue", "cycle", "victims", "preemption-reason", "detail"),
    "audit": ("cohort/clusterqueue", "flavor", "resource", "nominal", "borrow-limit", "lend-limit", "can-borrow",
              "lends", "subtree-quota", "used", "borrowed", "util", "clusterqueue", "cohort", "localqueues",
              "workloads", "admitted-workloads", "pending-workloads", "pending-demand", "status", "localqueue-names",
              "severity", "rule", "object"),
    "replay": ("workload", "clusterqueue", "priority", "wait", "finished-after", "evictions", "state", "localqueue",
               "arrived"),
}


def _formats(command: str) -> tuple[str, ...]:
    from kqctl.cli import audit, diff, explain, plan, rbac, replay, rules, simulate, version
    from kqctl.render.validation import VALIDATE_FORMATS

    return {
        "validate": VALIDATE_FORMATS, "simulate": simulate.SIMULATE_FORMATS, "explain": explain.EXPLAIN_FORMATS,
        "audit": audit.AUDIT_FORMATS, "replay": replay.REPLAY_FORMATS, "diff": diff.DIFF_FORMATS,
        "plan": plan.PLAN_FORMATS, "rules": rules.RULES_FORMATS, "rbac": rbac.FORMATS, "version": version.FORMATS,
    }.get(command, ())


def _fail_on(command: str) -> tuple[str, ...]:
    from kqctl.cli import diff, fail_on, validate

    return {"validate": validate.FAIL_ON, "simulate": fail_on.STATES, "diff": diff.FAIL_ON}.get(command, ())


def _schedulers() -> tuple[str, ...]:
    from kqctl.cli.schedulers import SCHEDULERS

    return tuple(SCHEDULERS)


def _releases(scheduler: str) -> tuple[str, ...]:
    from kqctl.cli.schedulers import SCHEDULERS

    return tuple(r.version for r in SCHEDULERS[scheduler].releases().releases)


def _rule_ids() -> tuple[str, ...]:
    from kqctl.catalogue import all_rules

    rules = all_rules()
    families = sorted({rule.family for rule in rules})  # kqctl rules XO lists a family
    return (*families, *(rule.id for rule in rules))


def _matching(values: Iterable[str], incomplete: str) -> list[str]:
    return [value for value in values if value.lower().startswith(incomplete.lower())]


def _static(values: Callable[[], Iterable[str]], ctx: Any, param: Any, incomplete: str) -> list[str]:
    try:
        return _matching(values(), incomplete)
    except Exception:  # completion never prints a traceback into the user's shell
        return []


def _comma_list(values: Callable[[], Iterable[str]], ctx: Any, param: Any, incomplete: str) -> list[str]:
    """``--fail-on inadmissible,pe<TAB>``: the values after the last comma."""
    done, _, last = incomplete.rpartition(",")
    prefix = f"{done}," if done else ""
    chosen = set(done.split(",")) if done else set()
    return [prefix + value for value in _static(values, ctx, param, last) if value not in chosen]


def workload_names(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """The workloads (namespace/name) of the inputs on the line: explain's WORKLOAD."""
    try:
        paths = [*(ctx.params.get("filenames") or []), *(ctx.params.get("paths") or []), *_words_after_cursor()]
        return _matching(sorted(_workloads([p for p in paths if p != "-" and os.path.exists(p)],
                                           bool(ctx.params.get("recursive")))), incomplete)
    except Exception:
        return []


def _words_after_cursor() -> list[str]:
    """bash and zsh hand over the whole line: paths typed after the name being completed count too."""
    words, cword = os.environ.get("COMP_WORDS"), os.environ.get("COMP_CWORD")
    if words is None or cword is None or not cword.isdigit():
        return []
    try:
        return shlex.split(words)[int(cword) + 1:]
    except ValueError:
        return []


def _workloads(paths: list[str], recursive: bool) -> set[str]:
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.objects import load_paths

    if not paths:
        return set()
    names = set()
    for obj in load_paths(ALL_KINDS, paths, recursive=recursive).objects:
        if obj.kind in ("Workload", "Job", "PodGroup") or (obj.kind == "Pod" and _yunikorn_pod(obj.body)):
            if obj.name:
                names.add(f"{obj.namespace}/{obj.name}" if obj.namespace else obj.name)
    return names


def _yunikorn_pod(body: Any) -> bool:
    from kqctl.yunikorn.kinds import is_yunikorn_pod

    return isinstance(body, dict) and is_yunikorn_pod(body)


def _for(command: str, name: str) -> Callable[..., list[str]] | None:
    """The completion of parameter ``name`` of ``command`` (None: typer's own)."""
    if name == "output" and command != "snapshot save":
        return functools.partial(_static, functools.partial(_formats, command))
    if name == "scheduler":
        return functools.partial(_static, _schedulers)
    if name == "fail_on":
        return functools.partial(_comma_list, functools.partial(_fail_on, command))
    if name == "sort_by" and command in SORT_COLUMNS:
        return functools.partial(_static, lambda: SORT_COLUMNS[command])
    if name.endswith("_version") and name.split("_")[0] in ("kueue", "volcano", "yunikorn"):
        return functools.partial(_static, functools.partial(_releases, name.split("_")[0]))
    if command == "rules" and name == "rule_id":
        return functools.partial(_static, _rule_ids)
    if command == "explain" and name == "workload":
        return workload_names
    return None


def attach(command: Any, path: tuple[str, ...] = ()) -> Any:
    """Give every parameter of the click command tree its value completion; returns ``command``."""
    for sub_name, sub in getattr(command, "commands", {}).items():
        attach(sub, (*path, sub_name))
    for param in getattr(command, "params", []):
        completer = _for(" ".join(path), param.name or "")
        if completer is not None:
            param._custom_shell_complete = completer
    return command
