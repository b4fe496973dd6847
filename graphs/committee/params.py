"""Settings of the committee (``conf/graph/committee.yaml``), the seed's values as defaults."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.graph import ConfigError, bounded
from dialectica.metrics.agreement import majority

MECHANISMS = ("majority", "consensus", "weighted")


@dataclass(frozen=True)
class CommitteeParams:
    committee_size: int = bounded(7, 5, 12)
    max_rounds: int = bounded(3, 1, 20)  # deliberation cycles (evidence -> ... -> vote)
    divergence_threshold: float = bounded(0.3, 0.0, 1.0)  # above it the committee holds rebuttals
    consensus_threshold: float = bounded(0.75, 0.0, 1.0)
    vote_weight: float = bounded(0.5, 0.0, 1.0)  # the detector's weights: vote share,
    semantic_weight: float = bounded(0.3, 0.0, 1.0)  # semantic agreement of rationales,
    confidence_weight: float = bounded(0.2, 0.0, 1.0)  # and mean confidence
    voting_mechanism: str = "majority"
    # Votes that must be cast (not fallbacks) for consensus to count; null: a majority of the seated members.
    quorum: int | None = bounded(None, 2, 12)
    evidence_top_k: int = bounded(10, 1, 100)  # evidence pool retrieved for the question

    def validate(self) -> None:
        if self.voting_mechanism not in MECHANISMS:
            raise ConfigError(
                f"graph.voting_mechanism={self.voting_mechanism!r} is invalid; valid choices: {', '.join(MECHANISMS)}"
            )
        total = self.vote_weight + self.semantic_weight + self.confidence_weight
        if abs(total - 1.0) > 1e-6:
            raise ConfigError(f"graph.vote_weight + semantic_weight + confidence_weight must be 1, got {total:g}")
        if self.quorum is not None and self.quorum > self.committee_size:
            raise ConfigError(
                f"graph.quorum={self.quorum} is out of range; valid range: [2, graph.committee_size={self.committee_size}]"
            )

    @property
    def seated_quorum(self) -> int:
        """The quorum in force: ``quorum``, or a majority of the ``committee_size`` seated members."""
        return self.quorum if self.quorum is not None else majority(self.committee_size)
