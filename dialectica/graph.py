"""What a graph author imports: the one public module for native graphs and plugins.

A graph (a built-in folder under ``graphs/`` or a third-party plugin) exports one :class:`GraphSpec`
and builds it from the names below; it imports nothing from ``dialectica.sim``. What it draws (its page
panel, its figures) comes from ``dialectica.pages``, and what it declares to be calibrated from
``dialectica.calibration``.

Stability: the names listed in ``__all__`` are the public surface. They change only after a
deprecation period of one minor release (the old name keeps working, with a ``DeprecationWarning``).
Nothing under ``dialectica.sim`` is part of the author surface: it may change in any release, except the
entry points for running that the docs name (``dialectica.sim.config.load``, ``dialectica.sim.engine.run``) and
those re-exported by ``dialectica``. Metric helpers are public in ``dialectica.metrics``.

Deprecated here, kept for one release: the page helpers (``Markup``, ``esc``, ``fmt``, ``join``, ``markdown``,
``md_section``, ``note``, ``number``, ``table``, ``tag``, ``hbars``, ``LANE_LEFT``, ``lane_frame``, ``legend``,
``save``, ``subplots``), now in ``dialectica.pages``, and ``Calibration`` and ``Knob``, now in
``dialectica.calibration``: they still import from here, with a ``DeprecationWarning``.

``Library``, ``ScriptedChatModel`` and ``last_human`` are imported on first use, so that ``import
dialectica.graph`` pulls in neither numpy nor langchain-core's language models (and langsmith's run trees)
for a module that needs neither.
"""

from __future__ import annotations

import warnings
from importlib import import_module
from typing import TYPE_CHECKING, Any

# From the private modules, sorted by module; __all__ below groups the names by what they are for.
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.data import read_yaml
from dialectica.sim.authoring.faults import FaultRates, attempt, retry
from dialectica.sim.authoring.params import ConfigError, bounded
from dialectica.sim.authoring.persona import bullet, degree
from dialectica.sim.authoring.reducers import merge_lists_by_key, upsert_by_id
from dialectica.sim.authoring.spec import CastOptions, Episode, EpisodeOutcome, GraphSpec, GraphView, builtin_spec, step
from dialectica.sim.authoring.structured import ask, complete_items, read_json, response_format
from dialectica.sim.authoring.termination import TerminationReason

if TYPE_CHECKING:  # imported on first use (see __getattr__); here for type checkers
    from dialectica.sim.authoring.retrieval import Library as Library
    from dialectica.sim.authoring.scripted import ScriptedChatModel as ScriptedChatModel
    from dialectica.sim.authoring.scripted import last_human as last_human

_LAZY = {  # lazy: start-up (what each would import with this module)
    "Library": "dialectica.sim.authoring.retrieval",  # numpy
    "ScriptedChatModel": "dialectica.sim.authoring.scripted",  # langchain-core's language models, langsmith
    "last_human": "dialectica.sim.authoring.scripted",
}

# Moved to their own public modules; here for one release, with a DeprecationWarning (see __getattr__).
_PAGES = "Markup esc fmt join markdown md_section note number table tag hbars LANE_LEFT lane_frame legend save subplots"
_MOVED = dict.fromkeys(_PAGES.split(), "dialectica.pages") | dict.fromkeys(("Calibration", "Knob"), "dialectica.calibration")

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
    # Model calls inside nodes: retries with backoff, structured (JSON) replies, what a cut-off one still holds.
    "retry",
    "attempt",
    "ask",
    "read_json",
    "complete_items",
    "response_format",
    # State and data: reducers for accumulating fields, data files, vector search over passages.
    "merge_lists_by_key",
    "upsert_by_id",
    "read_yaml",
    "Library",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value  # once: later look-ups find it without this hook
        return value
    if name in _MOVED:  # not cached: every use warns
        module = _MOVED[name]
        warnings.warn(
            f"dialectica.graph.{name} moved to {module}.{name}; import it from {module} "
            "(dialectica.graph stops exporting it in the next minor release)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module(module), name)
    raise AttributeError(f"module 'dialectica.graph' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
