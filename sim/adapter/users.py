"""Simulated users for graphs on LangGraph's messages convention.

A user is a factory: per episode, ``speaker(scenario, seed, cast)`` gives a function from the dialogue so far
(``HumanMessage`` = the user, ``AIMessage`` = the graph) to the user's next turn, or None when the user stops.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from dialectica.sim.authoring.params import ConfigError

Speaker = Callable[[list[BaseMessage]], "str | None"]
UserFn = Callable[[list[BaseMessage], dict[str, Any], random.Random], "str | None"]
STOP = "<END>"  # what an LLM user says when it is done, unless told otherwise


class Cast(Protocol):
    """What a user needs of the episode: its model for a role, and the callbacks that meter calls."""

    def model(self, role: str, persona: str) -> BaseChatModel: ...

    callbacks: list[Any]


class User(Protocol):
    kind: str  # the ``participants=`` kind it plays as: scripted or surrogate

    def speaker(self, scenario: dict[str, Any], seed: int, cast: Cast) -> Speaker: ...


@dataclass(frozen=True)
class Turns:
    """Fixed turns, said in order; the user stops when they run out.

    Attributes:
        turns: One list for every scenario, a mapping of scenario name to list, or None for each scenario's
            own ``turns`` key.
    """

    turns: Sequence[str] | Mapping[str, Sequence[str]] | None = None
    kind = "scripted"

    def speaker(self, scenario: dict[str, Any], seed: int, cast: Cast) -> Speaker:
        given = self.turns
        if given is None:
            lines = scenario.get("turns")
        elif isinstance(given, Mapping):
            lines = given.get(scenario["name"])
        else:
            lines = given
        if lines is None:
            raise ConfigError(
                f"scenario {scenario['name']!r} has no 'turns' for a scripted user; add a list of turns "
                "to it, or give a user (a callable, or LLMUser with participants=surrogate)"
            )
        queue = list(lines)

        def say(messages: list[BaseMessage]) -> str | None:
            return queue.pop(0) if queue else None

        return say


@dataclass(frozen=True)
class ScriptedUser:
    """A seeded Python user: ``fn(messages, scenario, rng) -> str | None`` (None: the user stops); ``scenario`` is
    the scenario's mapping as written, ``rng`` a ``random.Random`` seeded per episode."""

    fn: UserFn
    kind = "scripted"

    def __post_init__(self) -> None:
        signature = arity(self.fn)
        if signature is not None and not takes(signature, 3):
            raise ConfigError(
                f"the user function {qualified(self.fn)}{signature} does not take (messages, scenario, rng); valid "
                "users: such a function returning the next turn or None, a list of turns, a mapping of scenario "
                "name -> turns, dialectica.LLMUser(...)"
            )

    def speaker(self, scenario: dict[str, Any], seed: int, cast: Cast) -> Speaker:
        rng = random.Random(seed)

        def say(messages: list[BaseMessage]) -> str | None:
            turn = self.fn(messages, scenario, rng)
            if turn is not None and not isinstance(turn, str):
                raise TypeError(
                    f"the user function {qualified(self.fn)} returned {turn!r} ({type(turn).__name__}); it must return "
                    "the user's next turn as a str, or None when the user stops"
                )
            return turn

        return say


def arity(fn: Callable[..., Any]) -> inspect.Signature | None:
    """``fn``'s signature; None for a builtin without one (its first call says what is wrong)."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def takes(signature: inspect.Signature, count: int) -> bool:
    """Whether ``count`` positional arguments bind to ``signature``."""
    try:
        signature.bind(*range(count))
    except TypeError:
        return False
    return True


def qualified(fn: Any) -> str:
    """``module.name`` of a function, for messages."""
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', type(fn).__name__)}"


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(part if isinstance(part, str) else str(part.get("text", "")) for part in content)


def persona_prompt(persona: str, instructions: str, stop: str) -> str:
    """The system prompt of an LLM user: who it is, what it wants, how to end."""
    parts = [
        "You are a person talking to an assistant. Stay in character; write only what you would say, "
        "in one or two sentences.",
        f"Who you are: {persona}" if persona else "",
        f"What you want: {instructions}" if instructions else "",
        f"When you have what you came for, or you give up, reply with {stop} alone.",
    ]
    return "\n".join(p for p in parts if p)


@dataclass(frozen=True)
class LLMUser:
    """A user played by a chat model from a persona.

    Attributes:
        persona: Who the user is; None: the scenario's ``persona`` key.
        instructions: What the user wants; None: the scenario's ``instructions`` key.
        model: Any langchain-core chat model; None: the run's ``llm`` config (role ``user``: seeded, cached,
            metered like every call).
        opening: Fixed first turns said before the model takes over; empty: the scenario's ``opening`` key.
        stop: The phrase with which the model ends the dialogue.
    """

    persona: str | None = None
    instructions: str | None = None
    model: BaseChatModel | None = None
    opening: Sequence[str] = ()
    stop: str = STOP
    kind = "surrogate"

    def speaker(self, scenario: dict[str, Any], seed: int, cast: Cast) -> Speaker:
        persona = self.persona if self.persona is not None else str(scenario.get("persona", ""))
        instructions = self.instructions if self.instructions is not None else str(scenario.get("instructions", ""))
        if not persona and not instructions:
            raise ConfigError(
                f"scenario {scenario['name']!r} has neither 'persona' nor 'instructions' for an LLM user; "
                "add one of them, or give LLMUser(persona=...)"
            )
        opening = list(self.opening or scenario.get("opening") or ())
        stop = str(scenario.get("stop", self.stop))
        prompt = persona_prompt(persona, instructions, stop)
        model = cast.model("user", prompt) if self.model is None else self.model

        def say(messages: list[BaseMessage]) -> str | None:
            said = sum(m.type == "human" for m in messages)
            if said < len(opening):
                return str(opening[said])
            # the user's view: the graph's words come to it as the other party's, its own as its own
            flipped: list[BaseMessage] = [
                AIMessage(_text(m)) if m.type == "human" else HumanMessage(_text(m)) for m in messages
            ]
            if self.model is not None:
                flipped.insert(0, SystemMessage(prompt))
            reply = _text(
                model.invoke(
                    flipped or [HumanMessage("(The assistant waits for you to speak first.)")],
                    config={"callbacks": cast.callbacks},
                )
            ).strip()
            if not reply or stop in reply:
                return None
            return reply

        return say
