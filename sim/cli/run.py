"""The Hydra entry point: ``dialectica`` (or ``python -m dialectica``)."""

from __future__ import annotations

import functools
import os
import shutil
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, cast

import hydra
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from dialectica.sim.authoring.params import ConfigError, did_you_mean
from dialectica.sim.cli.errors import INPUT, describe, say
from dialectica.sim.config.groups import (
    BROKEN,
    graph_options,
    import_strings,
    option,
    original,
    register_plugin_configs,
    remember,
)
from dialectica.sim.config.paths import cannot_create
from dialectica.sim.config.precheck import check_sweep, refuse_earlier_sweep
from dialectica.sim.config.resources import CONF_DIR, GROUPS, group_options
from dialectica.sim.engine import checkpoint
from dialectica.sim.engine.replay import HELP, arguments
from dialectica.sim.engine.replay_report import markdown
from dialectica.sim.secrets import install_logging

if TYPE_CHECKING:
    from dialectica.sim.config.typed import RunConfig

FAILED: list[str] = []  # why a finished single run exits 1 (too many episodes raised)
FLAGS = (
    "--help",
    "-h",
    "--hydra-help",
    "--version",
    "--cfg",
    "-c",
    "--resolve",
    "--package",
    "-p",
    "--run",
    "-r",
    "--multirun",
    "-m",
    "--shell-completion",
    "-sc",
    "--config-path",
    "-cp",
    "--config-name",
    "-cn",
    "--config-dir",
    "-cd",
    "--experimental-rerun",
    "--info",
    "-i",
)


class Run:
    """This process's run, as far as it got: what an interrupt or an error leaves behind depends on it."""

    out_dir: Path | None = None  # the run (or sweep job) directory, once Hydra made it
    resume_with: str = ""  # the override that resumes it: hydra.run.dir=... or hydra.sweep.dir=...
    started = False  # episodes may have been written: the directory stays, whatever happens next
    full_error = False  # HYDRA_FULL_ERROR=1 was set: tracebacks are shown


def discard(out_dir: Path | None) -> None:
    """Removes the run directory Hydra created for a run that never started, if nothing else is in it; a directory
    with episodes (another process's, or a run's to resume) is left as it is."""
    if out_dir is not None and out_dir.is_dir() and not (out_dir / "episodes.jsonl").exists():
        shutil.rmtree(out_dir / ".hydra", ignore_errors=True)
        for log in out_dir.glob("*.log"):
            log.unlink()
        if not any(out_dir.iterdir()):
            out_dir.rmdir()
            _remove_empty_parents(out_dir.parent)


def _remove_empty_parents(folder: Path) -> None:
    """The empty folders Hydra made above a discarded run (``results/runs``), up to the working directory."""
    cwd = Path.cwd().resolve()
    folder = folder.resolve()
    while folder != cwd and cwd in folder.parents and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def fail(message: str, out_dir: Path | None = None, code: int = INPUT) -> NoReturn:
    """Prints one line and exits ``code`` (2: bad input), removing the run directory Hydra created if nothing
    else is in it."""
    discard(out_dir)
    say(message)
    sys.exit(code)


def check_group_overrides(args: list[str]) -> None:
    """Hydra's own message for an unknown group option is several lines and exit 1; ours is one line and exit 2."""
    for arg in args:
        key, sep, value = arg.partition("=")
        key = key.lstrip("+~")
        if not sep or key not in GROUPS or (key == "hparams_search" and value == "null") or value.startswith("{"):
            continue  # not a choice: none, or a mapping merged into the group's config (++llm={temperature:0.2})
        if key == "graph" and value.startswith("["):  # Hydra would merge the graphs' configs into one
            fail(
                f"graph={value}: a run plays one graph, or every one (graph=all); valid: graph=NAME, graph=all, "
                f"or a sweep with a job per graph: -m graph={value.strip('[]')}"
            )
        options = graph_options() if key == "graph" else group_options(key)
        for choice in value.strip("[]").split(","):
            if key == "graph" and choice in BROKEN:
                fail(BROKEN[choice])
            if key == "graph" and ":" in choice:  # an import string: loaded (or refused) already
                continue
            if choice not in options:
                hint = did_you_mean(choice, options, f"{key}=")
                own = (
                    "; or a graph of your own: graph=package.module:attr or graph=path/to/file.py:attr"
                    if key == "graph"
                    else ""
                )
                fail(f"unknown {key}={choice!r}{hint}; valid choices: {', '.join(options)}{own}")


