"""The committee's own figure: sampled argument graphs, saved as JSON beside the picture."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dialectica.pages import save, subplots


def argument_graphs(records: Sequence[dict[str, Any]], out_dir: Path, sample: int = 3) -> list[Path]:
    """The argument graphs of the first few episodes: claims and rebuttals by round, supports in
    green, opposes in red, nodes coloured by position; returns the picture and the JSON files beside it."""
    import json

    import networkx as nx

    shown = [r for r in records if r.get("artifacts", {}).get("argument_graph.json")][:sample]
    saved = [out_dir / f"argument_graph_episode{record['episode']}.json" for record in shown]
    for path, record in zip(saved, shown, strict=True):  # the sampled graphs as JSON too, beside the picture
        path.write_text(record["artifacts"]["argument_graph.json"])
    fig, axes = subplots(1, max(1, len(shown)), figsize=(6.0 * max(1, len(shown)), 5.0), dpi=100, squeeze=False)
    colours = {"support": "#55a868", "oppose": "#c44e52", "nuanced": "#8172b2"}
    for ax, record in zip(axes[0], shown, strict=False):
        graph = nx.node_link_graph(json.loads(record["artifacts"]["argument_graph.json"]), edges="edges")
        members = sorted({d["member"] for _, d in graph.nodes(data=True)})
        pos = {n: (d["order"], -members.index(d["member"])) for n, d in graph.nodes(data=True)}
        nx.draw_networkx_nodes(
            graph,
            pos,
            ax=ax,
            node_size=60,
            node_color=[colours.get(d["position"], "grey") for _, d in graph.nodes(data=True)],
            node_shape="o",
        )
        for relation, colour in (("supports", "#55a868"), ("opposes", "#c44e52")):
            edges = [(u, v) for u, v, d in graph.edges(data=True) if d["relationship"] == relation]
            nx.draw_networkx_edges(
                graph, pos, edgelist=edges, ax=ax, edge_color=colour, alpha=0.5, arrowsize=8, connectionstyle="arc3,rad=0.2"
            )
        ax.set_yticks([-i for i in range(len(members))], members, fontsize=7)
        ax.set_xlabel("statement order")
        ax.set_title(f"episode {record['episode']} ({record['scenario']}): {graph.number_of_nodes()} arguments", fontsize=9)
        ax.tick_params(left=True, labelleft=True)
        ax.set_ylim(-len(members) + 0.5, 0.5)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color=c, label=p) for p, c in colours.items()]
    handles += [Line2D([], [], color="#55a868", label="supports"), Line2D([], [], color="#c44e52", label="opposes")]
    fig.legend(handles=handles, loc="lower center", ncol=5, fontsize=8, frameon=False)
    return [save(fig, out_dir / "argument_graphs.png", rect=(0, 0.06, 1, 1)), *saved]
