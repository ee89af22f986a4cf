"""The habits the architecture asks for, enforced: layering (issue 9's import rules), lint and types.

The import rules (the layer order among them: no import from a lower layer to a higher one) are checked
on every module of kqctl, every import counted: module-level, inside functions (lazy imports) and
under ``if TYPE_CHECKING``. A scheduler package is any sub-package of
kqctl other than the shared ones (cli, load, k8s, validate, render), so Volcano's and YuniKorn's
packages are held to the same rules as Kueue's the moment they appear.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from support import REPO

PACKAGE = "kqctl"
SHARED_PACKAGES = ("cli", "load", "k8s", "validate", "render", "replay")
# Ground modules any layer may import (issue 9: Finding, Origin and the errors sit below everything).
GROUND_MODULES = ("kqctl.findings", "kqctl.origin", "kqctl.errors")
# Layers that serve every scheduler and so may import none.
SCHEDULER_FREE_PACKAGES = ("validate", "load", "render", "k8s", "replay")
# Pure layers (no I/O, no user interface): the generic replay loop and each scheduler's engine and replay.
UI_AND_IO = ("typer", "rich", "yaml", "kubernetes", "jsonschema", "matplotlib")
# Layers, lowest first: a module imports only its own layer and those below (issue 9). The top-level modules
# (the ground ones, catalogue) sit below all of them.
SHARED_ORDER = ("k8s", "load", "validate", "render", "cli")
SCHEDULER_ORDER = ("api", "engine", "render")  # inside each scheduler package
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}


@dataclass(frozen=True)
class Import:
    """One import statement's target, resolved to a module of the tree where it is one."""

    module: str  # the importing module, e.g. kqctl.kueue.engine.cycle
    file: str  # its file, e.g. kqctl/kueue/engine/cycle.py
    line: int
    target: str  # the imported module, e.g. kqctl.kueue.engine.entry (or yaml, datetime ...)

    def __str__(self) -> str:
        return f"{self.file}:{self.line} ({self.module}) imports {self.target}"


def module_names(root: Path) -> dict[str, Path]:
    """Every module under ``root`` (a package directory) by dotted name; packages by their __init__."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def resolve(name: str, modules: Mapping[str, Path]) -> str:
    """The module an imported name stands for: the longest prefix that is a module of the tree, else the name."""
    candidate = name
    while candidate:
        if candidate in modules:
            return candidate
        candidate = candidate.rpartition(".")[0]
    return name


def imports_of(module: str, path: Path, file: str, modules: Mapping[str, Path]) -> Iterator[Import]:
    """Every import in the module, wherever it is (ast.walk reaches function bodies and if-blocks)."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, file, node.lineno, resolve(alias.name, modules))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                # ``from package import module`` imports the module; ``from module import name`` the module.
                full = f"{base}.{alias.name}"
                yield Import(module, file, node.lineno, full if full in modules else resolve(base, modules))


def all_imports(root: Path) -> list[Import]:
    modules = module_names(root)
    return [i for name, path in modules.items()
            for i in imports_of(name, path, path.relative_to(root.parent).as_posix(), modules)]


def scheduler_packages(root: Path) -> list[str]:
    """The sub-packages of kqctl that are schedulers: every package but the shared ones."""
    return sorted(p.parent.name for p in root.glob("*/__init__.py") if p.parent.name not in SHARED_PACKAGES)


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


# --- the rules ---------------------------------------------------------------------------------------------


def engine_violations(imports: list[Import], schedulers: list[str], package: str = PACKAGE) -> list[str]:
    """<scheduler>/engine imports only its own api and engine, kqctl.k8s, the ground modules, the standard library."""
    found: list[str] = []
    for scheduler in schedulers:
        engine, api = f"{package}.{scheduler}.engine", f"{package}.{scheduler}.api"
        allowed = (engine, api, f"{package}.k8s", *(g.replace(PACKAGE, package, 1) for g in GROUND_MODULES))
        for imp in imports:
            if not within(imp.module, engine):
                continue
            top = imp.target.partition(".")[0]
            if any(within(imp.target, a) for a in allowed) or (top in STDLIB and top != package):
                continue
            found.append(f"{imp}: the {scheduler} engine imports only {api}, {engine}, {package}.k8s, the ground "
                         f"modules and the standard library")
    return found