def check_arguments(args: list[str]) -> None:
    """Options Hydra does not know, and run or sweep folders that cannot be made, are one line before Hydra starts."""
    for arg in args:
        if arg.startswith("-") and arg.partition("=")[0] not in FLAGS:
            name = arg.lstrip("-").partition("=")[0]
            fail(
                f"unknown option {arg}; options: --help, list, -m (--multirun), --cfg job; "
                f"settings are key=value, e.g. {name}=..."
            )

    for arg in args:
        key, _, value = arg.lstrip("+").partition("=")
        if key in ("hydra.run.dir", "hydra.sweep.dir") and value and "${" not in value:
            why = cannot_create(Path(value).expanduser(), folder=True)
            if why:
                fail(f"{key}={value}: the run folder cannot be created there ({why}); give a writable folder")


def _terminate(signum: int, frame: Any) -> None:
    """SIGTERM ends the current run cleanly: its MLflow run is marked KILLED, finished episodes stay on disk."""
    raise KeyboardInterrupt("SIGTERM")


def limit_threads(hydra_cfg: Any) -> None:
    """Parallel sweep jobs share the cores: each gets cores // jobs threads for torch and BLAS."""
    n_jobs = OmegaConf.select(hydra_cfg, "launcher.n_jobs")
    if hydra_cfg.mode != RunMode.MULTIRUN or not n_jobs:
        return
    cores = os.cpu_count() or 1
    threads = str(max(1, cores // (cores if n_jobs < 0 else min(n_jobs, cores))))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = threads


def reported(task: Callable[[DictConfig], float | None]) -> Callable[[DictConfig], float | None]:
    """An exception escaping a single run's task is one line, said here: past this point Hydra would add its own
    line first. A sweep's job raises on, so that its sweeper and launcher see the failure."""

    @functools.wraps(task)
    def run(cfg: DictConfig) -> float | None:
        try:
            return task(cfg)
        except BaseException as exc:
            hydra_cfg = HydraConfig.get()
            if hydra_cfg.mode == RunMode.MULTIRUN and not (isinstance(exc, SystemExit) and not exc.code):
                from dialectica.sim.tracking.sweep import end_sweep  # lazy: only sweeps need it

                end_sweep(cfg, Path(hydra_cfg.sweep.dir), "KILLED" if isinstance(exc, KeyboardInterrupt) else "FAILED")
            if not isinstance(exc, Exception) or Run.full_error or hydra_cfg.mode == RunMode.MULTIRUN:
                raise
            message, code = describe(exc, Run.started)
            fail(message, None if Run.started else Run.out_dir, code)

    return run


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
@reported
def app(cfg: DictConfig) -> float | None:
    """Runs the configured graphs; returns the objective (for a sweeper) when ``objective`` is set."""
    hydra_cfg = HydraConfig.get()
    limit_threads(hydra_cfg)
    out_dir = Path(hydra_cfg.runtime.output_dir)
    Run.out_dir, Run.started = out_dir, False
    Run.resume_with = (
        f"hydra.sweep.dir={hydra_cfg.sweep.dir}" if hydra_cfg.mode == RunMode.MULTIRUN else f"hydra.run.dir={out_dir}"
    )
    parent = None
    if hydra_cfg.mode == RunMode.MULTIRUN:
        from dialectica.sim.tracking.sweep import parent_run_id  # lazy: only sweeps need it

        parent = parent_run_id(Path(hydra_cfg.sweep.dir))
    run_cfg = _run_config(cfg, hydra_cfg, out_dir, parent)
    from dialectica.sim.engine.runner import run  # lazy: start-up (sqlite3)

    signal.signal(signal.SIGTERM, _terminate)
    Run.started = True
    try:
        result = run(run_cfg)
    except ConfigError as exc:  # the store, a resume into another config, another process holding the directory
        fail(str(exc), None if run_cfg.resume else out_dir)  # a directory with episodes is never removed
    if result.already_finished:
        print(f"already finished: {out_dir} (resume=true)")
        return result.objective
    _tell(result, run_cfg, out_dir, sweep=hydra_cfg.mode == RunMode.MULTIRUN)
    return result.values.get("objective")


def _run_config(cfg: DictConfig, hydra_cfg: Any, out_dir: Path, parent: str | None) -> RunConfig:
    """The checked run config (bad input: one line and exit 2); a sweep's job labelled by its overrides."""
    try:
        from dialectica.sim.config.loader import (  # lazy: start-up (sqlite3)
            from_composed,
        )

        remember(str(OmegaConf.select(cfg, "graph.name", default="")))  # a job in another process of a sweep
        typed = cast("list[str]", OmegaConf.to_container(hydra_cfg.overrides.task, resolve=False))
        overrides = tuple(original(o) for o in typed)  # as typed: a path-form graph as its path
        run_cfg = from_composed(cfg, out_dir, overrides, parent)
        install_logging()  # from here on, every log record is scrubbed of the run's secrets
    except ConfigError as exc:
        fail(str(exc), out_dir)
    if parent is not None:  # the job's MLflow run is named by what tells it from the sweep's others
        from dataclasses import replace

        from dialectica.sim.tracking.sweep import job_label  # lazy: start-up (hydra, numpy)

        label = job_label(Path(hydra_cfg.sweep.dir), list(overrides))
        run_cfg = replace(run_cfg, tracking=replace(run_cfg.tracking, label=label))
    return run_cfg


def _tell(result: Any, run_cfg: RunConfig, out_dir: Path, sweep: bool) -> None:
    """The end of a run on the terminal: its table, what stopped it, a replay's report, where to look (a sweep's
    job leaves that to the sweep's end), graphs whose MLflow logging failed, and too many episodes raised
    (``FAILED``: exit 1)."""
    from dialectica.sim.engine.batch import format_table, raised_episodes  # lazy: start-up (langgraph, langchain-core)

    summary = result.values
    print(format_table(summary))
    print(f"outputs: {out_dir}")
    if summary.get("stopped_by"):
        print(
            f"dialectica: stopped by {summary['stopped_by']}: the episodes played are kept and summarised; the same "
            f"command with resume=true {Run.resume_with} and a larger {summary['stopped_by']} (or null) goes on",
            file=sys.stderr,
        )
    if result.replay is not None:
        print(markdown(result.replay), end="")
    if not sweep:  # a sweep says it once, at its end
        for line in where_to_look(run_cfg, summary):
            print(line)
    for name, entry in summary.get("graphs", {}).items():  # the run's work is on disk; only its MLflow run is not
        if "tracking_error" in entry:
            print(
                f"dialectica: warning: graph {name}: logging to MLflow failed ({entry['tracking_error']}); its episodes "
                f"and summary are in {out_dir}; once the store is fixed, run the same command with resume=true "
                f"{Run.resume_with} to log them",
                file=sys.stderr,
            )
    past, within = raised_episodes(summary, run_cfg.max_error_rate, out_dir)
    for line in within:  # the run stands (a raised episode counts as not converged): say which raised, and where
        print(f"dialectica: warning: {line}", file=sys.stderr)
    for problem in past:
        say(problem)
        FAILED.append(problem)


def where_to_look(run_cfg: RunConfig, summary: dict[str, Any]) -> list[str]:
    """The end of a run: its pages and the command that opens its MLflow runs."""
    lines = []
    if run_cfg.view.enabled:
        lines += [f"pages:   {run_cfg.out_dir / name / 'view' / 'index.html'}" for name in summary.get("graphs", {})]
    if run_cfg.tracking.enabled:
        from dialectica.sim.tracking.store import mlflow_ui  # lazy: start-up (ssl, http)

        lines.append(f"mlflow:  {mlflow_ui(run_cfg.tracking.uri)}")
    return lines


def main(args: list[str]) -> None:
    """``dialectica [run] KEY=VALUE ...``: the Hydra app, behind the checks that keep bad input to one line."""
    from dialectica.sim.cli import listing  # lazy: start-up (numpy)

    try:
        if args[:1] in (["--help"], ["-h"]):
            print(listing.usage())
            return
        graphs = import_strings(args)
        register_plugin_configs(graphs)
        for target in graphs:  # Hydra reads a slash in an option as a folder
            args = [a.replace(target, option(target)) if a.partition("=")[0].lstrip("+~") == "graph" else a for a in args]
        sys.argv[1:] = args
    except ConfigError as exc:
        fail(str(exc))
    single = not {"-m", "--multirun", "--cfg", "-c", "--hydra-help", "--info"} & set(args)
    study = next((a for a in args if a.lstrip("+").partition("=")[0] == "hparams_search"), None)
    # hydra.mode= says how to run it; a replay of a study's trial plays that one trial's config (the study's keys)
    modes = any(a.lstrip("+~").startswith(("hydra.mode=", "replay.run=")) for a in args)
    check_arguments(args)
    check_group_overrides(args)  # an unknown study is named first
    if single and not modes and study is not None and study.partition("=")[2].lower() not in ("null", "none", ""):
        fail(f"{study} is a study over many runs: add -m (dialectica -m {study} ...), or drop it to run one config")
    signal.signal(signal.SIGTERM, _terminate)
    with one_line_errors(), composed_once(single and not any(a.lstrip("+~").startswith("hydra.mode=") for a in args)):
        if not single and {"-m", "--multirun"} & set(args):
            from dialectica.sim.tracking.store import probe  # lazy: start-up (ssl, http)

            try:
                refuse_earlier_sweep(args, Path.cwd())
                check_sweep([a for a in args if not a.startswith("-")], Path.cwd(), probe, _resumable)
            except ConfigError as exc:
                fail(str(exc))
        app()
    if single:
        _exit_now(1 if FAILED else 0)


def _resumable(job_dir: Path, cfg: RunConfig) -> None:
    """A sweep job's config checked against the folder it resumes, before Hydra starts the sweep."""
    checkpoint.check(job_dir, cfg.resolved)


def replay(args: list[str]) -> None:
    """``dialectica replay RUN [from_turn=T] [KEY=VALUE ...] [out=DIR]``: the original run's command with the fork's
    keys on top, run as ``dialectica run``."""

    if args[:1] in (["--help"], ["-h"]):
        print(HELP)
        return
    main(arguments(args))


@contextmanager
def composed_once(run: bool) -> Iterator[None]:
    """A single run's config is composed once, not twice: ``@hydra.main`` first composes it only to read
    ``hydra.mode`` (about 0.15 s of start-up), which for a run without ``-m`` or ``hydra.mode=`` is RUN. Hydra's
    own answer when it cannot tell (``None``) makes it run the app as a single run, as asked."""
    if not run:
        yield
        return
    from hydra._internal.hydra import Hydra  # pinned below 1.4 (pyproject); a test runs the app through this

    get_mode = Hydra.get_mode
    Hydra.get_mode = lambda self, config_name, overrides: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        Hydra.get_mode = get_mode  # type: ignore[method-assign]


@contextmanager
def one_line_errors() -> Iterator[None]:
    """Whatever escapes the app ends as one line on stderr: bad input exits 2, a fault during the run 1, an
    interrupt 130 (SIGINT) or 143 (SIGTERM). Hydra is asked for the exception instead of its own report;
    HYDRA_FULL_ERROR=1 still shows the traceback."""
    full = Run.full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra raises rather than printing several lines and exiting 1
    try:
        yield
    except KeyboardInterrupt as exc:
        if full:
            traceback.print_exc()
        interrupted("SIGTERM" if exc.args == ("SIGTERM",) else "SIGINT")
    except Exception as exc:
        if full:
            raise
        message, code = describe(exc, Run.started)
        fail(message, None if Run.started else Run.out_dir, code)
    finally:
        if not full:
            os.environ.pop("HYDRA_FULL_ERROR", None)


def interrupted(name: str) -> NoReturn:
    """Ends an interrupted run with one line saying what it kept and how to resume it; exit 128 + the signal."""
    code = 128 + (signal.SIGTERM if name == "SIGTERM" else signal.SIGINT)
    if Run.started and Run.out_dir is not None:
        line = (
            f"interrupted ({name}); the finished episodes are in {Run.out_dir / 'episodes.jsonl'}; to resume, "
            f"run the same command with resume=true {Run.resume_with}"
        )
    else:
        discard(Run.out_dir)
        line = f"interrupted ({name}) before the run started; nothing was written"
    print(f"dialectica: {line}", file=sys.stderr)
    _exit_now(code)


def _exit_now(code: int = 0) -> NoReturn:
    """Ends a finished single run without tearing down every imported module one by one (about 0.4 s
    with langchain and pydantic loaded): every file is closed and every MLflow run ended by now; logs
    and the console are flushed here. Sweeps exit normally, so their launchers' exit hooks run."""
    import logging

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
