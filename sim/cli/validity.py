"""usage: dialectica validity graph=NAME [grid.KEY=a,b,c] [KEY=VALUE ...]

Does the ranking of configurations found with scripted casts hold with LLM casts? (dialectica.sim.analysis.validity)

Keys:
  graph=NAME          the graph (a name, a plugin or module:attr)
  grid.KEY=a,b,c      the values of graph.KEY to compare (default: the graph's own grid)
  episodes=8          episodes a configuration and cast
  llm=..., llm.*      the LLM cast's model (default: the local reference model, qwen2.5-coder-1.5b)
  anything else       overrides of every run (seed=, max_concurrency=, tracking=none, ...)

Writes validity.json, validity.md and validity.png under results/validity/<graph>-<time>/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(argv: list[str], cwd: Path | None = None, echo: Callable[[str], None] = print) -> dict[str, Any] | int:
    if {"--help", "-h"} & set(argv):
        print((__doc__ or "").strip())
        return 0
    from dialectica.sim.analysis.validity import run  # lazy: start-up (numpy, yaml)

    return run(argv, cwd=cwd, echo=echo)
