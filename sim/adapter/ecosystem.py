"""Evaluators from the ecosystem, as they are: an openevals or agentevals evaluator (``evaluator(*, outputs,
reference_outputs, ...) -> {"key", "score", "comment"}``) or an MLflow scorer (``@scorer`` functions, built-in and
``make_judge`` judges), as the judge (``judge=``) or as extra per-episode metrics (``metrics=[...]``).

Each is called once an episode ends, with:

- ``inputs``: the scenario, as written (its own keys included);
- ``outputs``: the conversation as OpenAI-style messages (``role``, ``content``, ``tool_calls``): the graph's own
  ``messages`` when its state keeps them (tool calls and results included), else the dialogue the user saw. An
  MLflow built-in scorer (``RegexMatch``, ``Guidelines``, ...) reads one response from ``outputs``, taking a list as a
  batch of which it reads the first: it gets MLflow's chat shape, ``{"messages": [...]}`` up to the graph's final
  reply, which it reads (``final_reply``);
- ``reference_outputs`` (openevals) / ``expectations`` (MLflow): the scenario's ``reference_outputs``, else its
  ``expected_tools`` as assistant tool-call messages (a name alone with arguments ``{}``: agentevals' ``superset``
  and ``subset`` match them with ``tool_args_match_mode="ignore"``, and ``unordered`` matches the same calls in any
  order; its ``strict`` compares whole trajectories message by message, so it needs ``reference_outputs``). An
  openevals or agentevals evaluator that takes ``reference_outputs`` without a default is not called on a scenario
  that has neither: as the judge the scenario is refused before any episode runs, as a metric its score is
  undefined.

What they return becomes ``Score`` s: a bool or yes/no is 1 or 0, a number stays a number, anything else is NaN
with the value in the comment.
"""

from __future__ import annotations

import inspect
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dialectica.metrics.trajectory import expected_call
from dialectica.sim.authoring.params import ConfigError


@dataclass(frozen=True)
class Score:
    """One evaluator's score of one episode: its key (the evaluator's, or its name), the value, and the comment."""

    key: str
    value: float
    comment: str = ""


def is_mlflow_scorer(obj: Any) -> bool:
    """An MLflow ``Scorer`` (checked without importing MLflow when nothing imported it)."""
    base = sys.modules.get("mlflow.genai.scorers.base")
    return base is not None and isinstance(obj, base.Scorer)


def is_builtin_scorer(obj: Any) -> bool:
    """One of MLflow's built-in scorers, which read a single response from ``outputs``."""
    builtin = sys.modules.get("mlflow.genai.scorers.builtin_scorers")
    return builtin is not None and isinstance(obj, builtin.BuiltInScorer)


def final_reply(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """MLflow's chat shape of a conversation, ``{"messages": [...]}``, ending at its last assistant message with text:
    what MLflow's built-in scorers read as the response (a user's closing line or a tool call after it is not)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant" and m.get("content")), default=None)
    return {"messages": messages if last is None else messages[: last + 1]}


def is_evaluator(obj: Any) -> bool:
    """An MLflow scorer, or a callable taking ``outputs`` by keyword (openevals' and agentevals' evaluators)."""
    if is_mlflow_scorer(obj):
        return True
    if hasattr(obj, "judge"):  # one of ours (an LLMJudge with a ready rubric): scored by its verdict
        return False
    if not callable(obj):
        return False
    try:
        parameters = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False
    return "outputs" in parameters and parameters["outputs"].kind == inspect.Parameter.KEYWORD_ONLY


def check(evaluator: Any) -> Any:
    """``evaluator``, once it is known to take what it is called with: ``inputs``, ``outputs`` and
    ``reference_outputs`` by keyword (an MLflow scorer takes what it declares).

    Raises:
        ConfigError: naming the evaluator, its signature and what to add.
    """
    if is_mlflow_scorer(evaluator):
        return evaluator
    try:
        inspect.signature(evaluator).bind(inputs={}, outputs=[], reference_outputs=None)
    except TypeError:
        raise ConfigError(
            f"the evaluator {name_of(evaluator)}{inspect.signature(evaluator)} is called with inputs=, outputs= and "
            "reference_outputs=; take all three by keyword, or add **kwargs for those it does not read"
        ) from None
    except ValueError:  # no signature to read: its first call says
        pass
    return evaluator


def conversation(messages: Sequence[Any], state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The episode as OpenAI-style messages: the graph's own ``messages`` when it keeps them, else ``messages``."""
    from langchain_core.messages import BaseMessage, convert_to_openai_messages

    own = state.get("messages") if isinstance(state, Mapping) else None
    chosen = own if isinstance(own, list) and own and all(isinstance(m, BaseMessage) for m in own) else messages
    return list(convert_to_openai_messages(list(chosen)))


def reference(scenario: Mapping[str, Any]) -> Any:
    """What the scenario says should come out: ``reference_outputs``, else ``expected_tools`` as tool-call messages."""
    if "reference_outputs" in scenario:
        return scenario["reference_outputs"]
    if "expected_tools" in scenario:
        calls = [expected_call(e) for e in scenario["expected_tools"]]
        return [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": c["name"], "arguments": json.dumps(c["args"])}}],
            }
            for c in calls
        ]
    return None


