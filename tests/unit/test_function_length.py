"""No function outside tests is longer than a reader can hold: 60 lines from its ``def`` to its last line.

A function's docstring does not count toward its length: the limit is on code to follow, and counting
documentation would push a public entry point such as ``dialectica.sim.engine.evaluate`` to cut the
``Args`` section a caller needs. Decorators do not count either (the ``def`` line is where it starts).
Nested functions count toward the function that holds them, and are also measured on their own.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("sim", "metrics", "graphs", "dialectica", "examples")
SKIP = {"tests", "build", "__pycache__"}  # tests (the project's and each example's) and built copies of sources
LIMIT = 60


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return (first.end_lineno or first.lineno) - first.lineno + 1
    return 0


def _length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the ``def`` line to the function's last line, less its docstring's lines."""
    return (node.end_lineno or node.lineno) - node.lineno + 1 - _docstring_lines(node)


def _sources() -> list[Path]:
    return sorted(
        path
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if not SKIP & set(path.relative_to(ROOT).parts[:-1])
    )


def _long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    name = path.relative_to(ROOT).as_posix()
    return [
        f"{name}:{node.lineno} {node.name} {_length(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _length(node) > LIMIT
    ]


def test_the_walk_finds_the_sources():
    names = {path.relative_to(ROOT).as_posix() for path in _sources()}
    assert "sim/engine/episode.py" in names and "dialectica/graph.py" in names
    assert not any("/tests/" in name or name.startswith("tests/") for name in names)


def test_docstrings_do_not_count():
    source = 'def f():\n    """One.\n\n    Two.\n    """\n    return 1\n'
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef) and _length(node) == 2


def test_no_function_is_over_the_limit():
    offenders = [line for path in _sources() for line in _long_functions(path)]
    assert not offenders, f"functions over {LIMIT} lines (docstring excluded); split them:\n" + "\n".join(offenders)
