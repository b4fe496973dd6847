"""The part of an episode page that belongs to a record's graph: its spec's ``view``."""

from __future__ import annotations

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.spec import GraphView
from dialectica.sim.config import discovery

GENERIC = GraphView()


def view_for(graph: str) -> GraphView:
    """The view of ``graph`` (built-in or plugin), or a generic one (no panel) for a graph not installed here."""

    try:
        return discovery.load(graph).view
    except ConfigError:
        return GENERIC


def endings_for(graph: str) -> dict[str, str]:
    """The declared endings of ``graph`` (reason -> meaning); none for a graph not installed here."""

    try:
        return discovery.load(graph).endings()
    except ConfigError:
        return {}