NO_REFERENCE = "the scenario has no reference_outputs or expected_tools: nothing to compare with"


def needs_reference(evaluator: Any) -> bool:
    """Whether ``evaluator`` is one of openevals' or agentevals' that take ``reference_outputs`` without a default
    (agentevals' trajectory match, openevals' exact match): called with none, it would compare the outputs with
    None (agentevals' superset match counts that a match). An evaluator of your own is called as it is."""
    if str(getattr(evaluator, "__module__", "")).partition(".")[0] not in ("openevals", "agentevals"):
        return False
    try:
        given = inspect.signature(evaluator).parameters.get("reference_outputs")
    except (TypeError, ValueError):
        return False
    return given is not None and given.default is inspect.Parameter.empty


def _value(raw: Any) -> tuple[float, str]:
    if isinstance(raw, (bool, int, float)):
        return float(raw), ""
    if isinstance(raw, str) and raw.strip().lower() in ("yes", "no", "true", "false", "pass", "fail"):
        return float(raw.strip().lower() in ("yes", "true", "pass")), ""
    return math.nan, f"unreadable score {raw!r}"


def name_of(evaluator: Any) -> str:
    """The evaluator's name: an MLflow scorer's ``name``, else the function's (openevals' closures are named
    after what they build, so the key in their result is preferred)."""
    return str(getattr(evaluator, "name", None) or getattr(evaluator, "__name__", None) or type(evaluator).__name__)


def scores(evaluator: Any, scenario: Mapping[str, Any], messages: Sequence[Any], state: Mapping[str, Any]) -> list[Score]:
    """Calls ``evaluator`` on one finished episode; its results as ``Score`` s (at least one)."""
    outputs, ref = conversation(messages, state), reference(scenario)
    if is_mlflow_scorer(evaluator):
        expectations = scenario.get("expectations") or ({"reference_outputs": ref} if ref is not None else None)
        given = final_reply(outputs) if is_builtin_scorer(evaluator) else outputs
        raw = evaluator.run(inputs=dict(scenario), outputs=given, expectations=expectations)  # passes what it takes
        out = []
        for item in raw if isinstance(raw, list) else [raw]:
            if hasattr(item, "value"):  # an MLflow Feedback
                value, note = _value(item.value)
                key = name_of(evaluator) if getattr(item, "name", "feedback") == "feedback" else str(item.name)
                out.append(Score(key, value, str(getattr(item, "rationale", None) or note)))
            else:
                out.append(Score(name_of(evaluator), *_value(item)))
        return out
    raw = evaluator(inputs=dict(scenario), outputs=outputs, reference_outputs=ref)
    out = []
    for item in raw if isinstance(raw, list) else [raw]:
        if isinstance(item, Mapping):
            value, note = _value(item.get("score"))
            out.append(Score(str(item.get("key") or name_of(evaluator)), value, str(item.get("comment") or note)))
        else:
            out.append(Score(name_of(evaluator), *_value(item)))
    if not out:
        raise ValueError(f"evaluator {name_of(evaluator)} returned no score")
    return out


@dataclass(frozen=True)
class EvaluatorJudge:
    """An ecosystem evaluator as the judge: the episode passes when its (first) score is at least ``passing``
    (0.5: a bool's True, a 0-1 score's upper half; give ``passing=4`` for a 1-5 scale)."""

    evaluator: Any
    passing: float = 0.5

    def judge(self, messages: list[Any], scenario: dict[str, Any], state: dict[str, Any], cast: Any) -> Any:
        from dialectica.sim.adapter.judges import Verdict  # lazy: start-up (langchain-core, langsmith)

        first = scores(self.evaluator, scenario, messages, state)[0]
        passed = not math.isnan(first.value) and first.value >= self.passing
        return Verdict(passed, first.comment or f"{first.key}: {first.value:g}")
