"""Dialectica: an evaluation and simulation harness for LangGraph dialogue graphs.

The installed package maps the project's top-level folders: ``dialectica.sim`` (the harness),
``dialectica.graphs`` (one folder per built-in graph), ``dialectica.metrics``, and the data folders
``dialectica.conf`` and ``dialectica.datasets``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialectica.sim.adapter.evaluate import EpisodesFailed as EpisodesFailed
    from dialectica.sim.adapter.evaluate import Evaluation as Evaluation
    from dialectica.sim.adapter.evaluate import evaluate as evaluate
    from dialectica.sim.adapter.judges import Example as Example
    from dialectica.sim.adapter.judges import LLMJudge as LLMJudge
    from dialectica.sim.adapter.judges import Verdict as Verdict
    from dialectica.sim.adapter.rubrics import rubric as rubric
    from dialectica.sim.adapter.trajectories import TrajectoryJudge as TrajectoryJudge
    from dialectica.sim.adapter.users import LLMUser as LLMUser
    from dialectica.sim.analysis.agreement import judge_examples as judge_examples
    from dialectica.sim.config.loader import chat_model as chat_model
    from dialectica.sim.engine.records import load_episodes as load_episodes
    from dialectica.sim.engine.replay import replay as replay
    from dialectica.sim.tracking.sweep_data import load_sweep as load_sweep

try:
    __version__ = version("dialectica")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "EpisodesFailed",
    "Evaluation",
    "Example",
    "LLMJudge",
    "LLMUser",
    "TrajectoryJudge",
    "Verdict",
    "__version__",
    "chat_model",
    "evaluate",
    "judge_examples",
    "load_episodes",
    "load_sweep",
    "replay",
    "rubric",
]
_ADAPTER = {
    "evaluate": "evaluate",
    "Evaluation": "evaluate",
    "EpisodesFailed": "evaluate",
    "LLMJudge": "judges",
    "Verdict": "judges",
    "Example": "judges",
    "LLMUser": "users",
    "TrajectoryJudge": "trajectories",
    "rubric": "rubrics",
}


def __getattr__(name: str) -> Any:
    if name in _ADAPTER:  # lazy: ``import dialectica`` stays light
        from importlib import import_module

        return getattr(import_module(f"dialectica.sim.adapter.{_ADAPTER[name]}"), name)
    if name == "replay":  # lazy, like the rest
        from dialectica.sim.engine.replay import replay

        return replay
    if name == "load_episodes":  # lazy: keeps ``import dialectica`` free of pandas and pydantic
        from dialectica.sim.engine.records import load_episodes

        return load_episodes
    if name == "chat_model":
        from dialectica.sim.config.loader import chat_model

        return chat_model
    if name == "judge_examples":
        from dialectica.sim.analysis.agreement import judge_examples

        return judge_examples
    if name == "load_sweep":
        from dialectica.sim.tracking.sweep_data import load_sweep

        return load_sweep
    raise AttributeError(f"module 'dialectica' has no attribute {name!r}")
