"""The Hydra entry point: ``dialectica`` (or ``python -m dialectica``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from dialectica.sim import fingerprint
from dialectica.sim.groups import CONF_DIR, graph_options, register_plugin_configs
from dialectica.sim.params import ConfigError

GROUPS = ("graph", "participants", "llm", "tracking")
FAILED: list[str] = []  # why a finished single run exits 1 (too many episodes raised)


def fail(message: str, out_dir: Path | None = None) -> None:
    """Prints one line and exits 2, removing the run directory Hydra created if nothing else is in it."""
    if out_dir is not None and out_dir.is_dir():
        shutil.rmtree(out_dir / ".hydra", ignore_errors=True)
        for log in out_dir.glob("*.log"):
            log.unlink()
        if not any(out_dir.iterdir()):
            out_dir.rmdir()
    print(f"dialectica: error: {message}", file=sys.stderr)
    sys.exit(2)


def check_group_overrides(args: list[str]) -> None:
    """Hydra's own message for an unknown group option is several lines and exit 1; ours is one line and exit 2."""
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or key not in GROUPS:
            continue
        options = graph_options() if key == "graph" else sorted(p.stem for p in (CONF_DIR / key).glob("*.yaml"))
        for choice in value.split(","):
            if choice not in options:
                fail(f"unknown {key}={choice!r}; valid choices: {', '.join(options)}")


def _terminate(signum, frame) -> None:
    """SIGTERM ends the current run cleanly: its MLflow run is marked KILLED, finished episodes stay on disk."""
    raise KeyboardInterrupt("SIGTERM")


def limit_threads(hydra_cfg) -> None:
    """Parallel sweep jobs share the cores: each gets cores // jobs threads for torch and BLAS."""
    n_jobs = OmegaConf.select(hydra_cfg, "launcher.n_jobs")
    if hydra_cfg.mode != RunMode.MULTIRUN or not n_jobs:
        return
    cores = os.cpu_count() or 1
    threads = str(max(1, cores // (cores if n_jobs < 0 else min(n_jobs, cores))))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = threads


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def app(cfg: DictConfig) -> float | None:
    """Runs the configured graphs; returns the objective (for a sweeper) when ``objective`` is set."""
    from dialectica.sim.config import from_hydra
    from dialectica.sim.runner import format_table, run_experiment

    hydra_cfg = HydraConfig.get()
    limit_threads(hydra_cfg)
    out_dir = Path(hydra_cfg.runtime.output_dir)
    parent = None
    if hydra_cfg.mode == RunMode.MULTIRUN:
        from dialectica.sim.sweep import parent_run_id  # lazy: only sweeps need it

        parent = parent_run_id(Path(hydra_cfg.sweep.dir))
    try:
        run_cfg = from_hydra(cfg, out_dir, tuple(hydra_cfg.overrides.task), parent)
    except ConfigError as exc:
        fail(str(exc), out_dir)
    if run_cfg.tracking.enabled and parent is None:  # a sweep's server was probed before its first job
        from dialectica.sim.store import probe

        try:
            probe(run_cfg.tracking.uri)
        except ConfigError as exc:
            fail(str(exc), out_dir)
    if run_cfg.resume:
        try:
            fingerprint.check(out_dir, run_cfg.resolved)
        except ConfigError as exc:  # the directory is left as it was
            fail(str(exc))
        if (out_dir / "summary.json").exists():
            print(f"already finished: {out_dir} (resume=true)")
            return json.loads((out_dir / "summary.json").read_text()).get("objective")
    signal.signal(signal.SIGTERM, _terminate)
    try:
        summary = run_experiment(run_cfg)
    except ConfigError as exc:  # found once running: another process holds the directory (left as it is)
        fail(str(exc))
    print(format_table(summary))
    print(f"outputs: {out_dir}")
    for problem in too_many_errors(summary, run_cfg.max_error_rate, out_dir):
        print(f"dialectica: error: {problem}", file=sys.stderr)
        FAILED.append(problem)
    return summary.get("objective")


def too_many_errors(summary: dict, max_error_rate: float, out_dir: Path) -> list[str]:
    """One line per graph whose episodes raised more often than ``max_error_rate``."""
    problems = []
    for name, entry in summary.get("graphs", {}).items():
        metrics = entry.get("metrics", {})
        n, rate = int(metrics.get("episodes", 0)), metrics.get("error_rate", 0.0)
        if n and rate > max_error_rate:
            what = "every episode raised" if rate == 1 else f"{round(rate * n)} of {n} episodes raised"
            problems.append(f"graph {name}: {what} (error_rate {rate:.2f} > max_error_rate {max_error_rate}); "
                            f"the tracebacks are the 'error' fields of {out_dir / 'episodes.jsonl'}")
    return problems


def main() -> None:
    """``dialectica``: ``list`` and ``--help`` answer here; everything else is the Hydra app."""
    from dialectica.sim import listing

    args = sys.argv[1:]
    try:
        if args[:1] == ["list"]:
            print(listing.list_graphs())
            return
        if args[:1] in (["--help"], ["-h"]):
            print(listing.usage())
            return
        register_plugin_configs()
    except ConfigError as exc:
        fail(str(exc))
    single = not {"-m", "--multirun", "--cfg", "-c", "--hydra-help", "--info"} & set(args)
    check_group_overrides(args)
    if not single and {"-m", "--multirun"} & set(args):
        from dialectica.sim.precheck import check_sweep

        try:
            check_sweep([a for a in args if not a.startswith("-")], Path.cwd())
        except ConfigError as exc:
            fail(str(exc))
    app()
    if single:
        _exit_now(1 if FAILED else 0)


def _exit_now(code: int = 0) -> None:
    """Ends a finished single run without tearing down every imported module one by one (about 0.4 s
    with langchain and pydantic loaded): every file is closed and every MLflow run ended by now; logs
    and the console are flushed here. Sweeps exit normally, so their launchers' exit hooks run."""
    import logging

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
