"""A graph's figures: the common ones from its slim records, its own from its full records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from dialectica.metrics import FullRecord, Record
from dialectica.sim.authoring.plots import by_round_figure, node_times


def draw(
    graph: str,
    slims: Sequence[Record],
    by_round: list[dict[str, float]],
    full: Iterable[FullRecord],
    out_dir: Path,
    own: Sequence[Callable[..., Path | list[Path]]] = (),
) -> list[Path]:
    """Agreement and convergence by round and node times from ``slims`` (and their per-round means
    ``by_round``), then the graph's own figures (``own``) from ``full``; returns the files written (a figure returns
    its picture, or its picture and the files it saved beside it)."""

    files = [
        by_round_figure(slims, by_round, graph, out_dir / "by_round.png"),
        node_times(slims, out_dir),
    ]
    for figure in own:
        made = figure(full, out_dir)
        files += [made] if isinstance(made, Path) else made
    return files