def replay_violations(imports: list[Import], schedulers: list[str], package: str = PACKAGE) -> list[str]:
    """kqctl/replay (the generic event loop) imports only itself, kqctl.k8s, the ground modules and the standard
    library; a scheduler's replay never reaches for the CLI, the loader, the renderers or an I/O library."""
    found: list[str] = []
    generic = f"{package}.replay"
    ground = tuple(g.replace(PACKAGE, package, 1) for g in GROUND_MODULES)
    for imp in imports:
        top = imp.target.partition(".")[0]
        if within(imp.module, generic):
            if within(imp.target, generic) or within(imp.target, f"{package}.k8s") \
                    or any(within(imp.target, g) for g in ground) or (top in STDLIB and top != package):
                continue
            found.append(f"{imp}: {generic} imports only itself, {package}.k8s, the ground modules and the "
                         "standard library")
        for scheduler in schedulers:
            if not within(imp.module, f"{package}.{scheduler}.replay"):
                continue
            banned = (*(f"{package}.{layer}" for layer in ("cli", "load", "render", "validate")), *UI_AND_IO)
            if any(within(imp.target, b) for b in banned):
                found.append(f"{imp}: {package}/{scheduler}/replay is pure: no I/O, no user interface")
    return found


def cross_scheduler_violations(imports: list[Import], schedulers: list[str], package: str = PACKAGE) -> list[str]:
    found: list[str] = []
    for imp in imports:
        for scheduler in schedulers:
            for other in schedulers:
                if other != scheduler and within(imp.module, f"{package}.{scheduler}") \
                        and within(imp.target, f"{package}.{other}"):
                    found.append(f"{imp}: scheduler package {scheduler} imports scheduler package {other}")
    return found


def shared_layer_violations(imports: list[Import], schedulers: list[str], package: str = PACKAGE) -> list[str]:
    found: list[str] = []
    for imp in imports:
        for layer in SCHEDULER_FREE_PACKAGES:
            if not within(imp.module, f"{package}.{layer}"):
                continue
            for scheduler in schedulers:
                if within(imp.target, f"{package}.{scheduler}"):
                    found.append(f"{imp}: {package}/{layer} never imports a scheduler ({scheduler}); the CLI "
                                 f"passes what it needs in")
    return found


def _rank(name: str, prefix: str, order: tuple[str, ...]) -> int | None:
    return next((i for i, layer in enumerate(order) if within(name, f"{prefix}.{layer}")), None)


def layer_order_violations(imports: list[Import], schedulers: list[str], package: str = PACKAGE) -> list[str]:
    """No import from a lower layer to a higher one: k8s < load < validate < render < cli, and inside each
    scheduler package api < engine < render (its api never imports its engine)."""
    found: list[str] = []
    orders = [(package, SHARED_ORDER), *((f"{package}.{s}", SCHEDULER_ORDER) for s in schedulers)]
    for imp in imports:
        for prefix, order in orders:
            own, target = _rank(imp.module, prefix, order), _rank(imp.target, prefix, order)
            if own is not None and target is not None and target > own:
                found.append(f"{imp}: {prefix}.{order[own]} is below {prefix}.{order[target]} "
                             f"({' < '.join(order)}): a layer imports only itself and the layers below it")
    return found


def cli_violations(imports: list[Import], package: str = PACKAGE) -> list[str]:
    """Nothing below the CLI imports it; ``python -m kqctl`` (``__main__``) is the one thing above it."""
    cli, entry_point = f"{package}.cli", f"{package}.__main__"
    return [f"{imp}: only {package}/cli (and {entry_point}) imports {cli}" for imp in imports
            if within(imp.target, cli) and not within(imp.module, cli) and imp.module != entry_point]


