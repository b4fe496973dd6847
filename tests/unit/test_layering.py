"""The layering ``sim/__init__.py`` states is the one the imports draw.

Every import of every module of the package is read with ``ast`` (the package maps the top-level folders:
``sim/`` is ``dialectica.sim``, ``metrics/`` is ``dialectica.metrics``, ``graphs/`` is ``dialectica.graphs``,
``dialectica/*.py`` are the public modules; see setup.py), those inside functions and under ``if
TYPE_CHECKING:`` included. A ``TYPE_CHECKING`` import does not run, but it counts: a type a module names is
part of its design, and a cycle through one is as tangled as any other (the type moves down instead).
Imports through ``importlib.import_module`` with a computed name are not seen; the public modules use them
for their lazy names only.

From these imports: no cycle between modules, no cycle between the parts of ``dialectica.sim`` (and
``dialectica.metrics``), no arrow from a part up to one after it in ``LAYERS`` (the order the docstring of
``sim/__init__.py`` lists them in); the public modules and the graphs import only what they may; and an
import of a ``dialectica`` module inside a function says why it is there (``# lazy: <reason>`` on its line).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "dialectica": "dialectica",
    "sim": "dialectica.sim",
    "graphs": "dialectica.graphs",
    "metrics": "dialectica.metrics",
}

# The parts, lowest first: each imports only the parts before it. sim/__init__.py lists them in this order.
LAYERS = [
    "metrics",
    "secrets",
    "records",
    "authoring",
    "llm",
    "adapter",
    "config",
    "tracking",
    "view",
    "engine",
    "dev",
    "analysis",
    "cli",
]
# What the public modules and the graphs may import (beside themselves): graphs import no part of sim.
PUBLIC = {
    "dialectica.graph": {"authoring"},
    "dialectica.calibration": {"authoring"},
    "dialectica.pages": {"authoring", "view"},
    "graphs": {"dialectica.graph", "dialectica.calibration", "dialectica.pages", "metrics", "graphs"},
}
LAZY = re.compile(r"#.*\blazy: \S")  # the reason an import of a dialectica module waits for its function


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the dialectica module imported (a package when the name is not a module of its own)
    line: int
    local: bool  # inside a function
    typing: bool  # under ``if TYPE_CHECKING:``
    text: str  # the statement's first line

    def __str__(self) -> str:
        where = "in a function" if self.local else "under TYPE_CHECKING" if self.typing else "at the top"
        return f"{path_of(self.source)}:{self.line} {self.source} -> {self.target} ({where}): {self.text.strip()}"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found = {}
    for folder, package in FOLDERS.items():
        for file in sorted((ROOT / folder).rglob("*.py")):
            parts = file.relative_to(ROOT / folder).with_suffix("").parts
            if "__pycache__" in file.parts:
                continue
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join([package, *parts])] = file
    return found


def path_of(module: str) -> str:
    return str(modules()[module].relative_to(ROOT))


def _resolve(name: str) -> str | None:
    """The module ``name`` is, or the package it is in (``pkg.module.attr`` -> ``pkg.module``)."""
    while name not in modules():
        if "." not in name:
            return None
        name = name.rpartition(".")[0]
    return name


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


def _imports_of(module: str, file: Path) -> list[Import]:
    """The imports of dialectica modules in one file, each with where it stands (a function, TYPE_CHECKING)."""
    lines = file.read_text().splitlines()
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    out: list[Import] = []

    def targets(node: ast.Import | ast.ImportFrom) -> list[str]:
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        base = node.module or ""
        if node.level:
            up = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = f"{up}.{base}" if base else up
        return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules() else base for alias in node.names]

    def visit(node: ast.AST, local: bool, typing: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    visit_one(stmt, local, True)
                for stmt in child.orelse:
                    visit_one(stmt, local, typing)
            else:
                visit_one(child, local, typing)

    def visit_one(node: ast.AST, local: bool, typing: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in dict.fromkeys(targets(node)):
                target = _resolve(name) if name.split(".")[0] == "dialectica" else None
                if target is not None and target != module:
                    out.append(Import(module, target, node.lineno, local, typing, lines[node.lineno - 1]))
        visit(node, local or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda), typing)

    visit(ast.parse("\n".join(lines), str(file)), False, False)
    return out


@cache
def imports() -> list[Import]:
    """Every import of a dialectica module by a dialectica module (a module's import of itself left out)."""
    return [imp for module, file in modules().items() for imp in _imports_of(module, file)]


def part(module: str) -> str:
    """The part a module belongs to: ``dialectica.sim.<part>.*`` -> ``<part>``; ``metrics``, ``graphs``; a public
    module is its own; a ``__main__`` (run, never imported) is an entry point, above every part."""
    if module.endswith(".__main__"):
        return "__main__"
    pieces = module.split(".")
    if pieces[:2] == ["dialectica", "sim"] and len(pieces) > 2:
        return pieces[2]
    if len(pieces) > 1 and pieces[1] in ("metrics", "graphs"):
        return pieces[1]
    return module


def _cycles(edges: dict[tuple[str, str], list[Import]]) -> list[str]:
    graph = nx.DiGraph(list(edges))
    found = []
    for component in nx.strongly_connected_components(graph):
        if len(component) > 1:
            cycle = nx.find_cycle(graph.subgraph(component))
            found.append(" -> ".join([*(a for a, _ in cycle), cycle[0][0]]))
            found.extend(f"    {edges[edge][0]}" for edge in cycle)
    return found


def test_sim_init_states_the_order():
    """sim/__init__.py's docstring lists the parts in ``LAYERS``' order, lowest first."""
    doc = ast.get_docstring(ast.parse((ROOT / "sim" / "__init__.py").read_text())) or ""
    listed = re.findall(r"^- ``(\w+)``", doc, re.MULTILINE)
    assert listed == LAYERS, f"sim/__init__.py lists {listed}; the layering test's LAYERS is {LAYERS}"
    assert {part(m) for m in modules() if m.startswith("dialectica.sim.")} <= {*LAYERS, "__main__"}, "a part not in LAYERS"


def test_no_module_imports_another_that_imports_it_back():
    edges: dict[tuple[str, str], list[Import]] = {}
    for imp in imports():
        edges.setdefault((imp.source, imp.target), []).append(imp)
    cycles = _cycles(edges)
    assert not cycles, "import cycles between modules:\n" + "\n".join(cycles)


def test_no_cycle_between_parts():
    edges: dict[tuple[str, str], list[Import]] = {}
    for imp in imports():
        if part(imp.source) != part(imp.target):
            edges.setdefault((part(imp.source), part(imp.target)), []).append(imp)
    cycles = _cycles(edges)
    assert not cycles, "import cycles between parts:\n" + "\n".join(cycles)


def test_no_part_imports_a_later_one():
    """A part of sim (or metrics) imports only the parts before it in ``LAYERS``."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    upward = [
        str(imp)
        for imp in imports()
        if part(imp.source) in rank and part(imp.target) in rank and rank[part(imp.target)] > rank[part(imp.source)]
    ]
    assert not upward, f"imports against the order {' < '.join(LAYERS)}:\n" + "\n".join(upward)


def test_public_modules_and_graphs_import_only_what_they_may():
    wrong = [
        str(imp)
        for imp in imports()
        if (allowed := PUBLIC.get(part(imp.source))) is not None
        and part(imp.target) not in allowed
        and imp.target not in allowed
    ]
    assert not wrong, "\n".join(wrong)


def test_function_local_imports_say_why():
    """An import of a dialectica module inside a function waits for a reason (start-up time, an optional extra),
    said on its line: ``# lazy: start-up (mlflow)``. A cycle is no reason: the imports above have none."""
    silent = [str(imp) for imp in imports() if imp.local and not LAZY.search(imp.text)]
    assert not silent, "function-local imports without a '# lazy: <reason>' comment:\n" + "\n".join(silent)


def test_the_reader_sees_every_kind_of_import():
    """The checks above are only as good as the reader: it finds imports at the top, in functions and under
    TYPE_CHECKING, in every folder of the package."""
    seen = imports()
    assert {part(imp.source) for imp in seen} >= {*LAYERS[1:], "graphs", "dialectica", "dialectica.graph"} - {"secrets"}
    assert any(imp.local for imp in seen) and any(imp.typing for imp in seen) and any(not imp.local for imp in seen)
