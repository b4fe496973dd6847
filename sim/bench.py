"""``dialectica-bench``: performance figures measured side by side in one run.

Prints a table and writes ``results/benchmarks/<timestamp>.json`` (and ``latest.json``):
scripted episodes per second per graph; the harness's time against calling the same compiled
graph directly; embedding-agreement throughput against a raw ``SentenceTransformer.encode`` of the
same sentences; MLflow's share of a 200-episode job; start-up time of a one-episode run. With
``--surrogate``, also the harness's own time outside model calls in surrogate runs on the local LLM.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dialectica.sim.config import PROJECT_ROOT, compose, from_hydra
from dialectica.sim.llm.casting import Voices
from dialectica.sim.llm.settings import LLMSettings

OUT = PROJECT_ROOT / "results" / "benchmarks"


def _run_config(graph: str, episodes: int, tmp: Path, *extra: str):
    cfg = compose([f"graph={graph}", f"episodes={episodes}", "tracking=none", "progress=false", "seed=7",
                   "llm.tribunal.hang_s=0.2", "embedding_cache=null", *extra], tmp)
    return from_hydra(cfg, tmp / graph)


def episodes_per_second(graph: str, episodes: int, tmp: Path, embed: Any) -> float:
    from dialectica.sim.runner import run_graph

    cfg = _run_config(graph, episodes, tmp)
    run_graph(cfg.graphs[0], _run_config(graph, 1, tmp), embed)  # warm-up: imports, first compile
    start = time.perf_counter()
    run_graph(cfg.graphs[0], cfg, embed)
    return episodes / (time.perf_counter() - start)


def harness_overhead(graph: str, episodes: int, tmp: Path, embed: Any) -> dict[str, float]:
    """``run_episode`` against the same compiled graph's own invoke (or play loop) with the same models.

    Each episode runs once untimed first, so both timed paths find the embedding cache equally warm.
    ``build_seconds`` (participants and compile) is part of the harness path but not of ``direct``.
    """
    from dialectica.sim.cast import CastRequest, build_deps
    from dialectica.sim.episode import EpisodePlan, episode_seed, run_episode

    run = _run_config(graph, episodes, tmp).graphs[0]
    spec, params = run.spec, run.params
    voices = Voices(LLMSettings(tribunal={"hang_s": 0.2}))
    harness = direct = build = 0.0
    for i in range(episodes):
        scenario, seed = run.scenarios[i % len(run.scenarios)], episode_seed(7, graph, i)
        plan = EpisodePlan(graph, i, seed, scenario, "scripted", voices=voices)
        run_episode(spec, params, plan, embed)  # warm-up
        start = time.perf_counter()
        deps = build_deps("scripted", graph, CastRequest(scenario, seed, embed=embed, voices=voices))
        compiled = spec.build(deps, params)
        build += time.perf_counter() - start
        state, config = spec.initial_state(scenario, params), {"recursion_limit": spec.recursion_limit(params)}
        start = time.perf_counter()
        spec.play(compiled, deps, state, config, params) if spec.play else compiled.invoke(state, config)
        direct += time.perf_counter() - start
        start = time.perf_counter()
        run_episode(spec, params, plan, embed)
        harness += time.perf_counter() - start
    return {"harness_seconds": harness, "direct_seconds": direct, "build_seconds": build,
            "harness_overhead_ratio": harness / direct, "harness_over_build_and_invoke": harness / (build + direct)}


def embedding_throughput(tmp: Path) -> tuple[float, float, float]:
    """(ours seconds, raw seconds, raw/ours): agreement over a panel run's answers, cold caches both."""
    from dialectica.metrics.text import sentences
    from dialectica.metrics.embedding import embedding_agreement, round_answers
    from dialectica.sim.embedding import Embedder, _model
    from dialectica.sim.runner import run_graph

    cfg = _run_config("socratic_panel", 60, tmp, "embeddings=false")
    records = run_graph(cfg.graphs[0], cfg, Embedder())
    distinct = sorted({s for r in records for answers in round_answers(r).values() for a in answers for s in sentences(a)})
    model = _model()
    model.encode(distinct[:64])  # warm-up
    start = time.perf_counter()
    model.encode(distinct, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    raw = time.perf_counter() - start
    start = time.perf_counter()
    embedding_agreement(records, Embedder())
    ours = time.perf_counter() - start
    return ours, raw, raw / ours


def tracking_share(tmp: Path, episodes: int) -> tuple[float, float]:
    """(tracking seconds, share of the job's wall time) for a 200-episode panel job into SQLite."""
    from dialectica.sim.runner import run_experiment

    cfg = compose(["graph=socratic_panel", f"episodes={episodes}", "progress=false", "seed=7",
                   f"tracking.uri=sqlite:///{tmp / 'ml' / 'mlflow.db'}"], tmp)
    start = time.perf_counter()
    summary = run_experiment(from_hydra(cfg, tmp / "tracked"), echo=lambda _: None)
    total = time.perf_counter() - start
    seconds = summary["graphs"]["socratic_panel"]["phase_seconds"]["tracking"]
    return seconds, seconds / total


def startup_seconds(tmp: Path) -> float:
    """Wall time of ``dialectica`` for one episode with embeddings and tracking off (a fresh process)."""
    exe = Path(sys.executable).parent / "dialectica"
    start = time.perf_counter()
    subprocess.run([str(exe), "graph=socratic_panel", "episodes=1", "tracking=none", "embeddings=false", "progress=false",
                    f"hydra.run.dir={tmp / 'startup'}"], check=True, capture_output=True, cwd=tmp)
    return time.perf_counter() - start


def surrogate_overhead(records: list[dict[str, Any]]) -> float:
    """Share of the episodes' wall time spent outside model calls: the harness's own time in an LLM run."""
    wall = sum(r["timings"]["episode_seconds"] for r in records)
    return 1 - sum(r["timings"]["llm_seconds"] for r in records) / wall if wall else float("nan")


def surrogate_run(graph: str, tmp: Path, episodes: int = 1) -> dict[str, float]:
    """A cold (no call cache) ``participants=surrogate llm=llamacpp`` run of ``graph`` in a fresh process:
    the harness's share of the episodes' time and of the whole process (start-up and MLflow included)."""
    exe = Path(sys.executable).parent / "dialectica"
    out = tmp / "surrogate" / graph
    start = time.perf_counter()
    subprocess.run([str(exe), f"graph={graph}", "participants=surrogate", "llm=llamacpp", f"episodes={episodes}",
                    "llm.cache=null", "progress=false", f"hydra.run.dir={out}",
                    f"tracking.uri=sqlite:///{tmp / 'surrogate' / 'mlflow.db'}"], check=True, capture_output=True, cwd=tmp)
    wall = time.perf_counter() - start
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    model = sum(r["timings"]["llm_seconds"] for r in records)
    return {"wall_seconds": wall, "llm_seconds": model, "harness_share_of_episodes": surrogate_overhead(records),
            "harness_share_of_process": (wall - model) / wall}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="dialectica-bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=40, help="episodes per throughput measurement")
    parser.add_argument("--tracked-episodes", type=int, default=200)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--surrogate", nargs="*", metavar="GRAPH", default=None,
                        help="also time cold surrogate runs on the local LLM (needs the llm extra); default graphs: "
                             "interview socratic_panel")
    args = parser.parse_args(argv)
    from dialectica.sim.spec import load_all
    from dialectica.sim.embedding import Embedder

    embed = Embedder()
    figures: dict[str, Any] = {"graphs": {}}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for graph in load_all().names():
            figures["graphs"][graph] = harness_overhead(graph, max(10, args.episodes // 2), tmp, embed) | {
                "episodes_per_second": episodes_per_second(graph, args.episodes, tmp, embed)}
        ours, raw, ratio = embedding_throughput(tmp)
        figures["embedding"] = {"ours_seconds": ours, "raw_encode_seconds": raw, "throughput_ratio": ratio}
        seconds, share = tracking_share(tmp, args.tracked_episodes)
        figures["tracking"] = {"seconds": seconds, "share_of_job": share, "episodes": args.tracked_episodes}
        figures["startup_seconds"] = startup_seconds(tmp)
        if args.surrogate is not None:
            figures["surrogate"] = {g: surrogate_run(g, tmp) for g in args.surrogate or ["interview", "socratic_panel"]}
    rows = [(f"{g}: episodes/s", f"{v['episodes_per_second']:.1f}", "") for g, v in figures["graphs"].items()]
    rows += [(f"{g}: harness / direct invoke", f"{v['harness_overhead_ratio']:.2f}", "<= 1.15")
             for g, v in figures["graphs"].items()]
    rows += [(f"{g}: harness / (build + direct invoke)", f"{v['harness_over_build_and_invoke']:.2f}", "")
             for g, v in figures["graphs"].items()]
    rows += [("embedding agreement / raw encode (throughput)", f"{figures['embedding']['throughput_ratio']:.2f}", ">= 0.8"),
             (f"MLflow share of a {args.tracked_episodes}-episode job", f"{figures['tracking']['share_of_job']:.1%}", "< 5%"),
             ("start-up, one episode, no embeddings/tracking (s)", f"{figures['startup_seconds']:.2f}", "< 3")]
    for g, v in figures.get("surrogate", {}).items():
        rows += [(f"{g} surrogate: harness share of episode time", f"{v['harness_share_of_episodes']:.1%}", "< 5%"),
                 (f"{g} surrogate: harness share of the process", f"{v['harness_share_of_process']:.1%}", "")]
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':{width}}  {'measured':>9}  aim")
    for label, value, aim in rows:
        print(f"{label:{width}}  {value:>9}  {aim}")
    figures["measured_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(figures, indent=2)
    (args.out / f"bench-{figures['measured_at'].replace(':', '')}.json").write_text(text)
    (args.out / "latest.json").write_text(text)
    return figures


def entry() -> None:
    main()


if __name__ == "__main__":
    entry()
