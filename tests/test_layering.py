"""The package's layering, computed from its import statements (``ast``, no import runs).

Every ``import``/``from ... import`` of a ``migrator`` module counts: at module level, inside
functions and under ``if TYPE_CHECKING:``. The rules (see CONTRIBUTING.md):

* no import cycle between modules;
* bottom modules (results, errors, settings, paths, version) import only bottom modules;
* ``load/`` and ``knowledge/`` import only bottom modules and themselves;
* ``check/`` and ``report/`` never import ``convert/`` or ``batch/``;
* ``convert/`` (with ``template/``, a member of the convert stage) never imports ``batch/``,
  ``report/`` or the CLI;
* every module's docstring starts with its stage.

On failure the offending edges and the whole graph are printed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "migrator"
BOTTOM = {"migrator.results", "migrator.errors", "migrator.settings", "migrator.paths",
          "migrator.version", "migrator.atomic", "migrator.waivers"}
STAGES = ("load", "knowledge", "convert", "check", "report", "batch")
# Packages that belong to a stage without carrying its name: template/ converts templated
# documents (convert_text routes to it, it converts rendered variants with convert/plain.py);
# shared_runtimes/ is the batch's --shared-runtimes step (a file's rewrite, the folder);
# simulate/ checks a conversion against both controllers' behaviour (explain-diff, tests).
MEMBERS = {"template": "convert", "shared_runtimes": "batch", "simulate": "check"}
# A stage may import the bottom, itself and the stages listed here (nothing else in migrator).
ALLOWED: dict[str, set[str]] = {
    "bottom": set(),
    "load": set(),
    "knowledge": set(),
    "check": {"load", "knowledge"},
    "convert": {"load", "knowledge", "check"},
    "report": {"load", "knowledge", "check"},
    "batch": {"load", "knowledge", "check", "convert", "report"},
}
DOCSTRING_STAGES = ("BOTTOM", "API", "CLI", "LOAD", "KNOWLEDGE", "CONVERT", "CHECK", "REPORT",
                    "BATCH")


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))
            if "__pycache__" not in p.parts}


def _resolve(name: str, known: Iterable[str]) -> str | None:
    """The module ``name`` refers to: itself if it is a module, else its longest known prefix."""
    known = set(known)
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(path: Path, known: set[str], root: Path = PACKAGE) -> set[str]:
    """The migrator modules ``path`` imports (anywhere in the file)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    me = module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            # ``from pkg import mod`` imports the module pkg.mod; ``from mod import name`` mod
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target, known)
            if resolved is not None and resolved != me:
                found.add(resolved)
    return found


def graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    found = modules(root)
    known = set(found)
    return {name: imports_of(path, known, root) for name, path in found.items()}


def layer(name: str) -> str | None:
    """bottom, a stage, or None for the top (the package facade, the CLI, config, new dirs)."""
    if name in BOTTOM:
        return "bottom"
    parts = name.split(".")
    if len(parts) > 1 and parts[1] in STAGES:
        return parts[1]
    if len(parts) > 1 and parts[1] in MEMBERS:
        return MEMBERS[parts[1]]
    return None


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def violations(edges: dict[str, set[str]]) -> list[str]:
    """Imports that break the layering rules."""
    bad = []
    for source, targets in sorted(edges.items()):
        mine = layer(source)
        if mine is None:
            continue  # the top may import anything
        for target in sorted(targets):
            theirs = layer(target)
            if theirs == "bottom" or theirs == mine:
                continue
            if theirs is None or theirs not in ALLOWED[mine]:
                bad.append(f"{source} ({mine}) imports {target} ({theirs or 'top'})")
    return bad


def render(edges: dict[str, set[str]]) -> str:
    return "\n".join(f"  {name} -> {', '.join(sorted(targets)) or '-'}"
                     for name, targets in sorted(edges.items()))


def test_the_import_graph_has_no_cycle() -> None:
    edges = graph()
    found = cycles(edges)
    assert not found, f"import cycles: {found}\nimport graph:\n{render(edges)}"


def test_each_layer_imports_only_what_is_below_it() -> None:
    edges = graph()
    bad = violations(edges)
    assert not bad, "layering violations:\n" + "\n".join(bad) + f"\nimport graph:\n{render(edges)}"


def test_every_stage_module_names_its_stage_in_its_docstring() -> None:
    missing = []
    for name, path in modules().items():
        in_stage = name.count(".") >= 1 and name.split(".")[1] in STAGES
        if not in_stage and name not in {"migrator", "migrator.cli", "migrator.config",
                                         "migrator.__main__"} and layer(name) != "bottom":
            continue  # packages such as template/ name themselves in their own words
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if not docstring.startswith(DOCSTRING_STAGES):
            missing.append(f"{name}: {docstring.splitlines()[0] if docstring else '(none)'}")
    assert not missing, "modules whose docstring does not start with their stage:\n" + \
        "\n".join(missing)


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "migrator"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(("files", "problem"), [
    ({"report/__init__.py": "", "report/x.py": "def f():\n    from migrator.batch import y\n",
      "batch/__init__.py": "", "batch/y.py": ""},
     "migrator.report.x (report) imports migrator.batch.y (batch)"),
    ({"check/__init__.py": "", "check/a.py": "from migrator.convert.b import thing\n",
      "convert/__init__.py": "", "convert/b.py": ""},
     "migrator.check.a (check) imports migrator.convert.b (convert)"),
    ({"load/__init__.py": "", "load/a.py": "from migrator.knowledge import c\n",
      "knowledge/__init__.py": "", "knowledge/c.py": ""},
     "migrator.load.a (load) imports migrator.knowledge.c (knowledge)"),
    ({"results.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from migrator.load.sources import S\n",
      "load/__init__.py": "", "load/sources.py": ""},
     "migrator.results (bottom) imports migrator.load.sources (load)"),
])
def test_the_checker_catches_a_bad_import(tmp_path: Path, files: dict[str, str],
                                          problem: str) -> None:
    root = _tree(tmp_path, files)
    assert problem in violations(graph(root))


def test_the_checker_catches_a_cycle(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"batch/__init__.py": "",
                            "batch/a.py": "from migrator.batch import b\n",
                            "batch/b.py": "def f():\n    from . import a\n"})
    assert cycles(graph(root)) == [["migrator.batch.a", "migrator.batch.b"]]
