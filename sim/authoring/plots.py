"""Figures logged with each graph run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dialectica.metrics import Record, converged

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def subplots(nrows: int = 1, ncols: int = 1, *, squeeze: bool = True, **figure: Any) -> tuple[Figure, Any]:
    """A figure and its axes, like ``pyplot.subplots`` but without pyplot's global state and import cost
    (figures are only ever written to files here). matplotlib is imported here, when a figure is drawn: a
    command that draws none (bad input, ``list``, ``--help``) starts without it."""
    from matplotlib.figure import Figure

    fig = Figure(**figure)
    return fig, fig.subplots(nrows, ncols, squeeze=squeeze)


def save(fig: Figure, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    fig.tight_layout(rect=rect)
    fig.savefig(path)
    return path


def converged_by_round(records: Sequence[Record], rounds: int) -> list[float]:
    """Share of all episodes that had converged by each round (1-based), cumulative."""
    n = len(records) or 1
    ends = [len(r["per_round"]) for r in records if converged(r)]
    return [sum(e <= i for e in ends) / n for i in range(1, rounds + 1)]


def by_round_figure(records: Sequence[Record], per_round: list[dict[str, float]], graph: str, path: Path) -> Path:
    """Agreement (Jaccard, embedding: where the graph measures it) and cumulative convergence against the round
    number, titled by what it draws."""
    xs = list(range(1, len(per_round) + 1))
    fig, ax = subplots(figsize=(7.0, 4.4), dpi=110)
    agreement = False
    for key, label in (("jaccard_agreement", "Jaccard agreement"), ("embedding_agreement", "embedding agreement")):
        ys = [row.get(key, float("nan")) for row in per_round]
        if any(y == y for y in ys):
            ax.plot(xs, ys, marker="o", label=label)
            agreement = True
    title = f"{graph}: {'agreement and convergence' if agreement else 'convergence'} by round"
    ax.plot(xs, converged_by_round(records, len(xs)), marker="s", linestyle="--", label="converged by round (share)")
    ax.set_xlabel("round")
    ax.set_ylim(0, 1.05)
    ax.set_xticks(xs)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize="small", frameon=False)
    return save(fig, path)


def node_times(records: Sequence[Record], out_dir: Path) -> Path:
    """Where an episode's time goes: median and 95th percentile seconds per node run (log scale)."""
    import numpy as np

    pooled: dict[str, list[float]] = {}
    for r in records:
        for node, seconds in r["timings"]["node_seconds"].items():
            pooled.setdefault(node, []).extend(seconds)
    names = sorted(pooled, key=lambda n: np.median(pooled[n]))
    fig, ax = subplots(figsize=(6.4, 0.35 * len(names) + 1.6), dpi=110)
    ys = range(len(names))
    ax.barh(ys, [np.percentile(pooled[n], 95) for n in names], color="#c6d4e1", label="p95")
    ax.barh(ys, [np.median(pooled[n]) for n in names], color="#4c72b0", label="median")
    ax.set_yticks(list(ys), names, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("seconds per node run")
    ax.set_title(f"Node timings over {len(records)} episodes")
    ax.legend(loc="lower right", fontsize=8)
    return save(fig, out_dir / "node_times.png")
