"""What a graph author imports: the one public module for native graphs and plugins.

A graph (a built-in folder under ``graphs/`` or a third-party plugin) exports one :class:`GraphSpec`
and builds it from the names below; it imports nothing from ``dialectica.sim``.

Stability: the names listed in ``__all__`` are the public surface. They change only after a
deprecation period of one minor release (the old name keeps working, with a ``DeprecationWarning``).
Everything under ``dialectica.sim`` is private and may change in any release. Metric helpers are public
in ``dialectica.metrics``.

``Library``, ``save`` and ``subplots`` are imported on first use, so that ``import dialectica.graph``
does not pull numpy and matplotlib into a graph that needs neither.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# From the private modules, sorted by module; __all__ below groups the names by what they are for.
from dialectica.sim.analysis.calibration.model import Calibration, Knob
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.faults import FaultRates, attempt, retry
from dialectica.sim.authoring.params import ConfigError, bounded
from dialectica.sim.authoring.persona import bullet, degree
from dialectica.sim.authoring.reducers import merge_lists_by_key, upsert_by_id
from dialectica.sim.authoring.scripted import ScriptedChatModel, last_human
from dialectica.sim.authoring.spec import CastOptions, Episode, EpisodeOutcome, GraphSpec, GraphView, builtin_spec, step
from dialectica.sim.authoring.termination import TerminationReason
from dialectica.sim.config.scenarios import read_yaml
from dialectica.sim.llm.structured import ask, read_json, response_format
from dialectica.sim.view.charts import LANE_LEFT, hbars, lane_frame, legend
from dialectica.sim.view.markup import Markup, esc, fmt, join, markdown, md_section, note, number, table, tag

if TYPE_CHECKING:  # imported on first use (see __getattr__); here for type checkers
    from dialectica.sim.authoring.plots import save as save
    from dialectica.sim.authoring.plots import subplots as subplots
    from dialectica.sim.authoring.retrieval import Library as Library

_LAZY = {
    "Library": "dialectica.sim.authoring.retrieval",  # numpy
    "save": "dialectica.sim.authoring.plots",  # matplotlib
    "subplots": "dialectica.sim.authoring.plots",
}

__all__ = [
    # The protocol: the spec a graph exports (built-ins through builtin_spec), the runtime context its
    # nodes receive (Episode), a node bound to it (step), what an episode returns and how it ended.
    "GraphSpec",
    "builtin_spec",
    "Episode",
    "step",
    "EpisodeOutcome",
    "TerminationReason",
    "CastOptions",
    "GraphView",
    # Params: range-checked dataclass fields, and the error a bad value or a bad scenario raises.
    "bounded",
    "ConfigError",
    # Casts: what a cast factory receives, building one, the seeded offline chat model and the text it
    # answers (last_human), persona numbers phrased for a prompt (bullet, degree); how often speakers and tools
    # fail (FaultRates, the request's ``faults``).
    "CastRequest",
    "FaultRates",
    "build_deps",
    "ScriptedChatModel",
    "last_human",
    "bullet",
    "degree",
    # Model calls inside nodes: retries with backoff, structured (JSON) replies.
    "retry",
    "attempt",
    "ask",
    "read_json",
    "response_format",
    # State and data: reducers for accumulating fields, data files, vector search over passages.
    "merge_lists_by_key",
    "upsert_by_id",
    "read_yaml",
    "Library",
    # Calibration of the scripted cast's knobs.
    "Calibration",
    "Knob",
    # The episode page's panel (escaped HTML, small SVG charts) and matplotlib figures.
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
    "hbars",
    "LANE_LEFT",
    "lane_frame",
    "legend",
    "save",
    "subplots",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later look-ups find it without this hook
        return value
    raise AttributeError(f"module 'dialectica.graph' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
