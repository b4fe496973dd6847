"""A graph's figures, drawn from its records in a run's ``episodes.jsonl``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from dialectica.sim import records


def draw(graph: str, episodes: Path, out_dir: Path, own: Sequence[Callable[..., Path]] = ()) -> list[Path]:
    """The common figures (agreement and convergence by round, node times) from slim records, and the graph's
    own (``own``, given the graph's full records streamed from disk); returns the files written, with any
    JSON a figure saved beside its picture."""
    from dialectica.metrics.summary import per_round_means
    from dialectica.sim.plots import by_round_figure, node_times

    slims = records.SlimRecords()
    for record in records.read(episodes, graph, keep=False):
        slims.add(record)
    files = [by_round_figure(slims, per_round_means(slims), f"{graph}: agreement and convergence by round",
                             out_dir / "by_round.png"),
             node_times(slims, out_dir)]
    files += [figure(records.GraphRecords(episodes, graph), out_dir) for figure in own]
    return files + sorted(out_dir.glob("argument_graph_episode*.json"))
