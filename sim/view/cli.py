"""``dialectica-view RUN_DIR_OR_MLFLOW_RUN_ID``: writes the episode pages of a run, and serves them on loopback."""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from dialectica.sim.params import ConfigError
from dialectica.sim.view.options import ViewOptions
from dialectica.sim.view.source import ViewError, resolve
from dialectica.sim.view.topology import default_topology
from dialectica.sim.view.write import write_graph_pages, write_run_index


def default_tracking_uri() -> str:
    return os.environ.get("DIALECTICA_TRACKING_URI") or f"sqlite:///{Path.cwd() / 'results' / 'mlflow.db'}"


def parser() -> argparse.ArgumentParser:
    defaults = ViewOptions()
    p = argparse.ArgumentParser(prog="dialectica-view", description=__doc__.split("\n")[0].split(": ", 1)[1])
    p.add_argument("target", help="a run directory (or one graph's folder in it), or an MLflow run id")
    p.add_argument("--out", type=Path, help="where to write (default: <graph folder>/view/, or results/view/<run id>/)")
    p.add_argument("--first", type=int, default=defaults.first, help="pages for the first N episodes")
    p.add_argument("--metric", default=defaults.metric,
                   help="best and worst by this metric (--metric=-name: lower is better)")
    p.add_argument("--errors", type=int, default=defaults.errors, help="pages for the first N episodes that raised")
    p.add_argument("--tracking-uri", default=default_tracking_uri(), help="MLflow store for a run id")
    p.add_argument("--serve", action="store_true", help="serve the pages on 127.0.0.1 until interrupted")
    p.add_argument("--port", type=int, default=8765, help="port for --serve (0: any free port)")
    return p


def write(args: argparse.Namespace) -> Path:
    """Writes every graph's pages and one index over them; returns that index."""
    options = ViewOptions.from_mapping({"first": args.first, "metric": args.metric, "errors": args.errors})
    groups, root = resolve(args.target, args.tracking_uri, args.out, default_topology)
    indexes = {}
    for group in groups:
        files = write_graph_pages(group.records, group.out_dir, options, group.topology)
        indexes[group.graph] = files[0]
        pages = [f for f in files[1:] if f.suffix == ".html"]
        print(f"{group.graph}: {len(pages)} episode pages in {group.out_dir}")
    return write_run_index(root / "view.html", indexes)


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


def entry(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        index = write(args)
    except (ViewError, ConfigError) as exc:
        print(f"dialectica-view: error: {exc}", file=sys.stderr)
        sys.exit(2)
    print(f"index: {index}")
    if args.serve:
        serve(index, args.port)
