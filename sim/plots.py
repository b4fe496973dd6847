"""Figures logged with each graph run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from sim.registry import Registry  # noqa: E402

FIGURES: Registry = Registry("figure")


def converged_by_round(records: Sequence[dict[str, Any]], rounds: int) -> list[float]:
    """Share of all episodes that had converged by each round (1-based), cumulative."""
    n = len(records) or 1
    ends = [len(r["per_round"]) for r in records if r["termination_reason"] == "converged"]
    return [sum(e <= i for e in ends) / n for i in range(1, rounds + 1)]


def by_round_figure(records: Sequence[dict[str, Any]], per_round: list[dict[str, float]], title: str, path: Path) -> Path:
    """Agreement (Jaccard, embedding) and cumulative convergence against the round number."""
    xs = list(range(1, len(per_round) + 1))
    fig, ax = plt.subplots(figsize=(7.0, 4.4), dpi=110)
    for key, label in (("jaccard_agreement", "Jaccard agreement"), ("embedding_agreement", "embedding agreement")):
        ys = [row.get(key, float("nan")) for row in per_round]
        if any(y == y for y in ys):
            ax.plot(xs, ys, marker="o", label=label)
    ax.plot(xs, converged_by_round(records, len(xs)), marker="s", linestyle="--", label="converged by round (share)")
    ax.set_xlabel("round")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(xs)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize="small", frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _turns(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for r in records for t in r.get("per_round", [])]


@FIGURES.register("critic_loops")
def critic_loop_histogram(records: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """How many times the Critic sent a turn's draft back, over all tutor turns."""
    loops = [t["critic_loops"] for t in _turns(records) if t.get("move") != "SYNTHESIZE"]
    fig, ax = plt.subplots(figsize=(6.0, 3.8), dpi=110)
    top = max(loops, default=0)
    ax.hist(loops, bins=[x - 0.5 for x in range(top + 2)], rwidth=0.8, color="#4c72b0")
    ax.set_xticks(range(top + 1))
    ax.set_xlabel("critic failures in one tutor turn")
    ax.set_ylabel("turns")
    ax.set_title(f"Critic loops per turn ({len(loops)} turns)")
    fig.tight_layout()
    path = out_dir / "critic_loops.png"
    fig.savefig(path)
    plt.close(fig)
    return path


@FIGURES.register("moves")
def move_distribution(records: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """Share of turns per Socratic move."""
    from collections import Counter

    counts = Counter(t["move"] for t in _turns(records))
    total = sum(counts.values()) or 1
    names = sorted(counts)
    fig, ax = plt.subplots(figsize=(6.0, 3.8), dpi=110)
    ax.bar(names, [counts[n] / total for n in names], color="#55a868")
    ax.set_ylabel("share of turns")
    ax.set_title("Socratic moves")
    fig.tight_layout()
    path = out_dir / "moves.png"
    fig.savefig(path)
    plt.close(fig)
    return path
