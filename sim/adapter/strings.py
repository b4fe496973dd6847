"""Users and judges named on the command line: ``graph.user=package.module:fn``, ``graph.judge=package.module:fn``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dialectica.sim.adapter.app import import_object
from dialectica.sim.adapter.judges import RuleJudge
from dialectica.sim.adapter.users import ScriptedUser
from dialectica.sim.authoring.params import ConfigError


def _named(key: str, target: str, method: str, wrap: Callable[[Any], Any], expected: str) -> Any:
    """The object ``target`` names: as it is when it has ``method``, else a function wrapped by ``wrap``."""
    obj = import_object(target)
    if hasattr(obj, method):
        return obj
    if callable(obj):
        return wrap(obj)
    raise ConfigError(f"{key}={target}: expected {expected}, got {type(obj).__name__}")


def user_from(target: str) -> Any:
    """``graph.user``: a user object (``speaker``), or a function ``(messages, scenario, rng) -> str | None``."""
    return _named("graph.user", target, "speaker", ScriptedUser, "a function (messages, scenario, rng) -> str | None")


def judge_from(target: str) -> Any:
    """``graph.judge``: a judge object (``judge``), or a rule ``(messages, scenario[, state]) -> bool | Verdict``."""
    from dialectica.sim.adapter.ecosystem import EvaluatorJudge, is_evaluator

    return _named(
        "graph.judge",
        target,
        "judge",
        lambda fn: EvaluatorJudge(fn) if is_evaluator(fn) else RuleJudge(fn),
        "llm, trajectory, a function (messages, scenario) -> bool, an openevals evaluator or an MLflow scorer",
    )