def import_cycles(imports: list[Import], modules: Mapping[str, Path]) -> list[str]:
    """Every cycle among the tree's modules, as ``a -> b -> a`` with the import line of each step.

    Importing ``a.b.c`` also runs the ``__init__`` of ``a`` and ``a.b``: those edges count too.
    """
    edges: dict[str, dict[str, Import]] = {name: {} for name in modules}
    for imp in imports:
        if imp.target not in modules:
            continue
        if imp.target != imp.module:
            edges[imp.module].setdefault(imp.target, imp)
        parts = imp.target.split(".")
        for i in range(1, len(parts)):  # the packages above the target, unless they are the importer's own
            package = ".".join(parts[:i])
            if package in modules and not within(imp.module, package):
                edges[imp.module].setdefault(package, imp)
    return [" -> ".join([*cycle, cycle[0]]) + "  (" + "; ".join(
        str(edges[a][b]) for a, b in zip(cycle, [*cycle[1:], cycle[0]], strict=True)) + ")"
        for cycle in _cycles(edges)]


def _cycles(edges: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """One cycle through each strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(edges[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return [_cycle_in(component, edges) for component in components]


def _cycle_in(component: list[str], edges: Mapping[str, Mapping[str, object]]) -> list[str]:
    """A shortest cycle from the component's first module back to it (breadth first)."""
    start, members = component[0], set(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for successor in sorted(edges[node]):
            if successor == start:
                return paths[node]
            if successor in members and successor not in paths:
                paths[successor] = [*paths[node], successor]
                queue.append(successor)
    return component


# --- the tests on kqctl ---------------------------------------------------------------------------------------

ROOT = REPO / PACKAGE
IMPORTS = all_imports(ROOT)
SCHEDULERS = scheduler_packages(ROOT)


def test_the_rules_see_every_scheduler_package_and_every_import() -> None:
    assert "kueue" in SCHEDULERS and not set(SCHEDULERS) & set(SHARED_PACKAGES)
    lazy = [i for i in IMPORTS if i.module == "kqctl.kueue.render.simulation" and i.target == "kqctl.render.output"]
    assert lazy, "function-level imports are counted"


def test_a_scheduler_engine_imports_only_its_api_k8s_the_ground_modules_and_the_standard_library() -> None:
    problems = engine_violations(IMPORTS, SCHEDULERS)
    assert not problems, "\n".join(problems)


def test_the_replay_loop_is_generic_and_each_schedulers_replay_is_pure() -> None:
    problems = replay_violations(IMPORTS, SCHEDULERS)
    assert not problems, "\n".join(problems)


def test_no_scheduler_package_imports_another() -> None:
    problems = cross_scheduler_violations(IMPORTS, SCHEDULERS)
    assert not problems, "\n".join(problems)


def test_validate_load_render_k8s_and_replay_never_import_a_scheduler() -> None:
    problems = shared_layer_violations(IMPORTS, SCHEDULERS)
    assert not problems, "\n".join(problems)


def test_no_layer_imports_a_higher_one() -> None:
    problems = layer_order_violations(IMPORTS, SCHEDULERS)
    assert not problems, "\n".join(problems)


def test_nothing_outside_the_cli_imports_the_cli() -> None:
    problems = cli_violations(IMPORTS)
    assert not problems, "\n".join(problems)


def test_no_import_cycle_among_kqctl_modules() -> None:
    cycles = import_cycles(IMPORTS, module_names(ROOT))
    assert not cycles, "\n".join(cycles)


# --- the rules catch what they are meant to (a throw-away package laid out like kqctl) ----------------------

FIXTURE = {
    "pkg/__init__.py": "",
    "pkg/findings.py": "",
    "pkg/cli/__init__.py": "",
    "pkg/cli/app.py": "from pkg.kueue.engine import cycle\n",
    "pkg/k8s/__init__.py": "",
    "pkg/k8s/quantity.py": "def later() -> None:\n    from pkg.validate import runner\n",
    "pkg/validate/__init__.py": "",
    "pkg/validate/runner.py": "def run() -> None:\n    from pkg.volcano.api import models\n",
    "pkg/load/__init__.py": "",
    "pkg/render/__init__.py": "",
    "pkg/kueue/__init__.py": "",
    "pkg/kueue/api/__init__.py": "",
    "pkg/kueue/api/models.py": "",
    "pkg/kueue/api/versions.py": "from pkg.kueue import render\nfrom pkg.kueue.engine import queues\n",
    "pkg/kueue/engine/__init__.py": "",
    "pkg/kueue/engine/cycle.py": ("import heapq\nfrom pkg.k8s import quantity\nfrom pkg import findings\n"
                                 "from pkg.kueue.api import models\nfrom pkg.kueue.engine import queues\n"
                                 "def later() -> None:\n    import yaml\n"),
    "pkg/kueue/engine/queues.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from pkg.kueue.engine.cycle import later\n"),
    "pkg/kueue/render.py": "from pkg.cli import app\n",
    "pkg/volcano/__init__.py": "",
    "pkg/volcano/api/__init__.py": "",
    "pkg/volcano/api/models.py": "from ...kueue.api import models\n",
    "pkg/replay/__init__.py": "",
    "pkg/replay/events.py": "import heapq\nfrom pkg.k8s import quantity\nfrom pkg.load import sources\n",
    "pkg/kueue/replay/__init__.py": "",
    "pkg/kueue/replay/timeline.py": "from pkg.replay import events\nfrom pkg.kueue.engine import cycle\nimport rich\n",
    "pkg/load/sources.py": "",
}


@pytest.fixture
def fixture_imports(tmp_path: Path) -> tuple[list[Import], Mapping[str, Path], list[str]]:
    for name, text in FIXTURE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    root = tmp_path / "pkg"
    return all_imports(root), module_names(root), scheduler_packages(root)


def test_the_checker_finds_schedulers_by_elimination(fixture_imports: tuple[list[Import], Mapping[str, Path],
                                                                              list[str]]) -> None:
    assert fixture_imports[2] == ["kueue", "volcano"]


def test_the_checker_reports_each_broken_rule_with_module_and_import(
        fixture_imports: tuple[list[Import], Mapping[str, Path], list[str]]) -> None:
    imports, modules, schedulers = fixture_imports
    engine = engine_violations(imports, schedulers, "pkg")
    assert [p.split(": ")[0] for p in engine] == ["pkg/kueue/engine/cycle.py:7 (pkg.kueue.engine.cycle) imports yaml"]
    cross = cross_scheduler_violations(imports, schedulers, "pkg")
    assert [p.split(": ")[0] for p in cross] == [
        "pkg/volcano/api/models.py:1 (pkg.volcano.api.models) imports pkg.kueue.api.models"]  # a relative import
    shared = shared_layer_violations(imports, schedulers, "pkg")
    assert [p.split(": ")[0] for p in shared] == [
        "pkg/validate/runner.py:2 (pkg.validate.runner) imports pkg.volcano.api.models"]  # a function-level import
    replay = replay_violations(imports, schedulers, "pkg")
    assert [p.split(": ")[0] for p in replay] == [
        "pkg/kueue/replay/timeline.py:3 (pkg.kueue.replay.timeline) imports rich",
        "pkg/replay/events.py:3 (pkg.replay.events) imports pkg.load.sources"]
    layers = layer_order_violations(imports, schedulers, "pkg")
    assert [p.split(": ")[0] for p in layers] == [
        "pkg/k8s/quantity.py:2 (pkg.k8s.quantity) imports pkg.validate.runner",  # shared layers
        "pkg/kueue/api/versions.py:1 (pkg.kueue.api.versions) imports pkg.kueue.render",  # inside a scheduler
        "pkg/kueue/api/versions.py:2 (pkg.kueue.api.versions) imports pkg.kueue.engine.queues"]
    assert "pkg.k8s is below pkg.validate (k8s < load < validate < render < cli)" in layers[0]
    cli = cli_violations(imports, "pkg")
    assert [p.split(": ")[0] for p in cli] == ["pkg/kueue/render.py:1 (pkg.kueue.render) imports pkg.cli.app"]
    cycles = import_cycles(imports, modules)
    assert [c.split("  (")[0] for c in cycles] == [  # through a TYPE_CHECKING import
        "pkg.kueue.engine.cycle -> pkg.kueue.engine.queues -> pkg.kueue.engine.cycle"]
    assert "pkg/kueue/engine/queues.py:3 (pkg.kueue.engine.queues) imports pkg.kueue.engine.cycle" in cycles[0]


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = run_tool("ruff", "check", "kqctl", "tests", "scripts", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing() -> None:
    result = run_tool("mypy", "kqctl")
    assert result.returncode == 0, result.stdout + result.stderr
