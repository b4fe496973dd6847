"""Metrics of turn-by-turn tutoring graphs (maieutic), pooled over every turn of every episode."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from dialectica.graphs.maieutic.critic import CHECKS
from dialectica.graphs.maieutic.state import MOVES
from dialectica.metrics import MetricFn, Record, converged
from dialectica.metrics.stats import mean


def _turns(records: Sequence[Record]) -> list[dict[str, Any]]:
    return [t for r in records if r["termination_reason"] != "error" for t in r["per_round"]]


def moves() -> MetricFn:
    """``moves/<MOVE>``: share of all turns (the synthesis included) that made each Socratic move (all listed)."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        counts = Counter(t["move"] for t in _turns(records))
        total = sum(counts.values()) or 1
        return {f"moves/{m}": counts[m] / total for m in MOVES}

    return compute


def critic() -> MetricFn:
    """Critic behaviour over tutor turns (every turn but the synthesis), pooled over episodes:
    ``critic_failures/<check>``, each check's share of all failed checks of all drafts (0 when none failed);
    ``compliance_before_critic``, the share of turns whose first draft passed every check;
    ``compliance_after_critic``, the share whose delivered reply passes every check; ``critic_cap_rate``,
    the share where the cap cut the loop."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        turns = [t for t in _turns(records) if t["move"] != "SYNTHESIZE"]
        failures = {c: sum(t.get(f"failed/{c}", 0) for t in turns) for c in CHECKS}
        total = sum(failures.values())
        out = {f"critic_failures/{c}": (n / total if total else 0.0) for c, n in failures.items()}
        if turns:
            out |= {
                "compliance_before_critic": mean([float(t["first_draft_ok"]) for t in turns]),
                "compliance_after_critic": mean([float(t["delivered_ok"]) for t in turns]),
                "critic_cap_rate": mean([float(t["cap_reached"]) for t in turns]),
            }
        return out

    return compute


def retrieval() -> MetricFn:
    """Librarian, over all searches: ``retrieval_hit_rate``, the share with a passage at or above the floor;
    ``retrieval_similarity_mean``, the mean over searches with hits of their hits' mean similarity;
    ``retrieval_best_similarity_mean``, the mean best similarity found, above the floor or not."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        searches = [t for t in _turns(records) if t.get("retrieved")]
        if not searches:
            return {}
        hits = [t["hit_similarity_mean"] for t in searches if t.get("hit_similarity_mean") is not None]
        return {
            "retrieval_hit_rate": sum(t["hits"] > 0 for t in searches) / len(searches),
            "retrieval_similarity_mean": mean(hits),
            "retrieval_best_similarity_mean": mean([t["best_similarity"] for t in searches]),
        }

    return compute


def turns_to_synthesis() -> MetricFn:
    """``turns_to_synthesis_mean``: mean learner turns of the episodes that converged (synthesis or aporia; the
    last turn, which Sophia answered with the synthesis, included); absent when none did."""

    def compute(records: Sequence[Record]) -> dict[str, float]:
        done = [len(r["per_round"]) for r in records if converged(r)]
        return {"turns_to_synthesis_mean": mean(done)} if done else {}

    return compute
