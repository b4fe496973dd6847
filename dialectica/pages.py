"""What a graph draws: its part of the episode page (escaped HTML, small inline SVG charts) and its figures.

A graph's page panel (``GraphSpec.view``) returns :class:`Markup` built from the helpers below, and its figures
(``GraphSpec.figures``) draw with :func:`subplots` and write with :func:`save`. Like ``dialectica.graph``, this
module is public and imports nothing a graph must not: the names in ``__all__`` change only after a deprecation
period of one minor release.

``save`` and ``subplots`` are imported on first use, so that importing this module (a panel) does not pull
matplotlib in.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from dialectica.sim.view.charts import LANE_LEFT, hbars, lane_frame, legend
from dialectica.sim.view.markup import Markup, esc, fmt, join, markdown, md_section, note, number, table, tag

if TYPE_CHECKING:  # imported on first use (see __getattr__); here for type checkers
    from dialectica.sim.authoring.plots import save as save
    from dialectica.sim.authoring.plots import subplots as subplots

_LAZY = {"save": "dialectica.sim.authoring.plots", "subplots": "dialectica.sim.authoring.plots"}  # lazy: matplotlib

__all__ = [
    # The episode page's panel: escaped HTML and what builds it.
    "Markup",
    "esc",
    "fmt",
    "join",
    "markdown",
    "md_section",
    "note",
    "number",
    "table",
    "tag",
    # Small inline SVG charts: bars, swimlane frames and their legend.
    "hbars",
    "LANE_LEFT",
    "lane_frame",
    "legend",
    # Figures (matplotlib, without pyplot): a figure and its axes, and writing it to a file.
    "save",
    "subplots",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later look-ups find it without this hook
        return value
    raise AttributeError(f"module 'dialectica.pages' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
