"""``dialectica cache export FILE`` / ``dialectica cache import FILE...``: the LLM call cache to and from a gzipped
JSON Lines file (``dialectica.sim.llm.cache``), so that a model job's calls outlive the machine that made them."""

from __future__ import annotations

import gzip
from pathlib import Path

from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser
from dialectica.sim.llm.cache import CallCache, export, merge

DESCRIPTION = "the LLM call cache to a file (export), or a file's calls into the cache (import)"
DEFAULT = Path("results/cache/llm.sqlite")  # conf/llm/*.yaml: llm.cache


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica cache", description=DESCRIPTION)
    parser.add_argument("action", choices=("export", "import"), help="export: cache to FILE; import: FILEs to cache")
    parser.add_argument("files", type=Path, nargs="+", metavar="FILE", help="a .jsonl.gz file of calls")
    parser.add_argument("--cache", type=Path, default=DEFAULT, help=f"the call cache (default {DEFAULT})")
    args = parser.parse_args(argv)
    if args.action == "export":
        if len(args.files) != 1:
            raise ConfigError("cache export writes one FILE; give one path")
        if not args.cache.is_file():
            raise ConfigError(f"cache={args.cache}: no call cache there; give the llm.cache a run used")
        n = export(CallCache(args.cache), args.files[0])
        print(f"exported {n} calls from {args.cache} to {args.files[0]}")
        return 0
    for path in args.files:
        if not path.is_file():
            raise ConfigError(f"{path}: no such file; give a file written by `dialectica cache export`")
    cache = CallCache(args.cache)
    for path in args.files:
        try:
            added, read = merge(cache, path)
        except (ValueError, gzip.BadGzipFile, EOFError) as exc:
            raise ConfigError(f"{path}: {exc if isinstance(exc, ValueError) else 'not a gzipped file of calls'}") from exc
        print(f"{path}: {read} calls, {added} new to {args.cache}")
    return 0
