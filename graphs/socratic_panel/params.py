"""Every threshold of the Socratic panel, with the seed's values as defaults."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.graph import ConfigError, bounded

LEVELS = ("high", "medium", "low")


@dataclass(frozen=True)
class PanelParams:
    """Thresholds of the Socratic panel (``conf/graph/socratic_panel.yaml``)."""

    max_rounds: int = bounded(5, 1, 50)
    min_rounds: int = bounded(3, 1, 50)
    convergence_threshold: float = bounded(0.80, 0.0, 1.0)
    depth_requirement: int = bounded(5, 0, 50)
    evidence_completeness: float = bounded(0.85, 0.0, 1.0)
    # Voices (non-fallback answers) a round needs for agreement to be defined; null: a majority of the experts.
    quorum: int | None = bounded(None, 2, 12)
    # Question-type selection (rounds >= 3, and the round-2 quality gate).
    clarification_quality: float = bounded(0.7, 0.0, 1.0)
    question_depth: int = bounded(4, 0, 50)
    question_evidence: float = bounded(0.70, 0.0, 1.0)
    question_agreement: float = bounded(0.75, 0.0, 1.0)
    # Assumption validation scoring.
    strength_weights: dict[str, float] = bounded({"high": 1.0, "medium": 0.6, "low": 0.3}, 0.0, 10.0)
    bias_discounts: dict[str, float] = bounded({"high": 0.7, "medium": 0.85, "low": 1.0}, 0.0, 10.0)
    sample_size_bonus: float = bounded(1.2, 0.0, 10.0)
    sample_size_min: int = bounded(1000, 0, None)
    validated_cutoff: float = bounded(0.75, 0.0, 10.0)
    high_strength_cutoff: float = bounded(0.85, 0.0, 10.0)
    invalidated_cutoff: float = bounded(0.30, 0.0, 10.0)
    impact_cutoff: float = bounded(0.7, 0.0, 1.0)
    # Expert calls.
    expert_retries: int = bounded(3, 1, 20)
    retry_backoff_s: float = bounded(1.0, 0.0, 60.0)

    def validate(self) -> None:
        """Cross-field checks that a single range cannot express."""
        for key in ("strength_weights", "bias_discounts"):
            levels = getattr(self, key)
            if set(levels) != set(LEVELS):
                raise ConfigError(f"graph.{key} must have exactly the keys {', '.join(LEVELS)}, got {sorted(levels)}")
        if self.invalidated_cutoff >= self.validated_cutoff:
            raise ConfigError(
                f"graph.invalidated_cutoff={self.invalidated_cutoff} must be below "
                f"graph.validated_cutoff={self.validated_cutoff}"
            )
        if self.min_rounds > self.max_rounds:
            raise ConfigError(f"graph.min_rounds={self.min_rounds} must not exceed graph.max_rounds={self.max_rounds}")
