"""Simulated faults: speakers that, now and then, do not answer; and how a graph retries them.

``participants.failure_rate`` is the chance that one call of a participant (expert, member, learner,
interviewee) raises ``ParticipantUnavailable``; ``participants.role_failure_rate`` the chance that one call
of a graph's own role (moderator, chair, interviewer, interlocutor, judge, ...) raises ``RoleUnavailable``
(both in ``dialectica.sim.authoring.speakers``). The same wrapper (``dialectica.sim.authoring.faulty``) serves
scripted and LLM speakers alike. Each speaker draws from its own stream,
``random.Random(f"{seed}:{name}:faults")``, so the same seed and config fail the same calls, and no other draw
of the episode moves: at rate 0 the model is returned unwrapped.

Graphs retry a failed call (``attempt``, ``retry``) and then fall back or give up, each as its own
design says.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.speakers import PARTICIPANT

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

T = TypeVar("T")


@dataclass(frozen=True)
class FaultRates:
    """How often simulated speakers and tools fail: one value, carried from config to cast.

    Attributes:
        participant: Chance that one participant call raises (``participants.failure_rate``), in [0, 1).
        role: Chance that one call of a graph's own role raises (``participants.role_failure_rate``), in [0, 1).
        crash: Chance that one of the cast's tools crashes outright (``participants.crash_rate``), in [0, 1].
    """

    participant: float = 0.0
    role: float = 0.0
    crash: float = 0.0

    @classmethod
    def from_config(cls, participants: Mapping[str, Any]) -> FaultRates:
        """The rates of the ``participants`` config group, each range-checked.

        Raises:
            ConfigError: one line naming the key and its valid range.
        """
        rates = {}
        for name, key, top in (
            ("participant", "failure_rate", "1)"),
            ("role", "role_failure_rate", "1)"),
            ("crash", "crash_rate", "1]"),
        ):
            value = participants.get(key, 0.0)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not (0 <= value <= 1 if top == "1]" else 0 <= value < 1)
            ):
                raise ConfigError(f"participants.{key}={value!r} is out of range; valid range: [0, {top}")
            rates[name] = float(value)
        return cls(**rates)


def faulty(model: BaseChatModel, rate: float, seed: int, speaker: str, kind: str = PARTICIPANT) -> BaseChatModel:
    """``model`` failing each call with chance ``rate``, drawn from ``random.Random(f"{seed}:{speaker}:faults")``;
    ``model`` itself when ``rate`` is 0."""
    if not rate:
        return model
    from dialectica.sim.authoring.faulty import FaultyChatModel  # lazy: start-up (langchain-core's chat models)

    return FaultyChatModel(
        inner=model, rate=rate, speaker=speaker, kind=kind, draws=random.Random(f"{seed}:{speaker}:faults")
    )


def attempt(
    call: Callable[[], T], tries: int = 2, backoff_s: float = 0.0, sleep: Callable[[float], None] = time.sleep
) -> tuple[T | None, int, str | None]:
    """Calls ``call`` until it returns, ``tries`` calls at most, waiting ``backoff_s * 2**k`` after failure k
    (none after the last).

    Returns:
        (value, calls made, None), or (None, ``tries``, ``"Type: message"`` of the last failure) when every
        call raised.
    """
    error = None
    for k in range(tries):
        try:
            return call(), k + 1, None
        except Exception as exc:  # noqa: BLE001 - any model failure gets the same retry
            error = f"{type(exc).__name__}: {exc}"
            if k < tries - 1:
                sleep(backoff_s * 2**k)
    return None, tries, error


def retry(call: Callable[[], T], tries: int = 2, backoff_s: float = 0.0, sleep: Callable[[float], None] = time.sleep) -> T:
    """``call()``'s value, calling again after a failure (``tries`` calls at most, backing off as ``attempt``
    does); the last failure is raised."""
    for k in range(tries - 1):
        try:
            return call()
        except Exception:  # noqa: BLE001 - any model failure gets the same retry
            sleep(backoff_s * 2**k)
    return call()
