"""Graphs and the example plugin build on the public ``dialectica.graph`` alone, never on ``dialectica.sim``."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

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


# Moved out of dialectica.graph to their own public modules; still importable from it for one release.
MOVED = {
    "dialectica.pages": "Markup esc fmt join markdown md_section note number table tag hbars LANE_LEFT lane_frame legend "
    "save subplots".split(),
    "dialectica.calibration": ["Calibration", "Knob"],
}


@pytest.mark.parametrize("module", sorted(MOVED))
def test_moved_names_still_import_from_dialectica_graph_with_a_warning(module):
    graph = importlib.import_module("dialectica.graph")
    new = importlib.import_module(module)
    assert sorted(new.__all__) == sorted(MOVED[module])
    for name in MOVED[module]:
        assert name not in graph.__all__
        assert name not in dir(graph)
        with pytest.warns(DeprecationWarning, match=rf"dialectica\.graph\.{name} moved to {module}\.{name}"):
            old = getattr(graph, name)
        assert old is getattr(new, name)
    with pytest.warns(DeprecationWarning, match="moved to"):
        from dialectica.graph import Markup  # noqa: F401 - the import statement is what warns
    with pytest.warns(DeprecationWarning):  # not cached: every use warns
        graph.Knob  # noqa: B018


def test_no_page_or_calibration_helper_in_dialectica_graph():
    graph = importlib.import_module("dialectica.graph")
    moved = {name for names in MOVED.values() for name in names}
    assert not moved & set(graph.__all__)
    for module in MOVED:  # the new modules' names all resolve
        new = importlib.import_module(module)
        assert all(getattr(new, name, None) is not None for name in new.__all__)
        assert set(new.__all__) <= set(dir(new))


def test_importing_dialectica_graph_stays_light():
    """A graph that draws nothing gets neither matplotlib nor the harness's pages or analysis with its imports
    (nor langchain-core's language models, which come with the scripted chat model when a cast uses it)."""
    heavy = ["matplotlib", "numpy", "dialectica.sim.view", "dialectica.sim.analysis", "langchain_core.language_models"]
    code = f"import sys, dialectica.graph; print([m for m in {heavy!r} if m in sys.modules])"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert found.stdout.strip() == "[]", found.stdout + found.stderr


def test_every_top_level_name_resolves_and_is_documented():
    top = importlib.import_module("dialectica")
    names = [name for name in top.__all__ if name != "__version__"]
    assert len(names) == len(set(names))
    assert set(names) <= set(top._LAZY)
    unresolved = [name for name in names if getattr(top, name, None) is None]
    assert not unresolved, f"dialectica.__all__ names what it lacks: {unresolved}"
    assert top.load_config is importlib.import_module("dialectica.sim.config.loader").load
    api = (ROOT / "docs" / "reference" / "api.md").read_text()
    undocumented = [name for name in names if f"::: dialectica.{name}\n" not in api]
    assert not undocumented, f"docs/reference/api.md lacks: {undocumented}"
