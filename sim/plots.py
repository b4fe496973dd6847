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


def _save(fig: Any, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    fig.tight_layout(rect=rect)
    fig.savefig(path)
    plt.close(fig)
    return path


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
    return _save(fig, path)


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
    return _save(fig, out_dir / "critic_loops.png")


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
    return _save(fig, out_dir / "moves.png")


@FIGURES.register("argument_graph")
def argument_graphs(records: Sequence[dict[str, Any]], out_dir: Path, sample: int = 3) -> Path:
    """The argument graphs of the first few episodes: claims and rebuttals by round, supports in
    green, opposes in red, nodes coloured by position."""
    import json

    import networkx as nx

    shown = [r for r in records if r.get("artifacts", {}).get("argument_graph.json")][:sample]
    for record in shown:  # the sampled graphs as JSON too, beside the picture
        (out_dir / f"argument_graph_episode{record['episode']}.json").write_text(record["artifacts"]["argument_graph.json"])
    fig, axes = plt.subplots(1, max(1, len(shown)), figsize=(6.0 * max(1, len(shown)), 5.0), dpi=100, squeeze=False)
    colours = {"support": "#55a868", "oppose": "#c44e52", "nuanced": "#8172b2"}
    for ax, record in zip(axes[0], shown):
        graph = nx.node_link_graph(json.loads(record["artifacts"]["argument_graph.json"]), edges="edges")
        members = sorted({d["member"] for _, d in graph.nodes(data=True)})
        pos = {n: (d["order"], -members.index(d["member"])) for n, d in graph.nodes(data=True)}
        nx.draw_networkx_nodes(graph, pos, ax=ax, node_size=60,
                               node_color=[colours.get(d["position"], "grey") for _, d in graph.nodes(data=True)],
                               node_shape="o")
        for relation, colour in (("supports", "#55a868"), ("opposes", "#c44e52")):
            edges = [(u, v) for u, v, d in graph.edges(data=True) if d["relationship"] == relation]
            nx.draw_networkx_edges(graph, pos, edgelist=edges, ax=ax, edge_color=colour, alpha=0.5, arrowsize=8,
                                   connectionstyle="arc3,rad=0.2")
        ax.set_yticks([-i for i in range(len(members))], members, fontsize=7)
        ax.set_xlabel("statement order")
        ax.set_title(f"episode {record['episode']} ({record['scenario']}): {graph.number_of_nodes()} arguments", fontsize=9)
        ax.tick_params(left=True, labelleft=True)
        ax.set_ylim(-len(members) + 0.5, 0.5)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color=c, label=p) for p, c in colours.items()]
    handles += [Line2D([], [], color="#55a868", label="supports"), Line2D([], [], color="#c44e52", label="opposes")]
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=8, frameon=False)
    return _save(fig, out_dir / "argument_graphs.png", rect=(0, 0.06, 1, 1))


@FIGURES.register("node_times")
def node_times(records: Sequence[dict[str, Any]], out_dir: Path) -> Path:
    """Where an episode's time goes: median and 95th percentile seconds per node run (log scale)."""
    import numpy as np

    pooled: dict[str, list[float]] = {}
    for r in records:
        for node, seconds in r["timings"]["node_seconds"].items():
            pooled.setdefault(node, []).extend(seconds)
    names = sorted(pooled, key=lambda n: np.median(pooled[n]))
    fig, ax = plt.subplots(figsize=(6.4, 0.35 * len(names) + 1.6), dpi=110)
    ys = range(len(names))
    ax.barh(ys, [np.percentile(pooled[n], 95) for n in names], color="#c6d4e1", label="p95")
    ax.barh(ys, [np.median(pooled[n]) for n in names], color="#4c72b0", label="median")
    ax.set_yticks(list(ys), names, fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("seconds per node run")
    ax.set_title(f"Node timings over {len(records)} episodes")
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, out_dir / "node_times.png")
