"""Per-graph parts of an episode page, registered under the graph's name by ``@view``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.registry import Registry
from sim.view.markup import Markup

Record = dict[str, Any]


def no_notes(record: Record) -> dict[Any, list[Markup]]:
    return {}


def no_panel(record: Record) -> Markup:
    return Markup("")


@dataclass(frozen=True)
class GraphView:
    """What an episode page adds for one graph.

    Attributes:
        panel: ``panel(record)`` -> the graph's own section (argument graph, rules trace, ...).
        title: That section's heading.
        metric: Default metric for the best and worst episode (``-name``: lower is better).
        explain: ``explain(record)`` -> one sentence on why the episode ended.
        notes: ``notes(record)`` -> notes to show inline in the timeline, by round.
    """

    panel: Callable[[Record], Markup]
    title: str
    metric: str
    explain: Callable[[Record], str] | None = None
    notes: Callable[[Record], dict[Any, list[Markup]]] = no_notes


VIEWS: Registry[GraphView] = Registry("graph view")
GENERIC = GraphView(no_panel, "", "rounds")


def view(name: str, *, title: str, metric: str, explain: Callable[[Record], str] | None = None,
         notes: Callable[[Record], dict[Any, list[Markup]]] = no_notes) -> Callable:
    """Registers the decorated ``panel(record)`` as graph ``name``'s section; a second one for a name raises."""

    def decorate(panel: Callable[[Record], Markup]) -> Callable[[Record], Markup]:
        VIEWS.register(name)(GraphView(panel, title, metric, explain, notes))
        return panel

    return decorate


def view_for(graph: str) -> GraphView:
    """The registered view of ``graph``, or a generic one (no panel) for a graph without one."""
    import sim.view.panels  # noqa: F401 - registers the graphs' views

    return VIEWS.get(graph) if graph in VIEWS else GENERIC
