"""Who speaks in an episode: the two kinds of speaker, what picks each one's model, and what a speaker raises
when it fails on purpose (``dialectica.sim.authoring.faults`` draws those failures).

A graph's own roles (moderator, chair, interviewer, interlocutor, judge, ...) are ``system`` speakers; the
participants it talks to (experts, members, learners, interviewees) are ``participant`` speakers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dialectica.sim.authoring.params import ConfigError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

SYSTEM, PARTICIPANT = "system", "participant"
_KEY = {PARTICIPANT: "participants.failure_rate", SYSTEM: "participants.role_failure_rate"}


def rate_key(kind: str) -> str:
    """The config key of a ``participant`` or ``system`` speaker's failure rate."""
    return _KEY[kind]


class ParticipantUnavailable(RuntimeError):
    """A participant's call failed on purpose (``participants.failure_rate``)."""


class RoleUnavailable(RuntimeError):
    """A call of one of the graph's own roles failed on purpose (``participants.role_failure_rate``)."""


class Speakers(Protocol):
    """What picks the model of each speaker of a cast: the run's ``llm`` config (``dialectica.sim.llm.casting``'s
    ``Voices``), or :class:`Scripted` when a cast is built without one."""

    @property
    def surrogate(self) -> bool:
        """True when participants are LLMs (``participants=surrogate``)."""
        ...

    def speaker(
        self,
        role: str,
        kind: str,
        seed: int,
        scripted: Callable[[], BaseChatModel] | None,
        persona: str | None = None,
        name: str | None = None,
    ) -> BaseChatModel:
        """The model for ``role`` (a ``kind`` speaker): ``scripted()``, or an LLM the config gives it."""
        ...

    def is_llm(self, role: str, kind: str) -> bool:
        """Whether an LLM speaks for ``role``."""
        ...


def scripted_voice(role: str, scripted: Callable[[], BaseChatModel] | None) -> BaseChatModel:
    """``scripted()``; a ConfigError when ``role`` has no scripted voice."""
    if scripted is None:
        raise ConfigError(f"llm.roles.{role}=scripted is not possible here: this cast has no scripted {role}")
    return scripted()


@dataclass(frozen=True)
class Scripted:
    """Every role speaks with its scripted voice (what the default ``llm`` config gives)."""

    surrogate: bool = False

    def speaker(
        self,
        role: str,
        kind: str,
        seed: int,
        scripted: Callable[[], BaseChatModel] | None,
        persona: str | None = None,
        name: str | None = None,
    ) -> BaseChatModel:
        return scripted_voice(role, scripted)

    def is_llm(self, role: str, kind: str) -> bool:
        return False
