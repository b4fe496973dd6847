"""Users and judges named on the command line: ``graph.user=package.module:fn``, ``graph.judge=package.module:fn``."""

from __future__ import annotations

from typing import Any

from dialectica.sim.adapter.app import import_object
from dialectica.sim.adapter.judges import RuleJudge
from dialectica.sim.adapter.users import ScriptedUser
from dialectica.sim.params import ConfigError


def user_from(target: str) -> Any:
    """``graph.user``: a user object (``speaker``), or a function ``(messages, scenario, rng) -> str | None``."""
    obj = import_object(target)
    if hasattr(obj, "speaker"):
        return obj
    if callable(obj):
        return ScriptedUser(obj)
    raise ConfigError(f"graph.user={target}: expected a function (messages, scenario, rng) -> str | None, "
                      f"got {type(obj).__name__}")


def judge_from(target: str) -> Any:
    """``graph.judge``: a judge object (``judge``), or a rule ``(messages, scenario[, state]) -> bool | Verdict``."""
    obj = import_object(target)
    if hasattr(obj, "judge"):
        return obj
    if callable(obj):
        return RuleJudge(obj)
    raise ConfigError(f"graph.judge={target}: expected llm, or a function (messages, scenario) -> bool, "
                      f"got {type(obj).__name__}")
