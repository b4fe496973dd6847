"""``dialectica view RUN_DIR_OR_MLFLOW_RUN_ID``: writes a run's episode pages (--serve: serves them on loopback)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shlex
import sys
from dataclasses import replace
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from dialectica.sim.cli.errors import Parser, guarded
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.view.registry import view_for
from dialectica.sim.view.select import spans
from dialectica.sim.view.source import RUN_ID, GraphRecords, ViewError, resolve
from dialectica.sim.view.topology import default_topology
from dialectica.sim.view.write import write_graph_pages, write_run_index


def default_tracking_uri() -> str:
    return os.environ.get("DIALECTICA_TRACKING_URI") or f"sqlite:///{Path.cwd() / 'results' / 'mlflow.db'}"


def parser() -> argparse.ArgumentParser:
    defaults = ViewOptions()
    p = Parser(prog="dialectica view", description=__doc__.split("\n")[0].split(": ", 1)[1])
    p.add_argument("target", help="a run directory (or one graph's folder in it), or an MLflow run id")
    p.add_argument("--out", type=Path, help="where to write (default: <graph folder>/view/, or results/view/<run id>/)")
    p.add_argument(
        "--episode",
        action="append",
        metavar="N[,N...]",
        help="pages for exactly these episodes (repeatable, or comma-separated: 3,17); "
        "--first/--metric/--errors given too add theirs",
    )
    p.add_argument("--graph", action="append", metavar="NAME", help="only this graph of the run (repeatable)")
    p.add_argument("--first", type=int, help=f"pages for the first N episodes (default {defaults.first}; 0 with --episode)")
    p.add_argument(
        "--metric",
        help="best and worst by this metric (--metric=-name: lower is better; default: the "
        "graph's own, none with --episode)",
    )
    p.add_argument(
        "--errors",
        type=int,
        help=f"pages for the first N episodes that raised (default {defaults.errors}; 0 with --episode)",
    )
    p.add_argument("--tracking-uri", default=default_tracking_uri(), help="MLflow store for a run id")
    p.add_argument("--serve", action="store_true", help="serve the pages on 127.0.0.1 until interrupted")
    p.add_argument("--port", type=int, default=8765, help="port for --serve (0: any free port)")
    return p


def asked_episodes(values: list[str] | None) -> set[int] | None:
    """The episode indices of ``--episode`` options (each one or a comma list), or None when none was given."""
    if values is None:
        return None
    out: set[int] = set()
    for value in values:
        for part in value.split(","):
            try:
                out.add(int(part.strip()))
            except ValueError:
                raise ViewError(
                    f"--episode {value!r}: {part.strip()!r} is not an episode index; "
                    "give whole numbers, e.g. --episode 3 or --episode 3,17"
                ) from None
    return out


def _only(groups: list[GraphRecords], graphs: list[str] | None, target: str) -> list[GraphRecords]:
    names = [g.graph for g in groups]
    unknown = [g for g in graphs or () if g not in names]
    if unknown:
        raise ViewError(f"--graph {unknown[0]}: {target} has no such graph; its graphs: {', '.join(sorted(names))}")
    return [g for g in groups if not graphs or g.graph in graphs]


def _check_episodes(groups: list[GraphRecords], asked: set[int], target: str) -> None:
    """Raises ViewError naming the valid range when a graph lacks an asked-for episode (before anything is written)."""
    for group in groups:
        have = {int(r["episode"]) for r in group.records}
        if missing := sorted(asked - have):
            shown = ", ".join(map(str, missing[:5])) + (", ..." if len(missing) > 5 else "")
            raise ViewError(
                f"no {'episodes' if len(missing) > 1 else 'episode'} {shown} in {group.graph} of {target}; "
                f"valid episodes: {spans(have)}"
            )


def _check_metric(groups: list[GraphRecords], metric: str | None) -> None:
    """Raises ViewError naming the graphs' numeric metrics when ``--metric`` names none of them."""
    if not metric:
        return
    have = {
        name
        for group in groups
        for record in group.records
        for name, value in (record.get("metrics") or {}).items()
        if isinstance(value, int | float)
    }
    if metric.lstrip("-") not in have:
        raise ViewError(f"--metric {metric}: no episode has metric {metric.lstrip('-')!r}; valid: {', '.join(sorted(have))}")


def remake(args: argparse.Namespace, graph: str) -> str:
    """The command that rewrites this graph's pages where this call put them, less ``--episode N``."""
    words = ["dialectica", "view", args.target, "--graph", graph]
    if args.out:
        words += ["--out", str(args.out)]
    if RUN_ID.match(args.target) and args.tracking_uri != default_tracking_uri():
        words += ["--tracking-uri", args.tracking_uri]
    return shlex.join(words)


def write(args: argparse.Namespace) -> Path:
    """Writes every graph's pages and its index over all episodes, and one index over the graphs; returns that."""
    defaults, asked = ViewOptions(), asked_episodes(args.episode)
    options = ViewOptions.from_mapping(
        {
            "first": args.first if args.first is not None else (0 if asked is not None else defaults.first),
            "metric": args.metric,
            "errors": args.errors if args.errors is not None else (0 if asked is not None else defaults.errors),
        }
    )
    every, root = resolve(args.target, args.tracking_uri, args.out, default_topology)
    groups = _only(every, args.graph, args.target)
    if asked is not None:
        _check_episodes(groups, asked, args.target)
    _check_metric(groups, args.metric)
    # the run's index keeps linking the other graphs' indexes written before
    indexes = {g.graph: g.out_dir / "index.html" for g in every if (g.out_dir / "index.html").exists()}
    target = Path(args.target)  # a run's folder (a replay's holds replay.json), or an MLflow run id
    for group in groups:
        changed = None if asked is not None or not target.is_dir() else _changed_endings(target, group.graph)
        # as the replay wrote them: its changed endings beside the best and worst by the graph's own metric
        shown = replace(options, metric=options.metric or view_for(group.graph).metric) if changed else options
        files = write_graph_pages(
            group.records, group.out_dir, shown, group.topology, group.full, asked or changed, remake(args, group.graph),
            asked="ending changed" if changed else "asked for",
        )  # fmt: skip
        indexes[group.graph] = files[0]
        pages = [f for f in files[1:] if f.suffix == ".html"]
        plural = "" if len(pages) == 1 else "s"
        where = f"in {group.out_dir}, index over {len(group.records)} episodes"
        print(f"{group.graph}: {len(pages)} episode page{plural} {where}")
    return write_run_index(root / "view.html", indexes)


def _changed_endings(run_dir: Path, graph: str) -> list[int] | None:
    """A replay's episodes whose ending changed (its ``replay.json``), which get pages as the replay gave them."""
    report = run_dir / "replay.json"
    if not report.is_file() and (run_dir / "config.json").is_file():  # one graph's folder of the run
        report = run_dir.parent / "replay.json"
    if not report.is_file():
        return None
    entry = (json.loads(report.read_text()).get("graphs") or {}).get(graph) or {}
    return [int(c["episode"]) for c in entry.get("changed", [])] or None


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(index: Path, port: int) -> None:
    handler = functools.partial(_QuietHandler, directory=str(index.parent))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving http://127.0.0.1:{server.server_address[1]}/{index.name} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    index = write(args)
    print(f"index of the run's graphs: {index}")
    if args.serve:
        serve(index, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(guarded(main, sys.argv[1:]))
