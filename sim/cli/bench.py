"""``dialectica bench``: the harness's performance figures measured side by side in one run
(``dialectica.sim.analysis.bench``), printed as a table and written to ``results/benchmarks/``."""

from __future__ import annotations

import json
import math
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dialectica.sim.analysis.bench import (
    OUT,
    embedding_throughput,
    episodes_per_second,
    harness_overhead,
    memory_growth,
    model_rates,
    server_concurrency,
    shared_cores,
    startup_seconds,
    surrogate_run,
    token_figures,
    tracing_overhead,
    tracking_share,
)
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.errors import Parser, describe
from dialectica.sim.config import discovery
from dialectica.sim.config.discovery import builtin_names, names
from dialectica.sim.config.loader import load

DESCRIPTION = "performance figures measured side by side in one run"


def main(argv: list[str]) -> int:
    measure(argv)
    return 0


def measure(argv: list[str]) -> dict[str, Any]:
    """Measures every figure, prints the table and writes ``<out>/latest.json``; returns the figures."""
    args = _parser().parse_args(argv)
    from dialectica.sim.engine.embedding import Embedder  # lazy: start-up (numpy)

    embed = Embedder()
    figures: dict[str, Any] = {"graphs": {}}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        _measure_asked(args, tmp, figures)
        if args.only_server or args.only_tokens or args.only_traces or args.only_shared_cores or args.only_sequential:
            return _report(figures, _trace_rows(figures) + _shared_rows(figures) + _sequential_rows(figures), args.out)
        _measure_harness(args, tmp, embed, figures)
    return _report(figures, _harness_rows(figures, args.tracked_episodes), args.out)


def _parser() -> Parser:
    parser = Parser(prog="dialectica bench", description=DESCRIPTION)
    parser.add_argument("--episodes", type=int, default=40, help="episodes per throughput measurement")
    parser.add_argument(
        "--tracked-episodes", type=int, default=200, help="episodes of the job whose MLflow share is measured"
    )
    parser.add_argument("--startup-runs", type=int, default=5, help="fresh processes a start-up figure is the median of")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the figures: latest.json and a timestamped copy")
    parser.add_argument(
        "--rss-episodes", type=int, default=20000, help="panel episodes for the peak-memory figure (0 skips it)"
    )
    parser.add_argument(
        "--surrogate",
        nargs="*",
        metavar="GRAPH",
        default=None,
        help="also time cold surrogate runs on the local LLM (needs the llm extra); default graphs: "
        "interview socratic_panel",
    )
    _add_server_options(parser)
    _add_token_options(parser)
    _add_trace_and_core_options(parser)
    _add_sequential_options(parser)
    parser.add_argument(
        "--tokens-set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="with --tokens: a config override for its runs, e.g. llm.contexts=1 (repeatable)",
    )
    return parser


def _add_server_options(parser: Parser) -> None:
    parser.add_argument(
        "--server",
        type=float,
        metavar="LATENCY_S",
        default=None,
        help="also time surrogate episodes against a local OpenAI-compatible server answering after "
        "LATENCY_S seconds, one at a time against 16 in flight",
    )
    parser.add_argument(
        "--server-in-flight",
        type=int,
        default=16,
        metavar="N",
        help="with --server: requests in flight in the parallel runs (the sequential run plays N episodes, the "
        "throughput run 8 * N)",
    )
    parser.add_argument("--only-server", action="store_true", help="with --server: skip every other figure")


def _add_token_options(parser: Parser) -> None:
    parser.add_argument(
        "--tokens",
        nargs="*",
        metavar="GRAPH",
        default=None,
        help="also measure surrogate episodes on the reference model against its compute bound: calls, prompt and "
        "generated tokens, prefix-cache share, seconds per call (default: every graph)",
    )
    parser.add_argument("--tokens-preset", default="qwen2.5-coder-1.5b", help="the local model for --tokens")
    parser.add_argument("--tokens-episodes", type=int, default=1, help="surrogate episodes per graph for --tokens")
    parser.add_argument("--only-tokens", action="store_true", help="with --tokens: skip every other figure")


