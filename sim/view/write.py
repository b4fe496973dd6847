"""Writes a graph's selected episode pages, their index and the graph's shape into a folder."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dialectica.sim.secrets import scrub
from dialectica.sim.view.markup import join, tag
from dialectica.sim.view.options import ViewOptions
from dialectica.sim.view.page import document, render_index, render_page
from dialectica.sim.view.registry import view_for
from dialectica.sim.view.select import Selected, metric_value, select_episodes
from dialectica.sim.view.topology import Topology

TOPOLOGY = "topology.json"


def page_name(record: dict[str, Any]) -> str:
    return f"episode_{record.get('episode', 0)}.html"


def write_graph_pages(records: Sequence[dict[str, Any]], out_dir: Path, options: ViewOptions,
                      topology: Topology | None = None,
                      full: Callable[[set[int]], dict[int, dict[str, Any]]] | None = None) -> list[Path]:
    """Pages for the episodes ``options`` selects, ``index.html`` listing them, and ``topology.json`` when the
    graph's shape is known; returns the files written, index first.

    Args:
        records: The graph's records; slim ones (no transcripts) are enough to select from when ``full``
            fetches the full records of the selected episode indices.
    """
    if not records:
        return []
    graph = str(records[0].get("graph", "graph"))
    metric = options.metric or view_for(graph).metric
    picked = select_episodes(records, options.first, metric, options.errors)
    if full is not None:
        whole = full({int(item.record["episode"]) for item in picked})
        picked = [Selected(whole.get(int(item.record["episode"]), item.record), item.why) for item in picked]
    out_dir.mkdir(parents=True, exist_ok=True)
    written, rows = [], []
    for k, item in enumerate(picked):
        links = [tag("a", "all pages", href="index.html")]
        if k:
            links.append(tag("a", f"← episode {picked[k - 1].record.get('episode')}", href=page_name(picked[k - 1].record)))
        links += ([tag("a", f"episode {picked[k + 1].record.get('episode')} →", href=page_name(picked[k + 1].record))]
                  if k + 1 < len(picked) else [])
        path = out_dir / page_name(item.record)
        path.write_text(scrub(render_page(item.record, item.why, topology, tag("nav", join(links), class_="nav"))))
        written.append(path)
        r = item.record
        rows.append({"episode": r.get("episode"), "href": path.name, "scenario": r.get("scenario"), "why": item.why,
                     "reason": r.get("termination_reason"), "metric": metric_value(r, metric),
                     "turns": len(r.get("transcript") or []), "rounds": len(r.get("per_round") or [])})
    index = out_dir / "index.html"
    index.write_text(scrub(render_index(graph, rows, metric)))
    if topology:
        (out_dir / TOPOLOGY).write_text(json.dumps(topology, indent=1))
        written.append(out_dir / TOPOLOGY)
    return [index, *written]


def write_run_index(path: Path, indexes: dict[str, Path]) -> Path:
    """A page linking each graph's index (``indexes``: graph -> its index.html), relative to ``path``."""
    links = join(tag("li", tag("a", graph, href=os.path.relpath(index, path.parent)))
                 for graph, index in sorted(indexes.items()))
    main = tag("main", join([tag("h1", "Episode pages"), tag("ul", links)]), id="run-index")
    path.write_text(document("episode pages", main))
    return path

