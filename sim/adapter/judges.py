"""Judges: did the user get what they came for? The verdict is the episode's convergence.

A rule is any function ``judge(messages, scenario) -> bool | Verdict`` (or ``(messages, scenario, state)``
to read the graph's final state too); an :class:`LLMJudge` asks a chat model with a rubric for a JSON verdict.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from dialectica.metrics import MetricFn, Record
from dialectica.sim.adapter.users import Cast, _text, arity, qualified, takes
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.structured import instruction, read_json, response_format


@dataclass(frozen=True)
class Verdict:
    """A judge's decision.

    Attributes:
        passed: The user got what they came for (the episode converged).
        reason: Why, in a sentence (on the record and the episode page).
        ending: One of the graph's declared endings to record instead of the default (``converged`` when passed;
            else who ended the dialogue: ``user_stopped``, ``max_turns``, ``graph_ended``).
    """

    passed: bool
    reason: str = ""
    ending: str | None = None
    reasoned: bool | None = None  # an LLM judge's: False when its reason is empty or a placeholder (``empty_reason``)


def as_verdict(value: Any) -> Verdict:
    """A rule's return value as a Verdict: a bool, a Verdict, or ``(bool, reason)``."""
    if isinstance(value, Verdict):
        return value
    if isinstance(value, bool):
        return Verdict(value)
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
        return Verdict(value[0], str(value[1]))
    raise TypeError(f"a judge returns a bool, a Verdict or (bool, reason); got {value!r}")


@dataclass(frozen=True)
class RuleJudge:
    """A Python rule over the dialogue (and the graph's final state, if it takes a third argument)."""

    fn: Callable[..., Any]
    takes_state: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        signature = arity(self.fn)
        if signature is None:  # a builtin without one: its first call says
            object.__setattr__(self, "takes_state", False)
            return
        if not (takes(signature, 2) or takes(signature, 3)):
            raise ConfigError(
                f"the judge {qualified(self.fn)}{signature} takes neither (messages, scenario) nor (messages, scenario, "
                "state); valid judges: such a function returning a bool, a Verdict or (bool, reason), "
                "dialectica.LLMJudge(...), an openevals/agentevals evaluator or an MLflow scorer"
            )
        object.__setattr__(self, "takes_state", not takes(signature, 2) or _wants_state(signature))

    def judge(self, messages: list[BaseMessage], scenario: dict[str, Any], state: dict[str, Any], cast: Cast) -> Verdict:
        value = self.fn(messages, scenario, state) if self.takes_state else self.fn(messages, scenario)
        try:
            return as_verdict(value)
        except TypeError:
            raise TypeError(
                f"the judge {qualified(self.fn)} returned {value!r} ({type(value).__name__}); it must return a bool, "
                "a dialectica.Verdict(passed, reason) or (bool, reason)"
            ) from None


def _wants_state(signature: inspect.Signature) -> bool:
    """Whether a judge that may take two arguments or three wants the state: through a third positional
    parameter named ``state`` or defaulting to None, or ``*rest`` after two named ones. A third parameter with
    another default (``strict=False``) keeps it, and a bare ``(*args, **kwargs)`` wrapper gets two, as it always
    did."""
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 3:
        return positional[2].name == "state" or positional[2].default is None
    return len(positional) == 2 and any(p.kind == p.VAR_POSITIONAL for p in params)


VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string"}, "passed": {"type": "boolean"}},
    "required": ["reason", "passed"],
}


def transcript_text(messages: list[BaseMessage]) -> str:
    return "\n".join(f"{'USER' if m.type == 'human' else 'ASSISTANT'}: {_text(m)}" for m in messages)


@dataclass(frozen=True)
class Example:
    """A conversation a person judged, shown to an LLM judge as a worked example.

    Attributes:
        transcript: The conversation as text (``USER: ...`` and ``ASSISTANT: ...`` lines).
        passed: The person's verdict.
        reason: Their reason, in a sentence.
    """

    transcript: str
    passed: bool
    reason: str = ""
    episode: int | None = None  # the run's episode it came from: leave it out when measuring the judge

    def text(self, number: int) -> str:
        why = f" Reason: {self.reason}" if self.reason else ""
        return (
            f"<example {number}>\n{self.transcript}\n</example {number}>\n"
            f"A person judged example {number}: passed {str(self.passed).lower()}.{why}"
        )


