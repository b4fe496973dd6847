"""Who plays a graph's participants and roles: the graph's casts, one per ``participants=`` kind."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dialectica.sim.authoring.faults import FaultRates, faulty
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.speakers import PARTICIPANT, SYSTEM, Scripted, Speakers
from dialectica.sim.authoring.spec import CastOptions, GraphSpec

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


@dataclass(frozen=True)
class CastRequest:
    """What a cast builder gets for one episode.

    Attributes:
        scenario: The episode's scenario, prepared by the graph's ``prepare_scenario``.
        seed: The episode's seed; a cast seeds every random choice from it.
        faults: How often its speakers and tools fail (``participants.failure_rate``, ``role_failure_rate`` and
            ``crash_rate``): ``participant``, ``scripted_participant`` and ``system`` give models that fail so
            (``dialectica.sim.authoring.faults``); a graph whose cast has tools (the tribunal's collectors) crashes
            them at ``faults.crash`` and routes that to its error handling.
        sleep: How a scripted voice waits (tests pass a no-op).
        embed: Sentence embeddings, for graphs whose nodes retrieve (``GraphSpec.embeds``).
        datasets: The graph's data folder.
        voices: Which model speaks for each role: the run's ``llm`` config; every role scripted when not given.
        options: The scripted cast's options (``graph.cast.*``, the graph's ``cast_options`` type).
    """

    scenario: dict[str, Any]
    seed: int
    faults: FaultRates = field(default_factory=FaultRates)
    sleep: Callable[[float], None] = field(default=time.sleep)
    embed: Callable[[list[str]], Any] | None = None
    datasets: Path = Path(".")
    voices: Speakers = field(default_factory=Scripted)
    options: Any = field(default_factory=CastOptions)

    def system(self, role: str, scripted: Callable[[], BaseChatModel]) -> BaseChatModel:
        """The model of system role ``role``: ``scripted()`` unless the ``llm`` config gives it an LLM; its calls
        fail at ``faults.role``."""
        model = self.voices.speaker(role, SYSTEM, self.seed, scripted)
        return faulty(model, self.faults.role, self.seed, role, SYSTEM)

    def participant(self, role: str, persona: str, name: str) -> BaseChatModel:
        """An LLM playing participant ``name`` (a ``role``), with ``persona`` as its system prompt; its calls fail
        at ``faults.participant``."""
        model = self.voices.speaker(role, PARTICIPANT, self.seed, None, persona=persona, name=name)
        return self.scripted_participant(name, model)

    def scripted_participant(self, name: str, model: BaseChatModel) -> BaseChatModel:
        """A scripted cast's participant ``model`` (speaker ``name``), failing at ``faults.participant`` as an LLM
        one does: the same speaker name draws the same faults in either cast."""
        return faulty(model, self.faults.participant, self.seed, name, PARTICIPANT)


CALIBRATED = "calibrated"  # the scripted cast, its personas set by the graph's calibrated set


def kinds(spec: GraphSpec) -> list[str]:
    """The ``participants=`` kinds ``spec`` can play: its casts, and ``calibrated`` where it can be calibrated."""
    return sorted([*spec.casts, *([CALIBRATED] if spec.calibration is not None and "scripted" in spec.casts else [])])


def check(spec: GraphSpec, kind: str) -> None:
    """Raises a ConfigError naming the valid choices when ``spec`` has no cast of ``kind``."""
    if kind not in kinds(spec):
        raise ConfigError(f"unknown participants={kind!r} for graph {spec.name}; valid choices: {', '.join(kinds(spec))}")


def build_deps(spec: GraphSpec, kind: str, request: CastRequest) -> Any:
    """Builds the graph's deps for one episode (a calibrated cast is the scripted one: its scenario's personas
    already carry the calibrated values)."""
    check(spec, kind)
    return spec.casts["scripted" if kind == CALIBRATED else kind](request)
