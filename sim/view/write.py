"""Writes a graph's selected episode pages, the index over all its episodes and the graph's shape into a folder."""

from __future__ import annotations

import json
import logging
import os
import shlex
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from dialectica.metrics import FullRecord, Record
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.secrets import scrub
from dialectica.sim.view.index import HEADLINE, index_row, metric_columns, render_index
from dialectica.sim.view.markup import join, tag
from dialectica.sim.view.page import document, render_page
from dialectica.sim.view.registry import view_for
from dialectica.sim.view.select import Selected, metric_value, select_episodes
from dialectica.sim.view.topology import Topology

TOPOLOGY = "topology.json"


def page_name(record: Record) -> str:
    return f"episode_{record.get('episode', 0)}.html"


def remake_command(out_dir: Path, graph: str) -> str:
    """``dialectica view RUN --graph GRAPH``, the run being the folder that holds ``<graph>/view/``."""
    run = out_dir.parent.parent if out_dir.name == "view" else out_dir
    return f"dialectica view {shlex.quote(str(run))} --graph {shlex.quote(graph)}"


def write_graph_pages(
    records: Sequence[Record],
    out_dir: Path,
    options: ViewOptions,
    topology: Topology | None = None,
    full: Callable[[set[int]], dict[int, FullRecord]] | None = None,
    episodes: Collection[int] | None = None,
    remake: str | None = None,
    traces: Mapping[int, str] | None = None,
    asked: str = "asked for",
) -> list[Path]:
    """Pages for the episodes ``options`` selects (every one with ``pages: all``), ``index.html`` over every
    episode of ``records`` (linking each one whose page is in ``out_dir``, from this call or an earlier one), and
    ``topology.json`` when the graph's shape is known; returns the files written, index first.

    Args:
        records: The graph's records; slim ones (no transcripts) are enough, for the index and to select
            from, when ``full`` fetches the full records of the selected episode indices.
        episodes: Episode indices that get a page too. When given, the graph's default metric is not ranked
            (only ``options.metric`` is), so ``ViewOptions(first=0, errors=0)`` gives exactly these.
        remake: The command that, given ``--episode N``, writes episode N's page here (default: the run
            folder above ``out_dir`` with ``--graph``), shown on the index's rows without a page.
        traces: Episode index -> the URL of its MLflow trace, linked from its page.
        asked: Why ``episodes`` got a page, as the index says (a replay's: ``ending changed``).
    """
    if not records:
        return []
    graph = str(records[0].get("graph", "graph"))
    default = view_for(graph).metric
    rank = options.metric or (default if episodes is None else None)
    if options.metric and all(metric_value(r, options.metric) is None for r in records):
        name = options.metric.lstrip("-")
        have = sorted({k for r in records for k, v in (r.get("metrics") or {}).items() if isinstance(v, int | float)})
        held = any(name in (r.get("metrics") or {}) for r in records)
        logging.getLogger(__name__).warning(
            "view.metric=%s: %s, so no page of %s is best or worst by it%s",
            options.metric,
            "no episode has a finite value of it" if held else f"no episode of {graph} has that metric",
            graph,
            "" if held else f"; valid: {', '.join(have)}",
        )
    picked = select_episodes(records, options.first, rank, options.errors, episodes or (), options.pages == "all", asked)
    if full is not None:
        whole = full({int(item.record["episode"]) for item in picked})
        picked = [Selected(whole.get(int(item.record["episode"]), item.record), item.why) for item in picked]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for k, item in enumerate(picked):
        links = [tag("a", "all episodes", href=f"index.html#e-{item.record.get('episode', 0)}")]
        if k:
            links.append(tag("a", f"← episode {picked[k - 1].record.get('episode')}", href=page_name(picked[k - 1].record)))
        links += (
            [tag("a", f"episode {picked[k + 1].record.get('episode')} →", href=page_name(picked[k + 1].record))]
            if k + 1 < len(picked)
            else []
        )
        trace = (traces or {}).get(int(item.record.get("episode", 0)))
        if trace:
            links.append(tag("a", "MLflow trace", href=trace, class_="trace", title="needs the MLflow UI running"))
        path = out_dir / page_name(item.record)
        # a slim record when there is no reader of full ones: the page shows what the record holds
        page = render_page(cast("FullRecord", item.record), item.why, topology, tag("nav", join(links), class_="nav"))
        path.write_text(scrub(page))
        written.append(path)
    why = {int(item.record.get("episode", 0)): item.why for item in picked}
    del picked  # full records: the index needs none of them
    index = out_dir / "index.html"
    index.write_text(
        scrub(_index(graph, records, out_dir, default, options.metric, why, remake or remake_command(out_dir, graph)))
    )
    if topology:
        (out_dir / TOPOLOGY).write_text(json.dumps(topology, indent=1))
        written.append(out_dir / TOPOLOGY)
    return [index, *written]


def _index(
    graph: str,
    records: Sequence[Record],
    out_dir: Path,
    default: str,
    metric: str | None,
    why: dict[int, tuple[str, ...]],
    remake: str,
) -> str:
    """The index over ``records`` in one pass, each parsed once (slim records are parsed on access)."""
    candidates = metric_columns(default, metric, HEADLINE)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for record in records:
        seen.update(record.get("metrics") or {})
        rows.append(index_row(record, candidates))
    columns = metric_columns(default, metric, seen)
    keep = [candidates.index(m) for m in columns]
    for row in rows:
        row["metrics"] = [row["metrics"][i] for i in keep]
    on_disk = {p.name for p in out_dir.glob("episode_*.html")}
    pages = {r["episode"]: why.get(r["episode"], ()) for r in rows if f"episode_{r['episode']}.html" in on_disk}
    return render_index(graph, rows, columns, pages, remake)


def write_run_index(path: Path, indexes: dict[str, Path]) -> Path:
    """A page linking each graph's index (``indexes``: graph -> its index.html), relative to ``path``."""
    links = join(
        tag("li", tag("a", graph, href=os.path.relpath(index, path.parent))) for graph, index in sorted(indexes.items())
    )
    main = tag("main", join([tag("h1", "Episode pages"), tag("ul", links)]), id="run-index")
    path.write_text(document("episode pages", main))
    return path