@dataclass(frozen=True)
class LLMJudge:
    """A chat model that reads the dialogue against a rubric and answers ``{"reason": ..., "passed": ...}``.

    Attributes:
        rubric: What counts as success; None: the scenario's ``rubric`` key.
        model: Any langchain-core chat model; None: the run's ``llm`` config (role ``judge``: a JSON-schema
            constrained reply, seeded and cached like every call).
        examples: Conversations people judged, put in the prompt before the one to judge; usually where an earlier
            judge and people disagreed (``dialectica.judge_examples(run_dir)``).
        temperature: What the run's model samples the verdict at: 0 (the default) gives the same conversation the
            same verdict (at the run's 0.8 the 1.5B judged identical conversations differently and agreed with a
            person on 15 of 30, against 22 at 0: docs/results/verdicts-and-people.md); None: the run's
            ``llm.temperature``. A model of your own keeps its settings.
        name: Its name as an extra metric (``rubric/<name>``); the ready rubrics carry theirs (``rubrics.py``).
    """

    rubric: str | None = None
    model: BaseChatModel | None = None
    examples: tuple[Example, ...] = ()
    temperature: float | None = 0.0
    name: str = "judge"

    def __post_init__(self) -> None:
        if not all(isinstance(e, Example) for e in self.examples):
            raise ConfigError("LLMJudge(examples=...) takes Example objects (dialectica.judge_examples(run_dir) makes them)")
        object.__setattr__(self, "examples", tuple(self.examples))

    def judge(self, messages: list[BaseMessage], scenario: dict[str, Any], state: dict[str, Any], cast: Cast) -> Verdict:
        rubric = self.rubric if self.rubric is not None else scenario.get("rubric")
        if not rubric:
            raise ConfigError(
                f"scenario {scenario['name']!r} has no 'rubric' for the LLM judge; add one, or give LLMJudge(rubric=...)"
            )
        shown = "".join(f"{e.text(i)}\n\n" for i, e in enumerate(self.examples, 1))
        if shown:
            shown = (
                "First, other conversations a person has judged against a rubric like this one, to show how they "
                f"judge. They are not the conversation you judge.\n\n{shown}Now the conversation to judge.\n\n"
            )
        prompt = (
            f"{shown}Read this conversation between a user and an assistant.\n\n<conversation>\n"
            f"{transcript_text(messages)}\n</conversation>\n\n"
            f"Rubric: {rubric}\nDid the assistant meet the rubric? Give a one-sentence reason, then passed "
            "true or false."
        )
        config = RunnableConfig(callbacks=cast.callbacks)
        if self.model is None:
            model = cast.model("judge", "You are a strict, fair evaluator of conversations.")
            sampling: dict[str, Any] = {} if self.temperature is None else {"temperature": self.temperature}
            text = _text(
                model.invoke(
                    [HumanMessage(prompt)], response_format=response_format(VERDICT_SCHEMA), config=config, **sampling
                )
            )
        else:  # a model of the researcher's: the schema goes in the prompt, not as a backend-specific argument
            text = _text(self.model.invoke([HumanMessage(f"{prompt}\n{instruction(VERDICT_SCHEMA)}")], config=config))
        value = read_json(_json_part(text), VERDICT_SCHEMA)
        if value is None:
            return Verdict(False, f"the judge's reply was not a verdict: {text[:200]!r}")
        return Verdict(bool(value["passed"]), str(value["reason"]), reasoned=not empty_reason(str(value["reason"])))


# What a small model copies from the prompt's schema instead of a reason (seen from SmolLM2: "pass", "text",
# "true|false"): such a verdict was not reasoned, and is flagged.
PLACEHOLDERS = frozenset(
    "|pass|passed|fail|failed|text|true|false|true/false|reason|string|...|<reason>|one-sentence reason|n/a|none".split("|")
) | {"true|false"}


def empty_reason(reason: str) -> bool:
    """Whether an LLM judge's reason is empty or a schema placeholder rather than a reason."""
    return reason.strip().strip(".\"'").lower() in PLACEHOLDERS


def empty_reasons() -> MetricFn:
    """``judge/empty_reasons``: how many episodes' LLM-judge verdicts came with an empty or placeholder reason."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        flagged = [(r.get("metrics") or {}).get("judge_empty_reason") for r in records]
        return {"judge/empty_reasons": float(sum(v == 1 for v in flagged))} if any(v is not None for v in flagged) else {}

    return compute


def _json_part(text: str) -> str:
    """The first ``{...}`` of a reply (models wrap JSON in prose or code fences)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return text
    try:
        json.loads(text[start : end + 1])
    except ValueError:
        return text
    return text[start : end + 1]
