"""Figures logged with each graph run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


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
