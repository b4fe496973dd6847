"""Graphs and the example plugin build on the public ``dialectica.graph`` alone, never on ``dialectica.sim``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AUTHORS = ("graphs", "examples")  # what a graph author writes
ALLOWED: set[tuple[str, str]] = set()  # (file, private module) pairs allowed: none


def _private(module: str) -> bool:
    return module == "dialectica.sim" or module.startswith("dialectica.sim.")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in ``path``, ``from dialectica.sim import x`` named as ``dialectica.sim.x``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "dialectica" or node.module == "dialectica.sim":
                found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def test_graphs_and_examples_import_nothing_from_dialectica_sim():
    files = sorted(path for folder in AUTHORS for path in (ROOT / folder).rglob("*.py"))
    assert len(files) > 40  # the walk found the graphs
    offenders = [
        f"{path.relative_to(ROOT).as_posix()}:{line}: {module}"
        for path in files
        for line, module in _imports(path)
        if _private(module) and (path.relative_to(ROOT).as_posix(), module) not in ALLOWED
    ]
    assert not offenders, "import from dialectica.graph (or dialectica.metrics) instead:\n" + "\n".join(offenders)


def test_every_public_name_resolves():
    graph = importlib.import_module("dialectica.graph")
    assert len(graph.__all__) == len(set(graph.__all__))
    missing = [name for name in graph.__all__ if getattr(graph, name, None) is None]
    assert not missing, f"dialectica.graph.__all__ names what it lacks: {missing}"
    assert set(graph.__all__) <= set(dir(graph))