def _add_trace_and_core_options(parser: Parser) -> None:
    parser.add_argument(
        "--traces",
        type=int,
        nargs="?",
        const=2000,
        default=None,
        metavar="EPISODES",
        help="also time a scripted interview run of EPISODES (2000) with traces=none, traces=3 and traces=all",
    )
    parser.add_argument("--only-traces", action="store_true", help="with --traces: skip every other figure")
    parser.add_argument(
        "--shared-cores",
        type=int,
        nargs="?",
        const=2,
        default=None,
        metavar="EPISODES",
        help="also time two cold interview surrogate jobs of EPISODES (2) on the local LLM one after the other, at "
        "once, and at once without the machine's model lock (needs the llm extra)",
    )
    parser.add_argument("--only-shared-cores", action="store_true", help="with --shared-cores: skip every other figure")


def _add_sequential_options(parser: Parser) -> None:
    parser.add_argument(
        "--sequential",
        type=int,
        nargs="?",
        const=900,
        default=None,
        metavar="EPISODES",
        help="also measure sequential sweeps against the fixed 300-episode design on each graph's grid: EPISODES "
        "(900) scripted episodes a configuration, drawn from by 100 simulated sweeps (share of episodes used, "
        "same choice)",
    )
    parser.add_argument("--only-sequential", action="store_true", help="with --sequential: skip every other figure")


def _sequential(bank_episodes: int) -> dict[str, Any]:
    """Each graph's grid (the interview's five budgets), banked once, raced by 100 simulated sweeps per rule."""
    from dialectica.sim.analysis.sequential import bank, lines, race_figures  # lazy: start-up (scipy, numpy)

    grids = {name: next(iter(discovery.load(name).grid.items())) for name in builtin_names() if discovery.load(name).grid}
    grids["interview"] = ("budget", (3, 4, 6, 8, 10))  # the grid of the fixed-design measurement
    extra = {"tribunal": ["graph.cast.hang_s=0.2"]}  # the planted hanging collector, kept short
    out: dict[str, Any] = {}
    for graph, (key, values) in grids.items():
        data = bank(graph, key, values, bank_episodes, extra=extra.get(graph, ()))
        out[graph] = {rule: race_figures(data, rule=rule, floor=0.8 if rule == "floor" else None) for rule in RULES}
        for figures in out[graph].values():
            print("\n".join(lines(figures)))
    return out


RULES = ("best", "floor")


def _sequential_rows(figures: dict[str, Any]) -> list[tuple[str, str, str]]:
    rows = []
    for graph, by_rule in figures.get("sequential", {}).items():
        for rule, v in by_rule.items():
            name = f"{graph} sequential ({rule}{' 0.8' if rule == 'floor' else ''})"
            rows += [
                (f"{name}: same choice as fixed {v['max_episodes']}", f"{v['same_choice']:.0%}", ">= 95%"),
                (f"{name}: episodes used / fixed design", f"{v['share_used_mean']:.0%}", "<= 40%"),
            ]
    return rows


def _measure_asked(args: Any, tmp: Path, figures: dict[str, Any]) -> None:
    """The figures measured only when asked for: a server's concurrency, token counts, tracing, shared cores."""

    if args.server is not None:
        figures["server"] = server_concurrency(tmp, args.server, args.server_in_flight, args.server_in_flight)
    if args.tokens is not None:
        figures["tokens"] = _tokens(args, tmp, args.tokens or names())
    if args.traces is not None:
        figures["traces"] = tracing_overhead(tmp, args.traces)
    if args.shared_cores is not None:
        figures["shared_cores"] = shared_cores(tmp, episodes=args.shared_cores)
    if args.sequential is not None:
        figures["sequential"] = _sequential(args.sequential)


