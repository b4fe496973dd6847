"""Dialectica: an evaluation and simulation harness for LangGraph dialogue graphs.

The installed package maps the project's top-level folders: ``dialectica.sim`` (the harness),
``dialectica.graphs`` (one folder per built-in graph), ``dialectica.metrics``, and the data folders
``dialectica.conf`` and ``dialectica.datasets``.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialectica.sim.adapter.judges import Example as Example
    from dialectica.sim.adapter.judges import LLMJudge as LLMJudge
    from dialectica.sim.adapter.judges import Verdict as Verdict
    from dialectica.sim.adapter.rubrics import rubric as rubric
    from dialectica.sim.adapter.trajectories import TrajectoryJudge as TrajectoryJudge
    from dialectica.sim.adapter.users import LLMUser as LLMUser
    from dialectica.sim.analysis.agreement import agreement_with_labels as agreement_with_labels
    from dialectica.sim.analysis.agreement import judge_examples as judge_examples
    from dialectica.sim.analysis.pairwise import pairwise as pairwise
    from dialectica.sim.authoring.params import ConfigError as ConfigError
    from dialectica.sim.config.loader import chat_model as chat_model
    from dialectica.sim.config.loader import load as load_config
    from dialectica.sim.config.typed import RunConfig as RunConfig
    from dialectica.sim.engine.evaluate import EpisodesFailed as EpisodesFailed
    from dialectica.sim.engine.evaluate import Evaluation as Evaluation
    from dialectica.sim.engine.evaluate import evaluate as evaluate
    from dialectica.sim.engine.replay import replay as replay
    from dialectica.sim.engine.runner import run as run
    from dialectica.sim.records import load_episodes as load_episodes
    from dialectica.sim.tracking.run_data import load_runs as load_runs
    from dialectica.sim.tracking.sweep_data import load_sweep as load_sweep

try:
    __version__ = version("dialectica")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ConfigError",
    "EpisodesFailed",
    "Evaluation",
    "Example",
    "LLMJudge",
    "LLMUser",
    "RunConfig",
    "TrajectoryJudge",
    "Verdict",
    "__version__",
    "agreement_with_labels",
    "chat_model",
    "evaluate",
    "judge_examples",
    "load_config",
    "load_episodes",
    "load_runs",
    "load_sweep",
    "pairwise",
    "replay",
    "rubric",
    "run",
]
# Each public name and the module it is imported from on first use, so that ``import dialectica`` stays light.
_LAZY = {
    "evaluate": "dialectica.sim.engine.evaluate",
    "Evaluation": "dialectica.sim.engine.evaluate",
    "EpisodesFailed": "dialectica.sim.engine.evaluate",
    "ConfigError": "dialectica.sim.authoring.params",  # what evaluate raises on bad input
    "LLMJudge": "dialectica.sim.adapter.judges",
    "Verdict": "dialectica.sim.adapter.judges",
    "Example": "dialectica.sim.adapter.judges",
    "LLMUser": "dialectica.sim.adapter.users",
    "TrajectoryJudge": "dialectica.sim.adapter.trajectories",
    "rubric": "dialectica.sim.adapter.rubrics",
    "replay": "dialectica.sim.engine.replay",
    "load_episodes": "dialectica.sim.records",  # keeps ``import dialectica`` free of pandas and pydantic
    "chat_model": "dialectica.sim.config.loader",
    "judge_examples": "dialectica.sim.analysis.agreement",
    "agreement_with_labels": "dialectica.sim.analysis.agreement",
    "load_sweep": "dialectica.sim.tracking.sweep_data",
    "load_runs": "dialectica.sim.tracking.run_data",
    "load_config": "dialectica.sim.config.loader:load",  # the one loader, from overrides to a checked RunConfig
    "RunConfig": "dialectica.sim.config.typed",
    "run": "dialectica.sim.engine.runner",  # the one runner of a RunConfig
    "pairwise": "dialectica.sim.analysis.pairwise",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, _, attr = _LAZY[name].partition(":")
        return getattr(import_module(module), attr or name)
    raise AttributeError(f"module 'dialectica' has no attribute {name!r}")
