"""``dialectica bench``: performance figures measured side by side in one run.

Prints a table and writes ``results/benchmarks/<timestamp>.json`` (and ``latest.json``):
scripted episodes per second per graph; the harness's time against calling the same compiled
graph directly; embedding-agreement throughput against a raw ``SentenceTransformer.encode`` of the
same sentences; MLflow's share of a 200-episode job; start-up time of a one-episode run; peak
resident memory of a long panel run against a short one. With ``--surrogate``, also the harness's
own time outside model calls in surrogate runs on the local LLM; with ``--shared-cores``, two surrogate jobs at
once against the same two one after the other.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dialectica.metrics.text import sentences
from dialectica.sim.authoring.cast import CastRequest, build_deps
from dialectica.sim.authoring.spec import Episode
from dialectica.sim.config.loader import load
from dialectica.sim.config.typed import RunConfig
from dialectica.sim.llm.machine import ENV

OUT = Path("results") / "benchmarks"  # relative to the working directory
FAST_HANG = "++per_graph.tribunal.cast.hang_s=0.2"  # the planted hanging collector, kept short


def _run_config(graph: str, episodes: int, tmp: Path, *extra: str) -> RunConfig:
    return load(
        [
            f"graph={graph}",
            f"episodes={episodes}",
            "tracking=none",
            "progress=false",
            "seed=7",
            FAST_HANG,
            "embedding_cache=null",
            *extra,
        ],
        out_dir=tmp / graph,
        cwd=tmp,
    )


def episodes_per_second(graph: str, episodes: int, tmp: Path, embed: Any) -> float:
    from dialectica.sim.engine.batch import run_graph  # lazy: start-up (langgraph, langchain-core)

    cfg = _run_config(graph, episodes, tmp)
    with (tmp / f"{graph}.jsonl").open("w") as sink:
        run_graph(cfg.graphs[0], _run_config(graph, 1, tmp), embed, sink)  # warm-up: imports, the one compile
        start = time.perf_counter()
        run_graph(cfg.graphs[0], cfg, embed, sink)
    return episodes / (time.perf_counter() - start)


def harness_overhead(graph: str, episodes: int, tmp: Path, embed: Any) -> dict[str, float]:
    """``run_episode`` (cast, metered invoke, typed record) against the same compiled graph's own invoke (or
    play loop) with the same deps, built beforehand. Both paths run each episode once untimed first, so
    they find the embedding cache equally warm; the two are timed in alternation, so load on the machine
    falls on both alike."""
    from dialectica.sim.engine.build import EpisodePlan, episode_seed  # lazy: start-up (numpy)
    from dialectica.sim.engine.episode import run_episode  # lazy: start-up (langgraph, langchain-core)

    run = _run_config(graph, episodes, tmp).graphs[0]
    spec, params, compiled = run.spec, run.params, run.spec.compiled()
    harness = direct = 0.0
    for i in range(episodes):
        scenario, seed = run.scenarios[i % len(run.scenarios)], episode_seed(7, graph, i)
        plan = EpisodePlan(graph, i, seed, scenario, "scripted", datasets=run.datasets, options=run.options)
        request = CastRequest(scenario, seed, embed=embed, datasets=run.datasets, options=run.options)
        run_episode(spec, params, plan, embed)  # warm-up
        episode = Episode(build_deps(spec, "scripted", request), params, seed)
        state, config = spec.initial_state(scenario, params), {"recursion_limit": spec.recursion_limit(params)}
        start = time.perf_counter()
        _ = spec.play(compiled, episode, state, config) if spec.play else compiled.invoke(state, config, context=episode)
        direct += time.perf_counter() - start
        start = time.perf_counter()
        run_episode(spec, params, plan, embed)
        harness += time.perf_counter() - start
    return {"harness_seconds": harness, "direct_seconds": direct, "harness_overhead_ratio": harness / direct}


def embedding_throughput(tmp: Path) -> tuple[float, float, float]:
    """(ours seconds, raw seconds, raw/ours): agreement over a panel run's answers, cold caches both."""
    from dialectica.metrics.embedding import embedding_agreement, round_answers  # lazy: start-up (numpy, Stemmer)
    from dialectica.sim import records  # lazy: start-up (pydantic)
    from dialectica.sim.engine.batch import run_experiment  # lazy: start-up (langgraph, langchain-core)
    from dialectica.sim.engine.embedding import Embedder, _model  # lazy: start-up (numpy)

    run_experiment(_run_config("socratic_panel", 60, tmp, "embeddings=false", "view.enabled=false"), echo=lambda _: None)
    full = list(records.read(tmp / "socratic_panel" / records.FILE))
    distinct = sorted({s for r in full for answers in round_answers(r).values() for a in answers for s in sentences(a)})
    model = _model()
    model.encode(distinct[:64])  # warm-up
    start = time.perf_counter()
    model.encode(distinct, batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    raw = time.perf_counter() - start
    start = time.perf_counter()
    embedding_agreement(full, Embedder())
    ours = time.perf_counter() - start
    return ours, raw, raw / ours


def _child(args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of ``dialectica ARGS`` in a fresh process.

    A small wrapper process runs it and reads the peak from its children's rusage, so that only this
    run counts (the run itself ends with ``os._exit``, past any hook of its own).
    """
    wrapper = (
        "import resource, subprocess, sys\n"
        "subprocess.run([sys.executable, '-m', 'dialectica', *sys.argv[1:]], check=True, capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", wrapper, *args], check=True, capture_output=True, text=True, cwd=cwd)
    wall = time.perf_counter() - start
    return wall, int(proc.stdout.split()[-1]) / 1024


def memory_growth(tmp: Path, episodes: int) -> dict[str, float]:
    """Peak RSS of a panel run of ``episodes`` episodes against one of a tenth as many (same settings)."""
    common = ["graph=socratic_panel", "tracking=none", "embeddings=false", "progress=false", "view.enabled=false"]
    _, short = _child([*common, f"episodes={max(1, episodes // 10)}", f"hydra.run.dir={tmp / 'rss_short'}"], tmp)
    long_wall, long = _child([*common, f"episodes={episodes}", f"hydra.run.dir={tmp / 'rss_long'}"], tmp)
    return {
        "episodes": episodes,
        "peak_rss_mib": long,
        "peak_rss_mib_tenth": short,
        "growth_ratio": long / short,
        "wall_seconds": long_wall,
    }


def tracking_share(tmp: Path, episodes: int) -> tuple[float, float]:
    """(tracking seconds, share of the job's wall time) for a 200-episode panel job into SQLite."""
    from dialectica.sim.engine.batch import run_experiment  # lazy: start-up (langgraph, langchain-core)

    cfg = load(
        [
            "graph=socratic_panel",
            f"episodes={episodes}",
            "progress=false",
            "seed=7",
            f"tracking.uri=sqlite:///{tmp / 'ml' / 'mlflow.db'}",
        ],
        out_dir=tmp / "tracked",
        cwd=tmp,
    )
    start = time.perf_counter()
    summary = run_experiment(cfg, echo=lambda _: None)
    total = time.perf_counter() - start
    seconds = summary["graphs"]["socratic_panel"]["phase_seconds"]["tracking"]
    return seconds, seconds / total


def tracing_overhead(tmp: Path, episodes: int, graph: str = "interview") -> dict[str, float]:
    """Wall seconds of one scripted run of ``episodes`` into a fresh SQLite store with ``traces=none`` (the default
    of a scripted run), ``traces=3`` and ``traces=all``, in one process after a warm-up run,
    ``none`` timed before and after the others (its best counts), so that load on the machine falls on all alike."""
    from dialectica.sim.engine.batch import run_experiment  # lazy: start-up (langgraph, langchain-core)

    def timed(mode: str, name: str, count: int = episodes) -> float:
        store = tmp / "traces" / name
        cfg = load(
            [
                f"graph={graph}",
                f"episodes={count}",
                "progress=false",
                "seed=7",
                "view.enabled=false",
                f"traces={mode}",
                f"tracking.uri=sqlite:///{store / 'mlflow.db'}",
            ],
            out_dir=store / "run",
            cwd=tmp,
        )
        start = time.perf_counter()
        run_experiment(cfg, echo=lambda _: None)
        return time.perf_counter() - start

    timed("all", "warm", 2)  # imports, the compile, MLflow's tracer
    none = timed("none", "none")
    three, every = timed("3", "three"), timed("all", "all")
    none = min(none, timed("none", "none-again"))
    return {
        "episodes": episodes,
        "none_seconds": none,
        "three_seconds": three,
        "all_seconds": every,
        "three_ratio": three / none,
        "all_ratio": every / none,
    }


def startup_seconds(tmp: Path, *extra: str, repeats: int = 5) -> float:
    """Median wall time of ``dialectica`` for one interview episode, tracking and embeddings off (a fresh process
    each time), with ``extra`` overrides (``view.enabled=false``: no figures or pages)."""
    args = ["graph=interview", "episodes=1", "tracking=none", "embeddings=false", "progress=false", *extra]
    label = "lean" if extra else "startup"
    return statistics.median(_child([*args, f"hydra.run.dir={tmp / f'{label}{i}'}"], tmp)[0] for i in range(repeats))


def surrogate_overhead(records: list[dict[str, Any]]) -> float:
    """Share of the episodes' wall time spent outside model calls: the harness's own time in an LLM run."""
    wall = sum(r["timings"]["episode_seconds"] for r in records)
    return 1 - sum(r["timings"]["llm_seconds"] for r in records) / wall if wall else float("nan")


def _surrogate_command(graph: str, out: Path, tmp: Path, episodes: int, *extra: str) -> list[str]:
    """A cold (no call cache) ``participants=surrogate llm=llamacpp`` run of ``graph`` into ``out``."""
    return [
        str(Path(sys.executable).parent / "dialectica"),
        f"graph={graph}",
        "participants=surrogate",
        "llm=llamacpp",
        f"episodes={episodes}",
        "llm.cache=null",
        "progress=false",
        f"hydra.run.dir={out}",
        f"tracking.uri=sqlite:///{tmp / 'surrogate' / 'mlflow.db'}",
        *extra,
    ]


def surrogate_run(graph: str, tmp: Path, episodes: int = 1) -> dict[str, float]:
    """A cold surrogate run of ``graph`` in a fresh process: the harness's share of the episodes' time and of the
    whole process (start-up and MLflow included)."""
    out = tmp / "surrogate" / graph
    start = time.perf_counter()
    subprocess.run(_surrogate_command(graph, out, tmp, episodes), check=True, capture_output=True, cwd=tmp)
    wall = time.perf_counter() - start
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    model = sum(r["timings"]["llm_seconds"] for r in records)
    return {
        "wall_seconds": wall,
        "llm_seconds": model,
        "harness_share_of_episodes": surrogate_overhead(records),
        "harness_share_of_process": (wall - model) / wall,
    }


def shared_cores(tmp: Path, graph: str = "interview", episodes: int = 2) -> dict[str, Any]:
    """Two cold surrogate jobs (seeds 0 and 1) one after the other, then the same two at once, then at once with a
    lock file each (as if there were no machine lock, ``sim/llm/machine.py``): wall seconds, the ratios of the
    concurrent runs to the sequential one, and when the first of the two at once finished (as a share of both)."""

    def jobs(name: str, together: bool, own_locks: bool) -> tuple[float, float]:
        """(wall seconds of both, seconds until the first finished)."""
        commands = [
            _surrogate_command(graph, tmp / "shared" / f"{name}{seed}", tmp, episodes, f"seed={seed}", "tracking=none")
            for seed in (0, 1)
        ]
        envs = [os.environ | ({ENV: str(tmp / "shared" / f"{name}{seed}.lock")} if own_locks else {}) for seed in (0, 1)]
        start = time.perf_counter()
        if not together:
            for command, env in zip(commands, envs, strict=True):
                subprocess.run(command, env=env, cwd=tmp, check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - start, float("nan")
        running = [
            subprocess.Popen(c, env=e, cwd=tmp, stdout=subprocess.DEVNULL) for c, e in zip(commands, envs, strict=True)
        ]
        first = float("nan")
        while running:
            pid, status = os.wait()
            if status:
                raise RuntimeError(f"a concurrent {graph} surrogate job failed")
            running = [p for p in running if p.pid != pid]
            first = time.perf_counter() - start if math.isnan(first) else first
        return time.perf_counter() - start, first

    (tmp / "shared").mkdir(parents=True, exist_ok=True)
    sequential, _ = jobs("sequential", together=False, own_locks=False)
    together, first = jobs("together", together=True, own_locks=False)
    unlocked, _ = jobs("unlocked", together=True, own_locks=True)
    return {
        "graph": graph,
        "episodes": episodes,
        "sequential_seconds": sequential,
        "together_seconds": together,
        "unlocked_seconds": unlocked,
        "together_ratio": together / sequential,
        # 1: the jobs took turns call by call and finished together; 0.5: one waited for the other to finish
        "together_first_done_share": first / together,
        "unlocked_ratio": unlocked / sequential,
    }


def _server_run(url: str, tmp: Path, name: str, episodes: int, concurrency: int) -> tuple[float, list[dict[str, Any]]]:
    exe = Path(sys.executable).parent / "dialectica"
    out = tmp / "server" / name
    start = time.perf_counter()
    subprocess.run(
        [
            str(exe),
            "graph=interview",
            "participants=surrogate",
            "llm=openai",
            f"llm.base_url={url}",
            "llm.model=latency",
            "llm.cache=null",
            f"episodes={episodes}",
            f"max_concurrency={concurrency}",
            "progress=false",
            "tracking=none",
            f"hydra.run.dir={out}",
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    wall = time.perf_counter() - start
    lines = (out / "episodes.jsonl").read_text().splitlines()
    return wall, [{k: v for k, v in json.loads(line).items() if k != "timings"} for line in lines]


def server_concurrency(tmp: Path, latency_s: float = 0.3, in_flight: int = 16, episodes: int = 16) -> dict[str, Any]:
    """Surrogate interview runs (every role on the server) against ``latency_server`` in fresh processes,
    start-up included: ``episodes`` one at a time and ``in_flight`` at a time (same records?), then
    ``8 * in_flight`` episodes in flight for the throughput."""
    from dialectica.sim.dev.latency_server import serving  # lazy: start-up (pydantic, ssl)

    with serving(latency_s) as url:
        one, seq = _server_run(url, tmp, "sequential", episodes, 1)
        many, par = _server_run(url, tmp, "parallel", episodes, in_flight)
        long_wall, _ = _server_run(url, tmp, "long", 8 * in_flight, in_flight)
    return {
        "latency_s": latency_s,
        "in_flight": in_flight,
        "episodes": episodes,
        "sequential_seconds": one,
        "parallel_seconds": many,
        "speedup": one / many,
        "same_records": seq == par,
        "throughput_ratio": (8 * in_flight / long_wall) / (episodes / one),
    }


def model_rates(overrides: list[str], tmp: Path, prompt_tokens: int = 256, generated: int = 64) -> dict[str, float]:
    """The local model's speed on this machine now, with the settings a run gets from ``overrides``
    (``llm=llamacpp llm.preset=...``): prompt tokens/s (a fresh prompt of ``prompt_tokens`` tokens, one token out)
    and generated tokens/s (``generated`` tokens after that prompt, its prefix cached, end of text banned)."""
    from dialectica.sim.llm.llamacpp import LlamaCppBackend  # lazy: start-up (numpy)

    llama = LlamaCppBackend(load(["tracking=none", *overrides], out_dir=tmp / "rates", cwd=tmp).voices.settings).llama
    words = " ".join(f"w{i}" for i in range(prompt_tokens * 2))
    tokens = llama.tokenize(words.encode(), add_bos=True)[:prompt_tokens]
    llama.reset()
    start = time.perf_counter()
    llama.eval(tokens)
    read = time.perf_counter() - start
    start = time.perf_counter()
    stream = llama.generate(tokens, temp=0.0, logits_processor=[_ban(llama.token_eos())])  # the prompt is cached
    for count, _ in enumerate(stream, start=1):
        if count == generated:
            break
    write = time.perf_counter() - start
    return {"prompt_tokens_per_second": len(tokens) / read, "generated_tokens_per_second": generated / write}


def _ban(token: int) -> Callable[[Any, Any], Any]:
    def ban(ids: Any, scores: Any) -> Any:
        scores[token] = -float("inf")
        return scores

    return ban


def token_figures(graph: str, tmp: Path, overrides: list[str], rates: dict[str, float], episodes: int = 1) -> dict[str, Any]:
    """A cold surrogate run of ``graph`` on the local model (``overrides``) against its compute bound: calls, prompt and
    generated tokens, the share of prompt tokens served from the prefix cache (all roles, and the roles that speak
    more than once an episode), seconds per call, and the episodes' model seconds divided by the bound (prompt
    tokens / prompt tokens per second + generated tokens / generated tokens per second, ``rates`` measured in the same
    benchmark)."""
    exe = Path(sys.executable).parent / "dialectica"
    out = tmp / "tokens" / graph
    subprocess.run(
        [
            str(exe),
            f"graph={graph}",
            "participants=surrogate",
            *overrides,
            f"episodes={episodes}",
            "llm.cache=null",
            "progress=false",
            "tracking=none",
            "view.enabled=false",
            f"hydra.run.dir={out}",
        ],
        check=True,
        capture_output=True,
        cwd=tmp,
    )
    from dialectica.sim import records  # lazy: start-up (pydantic)

    prompt = generated = cached = multi_prompt = multi_cached = 0
    calls, seconds = 0, 0.0
    roles: dict[str, dict[str, int]] = {}
    for record in records.read(out / records.FILE, keep=False):
        timings, usage = record["timings"], record["usage"]
        calls += int(usage.get("llm_calls", 0))
        seconds += float(timings.get("llm_seconds", 0.0))
        by_role_calls = usage.get("calls_by_role", {})
        for role, (p, g, c) in timings.get("model_tokens_by_role", {}).items():
            prompt, generated, cached = prompt + p, generated + g, cached + c
            mine = roles.setdefault(role, {"calls": 0, "prompt_tokens": 0, "generated_tokens": 0, "cached_tokens": 0})
            mine["calls"] += int(by_role_calls.get(role, 0))
            mine["prompt_tokens"] += p
            mine["generated_tokens"] += g
            mine["cached_tokens"] += c
            if by_role_calls.get(role, 0) > 1:
                multi_prompt, multi_cached = multi_prompt + p, multi_cached + c
    bound = prompt / rates["prompt_tokens_per_second"] + generated / rates["generated_tokens_per_second"]
    return {
        "episodes": episodes,
        "calls": calls,
        "prompt_tokens": prompt,
        "generated_tokens": generated,
        "prompt_cached_share": cached / prompt if prompt else math.nan,
        "multi_turn_cached_share": multi_cached / multi_prompt if multi_prompt else math.nan,
        "seconds_per_call": seconds / calls if calls else math.nan,
        "model_seconds": seconds,
        "bound_seconds": bound,
        "over_bound": seconds / bound if bound else math.nan,
        "roles": roles,
    }