def _measure_harness(args: Any, tmp: Path, embed: Any, figures: dict[str, Any]) -> None:
    """The harness's own figures: each graph's throughput and overhead, embedding, tracking, start-up, memory, and
    surrogate runs where asked."""

    for graph in names():
        figures["graphs"][graph] = harness_overhead(graph, max(2, args.episodes // 2), tmp, embed) | {
            "episodes_per_second": episodes_per_second(graph, args.episodes, tmp, embed)
        }
    ours, raw, ratio = embedding_throughput(tmp)
    figures["embedding"] = {"ours_seconds": ours, "raw_encode_seconds": raw, "throughput_ratio": ratio}
    seconds, share = tracking_share(tmp, args.tracked_episodes)
    figures["tracking"] = {"seconds": seconds, "share_of_job": share, "episodes": args.tracked_episodes}
    figures["startup_seconds"] = startup_seconds(tmp, repeats=args.startup_runs)
    figures["startup_lean_seconds"] = startup_seconds(tmp, "view.enabled=false", repeats=args.startup_runs)
    if args.rss_episodes:
        figures["memory"] = memory_growth(tmp, args.rss_episodes)
    if args.surrogate is not None:
        figures["surrogate"] = {g: surrogate_run(g, tmp) for g in args.surrogate or ["interview", "socratic_panel"]}


def _harness_rows(figures: dict[str, Any], tracked_episodes: int) -> list[tuple[str, str, str]]:
    rows = [(f"{g}: episodes/s", f"{v['episodes_per_second']:.1f}", "") for g, v in figures["graphs"].items()]
    rows += [
        (f"{g}: harness / direct invoke", f"{v['harness_overhead_ratio']:.3f}", "<= 1.05")
        for g, v in figures["graphs"].items()
    ]
    rows += [
        ("embedding agreement / raw encode (throughput)", f"{figures['embedding']['throughput_ratio']:.2f}", ">= 0.8"),
        (f"MLflow share of a {tracked_episodes}-episode job", f"{figures['tracking']['share_of_job']:.1%}", "< 5%"),
        ("start-up, one interview episode, no embeddings/tracking (s)", f"{figures['startup_seconds']:.2f}", "< 2"),
        ("the same, view.enabled=false: no figures or pages (s)", f"{figures['startup_lean_seconds']:.2f}", "< 1.5"),
    ]
    if "memory" in figures:
        m = figures["memory"]
        rows += [
            (f"peak RSS, {m['episodes']} panel episodes (MiB)", f"{m['peak_rss_mib']:.0f}", "< 1229"),
            (f"peak RSS, {m['episodes']} / {m['episodes'] // 10} episodes", f"{m['growth_ratio']:.2f}", "near 1"),
        ]
    rows += _trace_rows(figures) + _shared_rows(figures) + _sequential_rows(figures)
    for g, v in figures.get("surrogate", {}).items():
        rows += [
            (f"{g} surrogate: harness share of episode time", f"{v['harness_share_of_episodes']:.1%}", "< 5%"),
            (f"{g} surrogate: harness share of the process", f"{v['harness_share_of_process']:.1%}", ""),
        ]
    return rows


def _trace_rows(figures: dict[str, Any]) -> list[tuple[str, str, str]]:
    if "traces" not in figures:
        return []
    t = figures["traces"]
    return [
        (f"{t['episodes']} scripted episodes, traces=none (s)", f"{t['none_seconds']:.1f}", ""),
        ("  traces=3 / none", f"{t['three_ratio']:.3f}", ""),
        ("  traces=all / none", f"{t['all_ratio']:.2f}", ""),
    ]


def _shared_rows(figures: dict[str, Any]) -> list[tuple[str, str, str]]:
    if "shared_cores" not in figures:
        return []
    v = figures["shared_cores"]
    return [
        (
            f"two {v['graph']} surrogate jobs of {v['episodes']} episodes, one after the other (s)",
            f"{v['sequential_seconds']:.0f}",
            "",
        ),
        ("  at once / one after the other", f"{v['together_ratio']:.2f}", "<= 1.1"),
        (
            "  at once: the first to finish, as a share of both (1: turn by turn)",
            f"{v['together_first_done_share']:.2f}",
            "",
        ),
        ("  at once without the machine's model lock / one after the other", f"{v['unlocked_ratio']:.2f}", ""),
    ]


def _tokens(args: Any, tmp: Path, graphs: list[str]) -> dict[str, Any]:
    overrides = ["llm=llamacpp", f"llm.preset={args.tokens_preset}", *args.tokens_set]
    for graph in graphs:  # every graph's config composes before the model loads: a bad --tokens-set is one line
        _composes([f"graph={graph}", "participants=surrogate", "tracking=none", *overrides], tmp)
    rates = model_rates([f"graph={graphs[0]}", *overrides], tmp)
    by_graph = {g: token_figures(g, tmp, overrides, rates, args.tokens_episodes) for g in graphs}
    return {"preset": args.tokens_preset, "rates": rates, "graphs": by_graph}


def _composes(overrides: list[str], tmp: Path) -> None:

    try:
        load(overrides, out_dir=tmp / "check", cwd=tmp)
    except Exception as exc:
        line, _ = describe(exc)
        raise ConfigError(f"--tokens/--tokens-set: {line}") from exc


def _token_rows(tokens: dict[str, Any]) -> list[tuple[str, str, str]]:
    rates = tokens["rates"]
    rows = [
        (
            f"{tokens['preset']}: prompt / generated tokens per second",
            f"{rates['prompt_tokens_per_second']:.0f}/{rates['generated_tokens_per_second']:.1f}",
            "",
        )
    ]
    for g, v in tokens["graphs"].items():
        rows += [
            (
                f"{g} surrogate: calls, prompt / generated tokens per episode",
                f"{v['calls'] / v['episodes']:.0f}, {v['prompt_tokens'] / v['episodes']:.0f}/"
                f"{v['generated_tokens'] / v['episodes']:.0f}",
                "",
            ),
            (
                f"{g} surrogate: prompt tokens from the prefix cache (multi-turn roles)",
                f"{v['prompt_cached_share']:.0%} ({v['multi_turn_cached_share']:.0%})",
                ">= 80%",
            ),
            (f"{g} surrogate: seconds per call", f"{v['seconds_per_call']:.2f}", ""),
            (f"{g} surrogate: model seconds / compute bound", f"{v['over_bound']:.2f}", "<= 1.3"),
        ]
        rows += [
            (
                f"{g} surrogate, {role}: calls, prompt / generated tokens, from the prefix cache",
                f"{r['calls']}, {r['prompt_tokens']}/{r['generated_tokens']}, "
                f"{r['cached_tokens'] / r['prompt_tokens'] if r['prompt_tokens'] else math.nan:.0%}",
                "",
            )
            for role, r in v.get("roles", {}).items()
        ]
    return rows


def _report(figures: dict[str, Any], rows: list[tuple[str, str, str]], out: Path) -> dict[str, Any]:
    if "server" in figures:
        v = figures["server"]
        rows = [
            (
                f"server {v['latency_s']} s: {v['episodes']} episodes, sequential / {v['in_flight']} in flight "
                "(start-up included)",
                f"{v['speedup']:.1f}x",
                f">= {3 * v['in_flight'] // 8}x",
            ),
            (f"server {v['latency_s']} s: records identical", str(v["same_records"]), "True"),
            (
                f"server {v['latency_s']} s: throughput, {v['in_flight']} in flight / sequential",
                f"{v['throughput_ratio']:.1f}x",
                f">= {0.8 * v['in_flight']:.1f}x",
            ),
            *rows,
        ]
    if "tokens" in figures:
        rows = [*_token_rows(figures["tokens"]), *rows]
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':{width}}  {'measured':>9}  aim")
    for label, value, aim in rows:
        print(f"{label:{width}}  {value:>9}  {aim}")
    figures["measured_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(figures, indent=2)
    (out / f"bench-{figures['measured_at'].replace(':', '')}.json").write_text(text)
    (out / "latest.json").write_text(text)
    return figures
