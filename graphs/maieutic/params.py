"""Every threshold of the maieutic tutor (``conf/graph/maieutic.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.graph import ConfigError, bounded

CAP_ACTIONS = ("release", "fallback")


@dataclass(frozen=True)
class MaieuticParams:
    """Thresholds of Sophia, the seed's values as defaults."""

    max_turns: int = bounded(12, 1, 200)
    frustration_threshold: float = bounded(7.0, 0.0, 10.0)  # above it the move is forced to ELICIT
    circling_limit: int = bounded(3, 1, 50)  # returns to an earlier thesis before SYNTHESIZE
    min_exchanges: int = bounded(3, 0, 200)  # Sophia's turns before an ending counts as synthesis or aporia
    similarity_floor: float = bounded(0.75, -1.0, 1.0)  # Librarian discards passages below it
    top_k: int = bounded(3, 1, 20)
    interlocutor_max_sentences: int = bounded(3, 1, 20)  # the Maieutic Standard's rule 2
    critic_max_sentences: int = bounded(4, 1, 20)  # the Critic's check 1
    critic_cap: int = bounded(3, 1, 20)  # critic failures in one turn before the loop is cut
    at_cap: str = "release"  # release the last draft, or fallback to a plain safe question
    why_query_template: str = "philosophical arguments against {thesis}"

    def validate(self) -> None:
        if self.at_cap not in CAP_ACTIONS:
            raise ConfigError(f"graph.at_cap={self.at_cap!r} is invalid; valid choices: {', '.join(CAP_ACTIONS)}")
        if "{thesis}" not in self.why_query_template:
            raise ConfigError("graph.why_query_template must contain {thesis}")


@dataclass(frozen=True)
class SophiaCastOptions:
    """Sophia's scripted voice (``graph.cast.*``), for the system roles left scripted."""

    discipline: float = bounded(0.8, 0.0, 1.0)  # chance a first draft keeps each rule of the Maieutic Standard
    compliance: float = bounded(0.85, 0.0, 1.0)  # chance a redraft fixes what the Critic named
