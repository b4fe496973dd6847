"""``dialectica.evaluate(app, ...)``: a graph used as it is, run like ``dialectica graph=...`` from Python.

It composes the same Hydra config as the command line, so the run directory, records, pages, MLflow run and
summary are the same, and ``dialectica compare``, ``dialectica report``, resume and sweeps work on it.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dialectica.sim.adapter import ecosystem
from dialectica.sim.adapter.app import App
from dialectica.sim.adapter.judges import LLMJudge
from dialectica.sim.adapter.strings import import_object
from dialectica.sim.adapter.users import LLMUser
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.authoring.spec import GraphSpec
from dialectica.sim.config import discovery
from dialectica.sim.config.resources import CONF_DIR
from dialectica.sim.records import load_episodes

if TYPE_CHECKING:
    import pandas as pd


class EpisodesFailed(RuntimeError):
    """More episodes raised than ``max_error_rate`` allows (``overrides=["max_error_rate=1"]`` accepts any share);
    the message names the records file and the first traceback's exception. The run directory is complete."""


@dataclass(frozen=True)
class Evaluation:
    """What ``evaluate`` returns.

    Attributes:
        name: The graph's name in records and MLflow.
        run_dir: The run directory (``summary.json``, ``episodes.jsonl``, pages).
        metrics: The run's metrics, named as everywhere (``convergence_rate`` and its interval, ``rounds_mean``,
            ``pass_hat/<k>``, ``scenario/<name>/convergence_rate``, ``termination/<reason>``, ...).
        mlflow_run_id: The MLflow run, or None with ``tracking="none"``.
    """

    name: str
    run_dir: Path
    metrics: dict[str, float]
    mlflow_run_id: str | None

    @cached_property
    def episodes(self) -> pd.DataFrame:
        """One row per episode (``dialectica.load_episodes``)."""

        return load_episodes(self.run_dir, [self.name])

    def __repr__(self) -> str:
        m = self.metrics
        episodes = int(m.get("episodes", 0))
        failed = round(m.get("error_rate", 0.0) * episodes)
        return (
            f"Evaluation({self.name}: {episodes} episodes, convergence_rate "
            f"{m.get('convergence_rate', float('nan')):.2f} ({m.get('convergence_rate_ci95_low', float('nan')):.2f}-"
            f"{m.get('convergence_rate_ci95_high', float('nan')):.2f}), "
            f"{f'{failed} raised (see their error fields), ' if failed else ''}"
            f"{f'{m[CACHED]:.0%} of model calls replayed from the call cache, ' if m.get(CACHED) else ''}"
            f"run_dir={self.run_dir})"
        )


CACHED = "cache_hit_rate"  # said in the repr: a rerun after editing the graph's model code replays the old replies


def _scenario_file(scenarios: Any, out_dir: Path) -> str:
    """A path as it is; a list (or a mapping of name -> scenario) written to ``<run>/scenarios.yaml``, so the run
    keeps what it evaluated."""
    if isinstance(scenarios, (str, Path)):
        return str(scenarios)
    if isinstance(scenarios, Mapping):
        scenarios = [{"name": str(k), **dict(v)} for k, v in scenarios.items()]
    if not isinstance(scenarios, Sequence) or not scenarios:
        raise ConfigError(
            "scenarios must be a non-empty list of mappings (each with at least 'name'), a mapping of "
            "name -> scenario, or the path of a YAML file or folder of them"
        )
    path = out_dir / "scenarios.yaml"
    text = yaml.safe_dump([dict(s) for s in scenarios], sort_keys=False, allow_unicode=True)
    if path.exists() and path.read_text() != text:  # another run's: resuming it with these would mix the two
        raise ConfigError(f"{out_dir} holds a run of other scenarios ({path}); choose another out_dir, or delete it")
    out_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def _needs_model(user: Any, *judges: Any) -> bool:
    """Whether the local model must play a role: an LLM user or an LLM judge (or rubric metric) without a model."""
    return (isinstance(user, LLMUser) and user.model is None) or any(
        isinstance(j, LLMJudge) and j.model is None for j in judges
    )


def evaluate(
    app: Any,
    *,
    scenarios: Any = None,
    user: Any = None,
    judge: Any = None,
    episodes: int = 20,
    seed: int = 0,
    max_turns: int = 10,
    judge_every_turn: bool = False,
    metrics: Sequence[Any] | Any = (),
    params: Mapping[str, Any] | None = None,
    tracking: str | None = None,
    max_concurrency: int | None = None,
    name: str | None = None,
    context: Any = None,
    endings: Mapping[str, str] | None = None,
    ending: Callable[[dict[str, Any]], str | None] | None = None,
    llm: str | Mapping[str, Any] | None = None,
    out_dir: str | Path | None = None,
    progress: bool = True,
    overrides: Sequence[str] = (),
) -> Evaluation:
    """Evaluates a LangGraph graph as it is: seeded episodes of a simulated user talking to it, judged.

    Args:
        app: A compiled graph, a factory ``f(**knobs) -> compiled graph``, or an import string
            ``"package.module:attr"``; or a native ``GraphSpec`` (its cast plays, no user or judge).
        scenarios: A list of mappings (``name``, plus ``turns``, ``persona``, ``rubric``, ``input`` and keys of
            your own), or the path of a YAML file or folder of them; for a ``GraphSpec``, names of its scenarios
            (None: all).
        user: A list of turns, a function ``(messages, scenario, rng) -> str | None``, an ``LLMUser``, or None
            (each scenario's ``turns``).
        judge: A rule ``(messages, scenario[, state]) -> bool | Verdict``, an ``LLMJudge``, or None (no judge).
        episodes: Episodes in all, cycling through the scenarios.
        seed: The run seed; each episode's seed derives from it.
        max_turns: The user's turns at most.
        judge_every_turn: Judge after each of the graph's replies and end the episode as soon as the judge passes
            it; False (the default): judge once, after the user, the graph or the turn limit ended the dialogue.
        metrics: Evaluators from the ecosystem that score every episode besides the judge: openevals or agentevals
            evaluators and MLflow scorers, as they are (``score/<key>`` in records, summary and MLflow, and as
            feedback on traced episodes); one, or a list.
        params: The graph's knobs (``dialectica list`` shows them): context fields and factory arguments.
        tracking: An MLflow tracking URI, ``"none"``, or None for the project store (``results/mlflow.db``).
        max_concurrency: Episodes in flight at once (None: the backend's default).
        name: The graph's name (default: the import string, or the graph's own name).
        context: The graph's runtime context: an object, a mapping, or ``f(scenario) -> context``.
        endings: The graph's own endings, reason -> meaning.
        ending: ``ending(final_state) -> reason | None``.
        llm: The model behind LLM users and judges without a model of their own: ``"llamacpp"``, ``"openai"``,
            or a mapping of ``llm`` keys; None: the local model if one is needed, else none.
        out_dir: The run directory (default ``results/runs/<time>``).
        progress: Show a progress bar.
        overrides: More Hydra overrides, as on the command line (``["llm.preset=qwen2.5-coder-1.5b"]``;
            ``["resume=true"]`` with the same ``out_dir`` finishes a killed run, or returns a finished one).

    Raises:
        ConfigError: bad input, in one line naming the key and the valid choices; nothing is left behind.
        EpisodesFailed: more episodes raised than ``max_error_rate`` (0.5) allows, as the command line exits 1;
            below it, the returned evaluation's repr says how many raised.
    """

    run: dict[str, Any] = {
        "episodes": episodes,
        "seed": seed,
        "params": params or {},
        "tracking": tracking,
        "max_concurrency": max_concurrency,
        "llm": llm,
        "progress": progress,
    }
    if isinstance(app, GraphSpec):  # a native graph: its own casts and scenarios
        return _native(app, scenarios=scenarios, user=user, judge=judge, out_dir=out_dir, overrides=overrides, **run)
    graph = _as_is(
        app,
        name,
        user=user,
        judge=judge,
        context=context,
        endings=endings,
        ending=ending,
        max_turns=max_turns,
        judge_every_turn=judge_every_turn,
        metrics=metrics,
    )
    spec = graph.spec()
    discovery.register(spec)
    run_dir = _run_dir(out_dir)
    args = [f"participants={getattr(graph.user, 'kind', 'scripted')}"]
    if not isinstance(llm, str) and _needs_model(graph.user, graph.judge, *graph.metrics):
        args.append("llm=llamacpp")
    return _guarded(run_dir, lambda: _run(spec, run_dir, [*args, *overrides], scenarios=scenarios, **run))


def _as_is(
    app: Any,
    name: str | None,
    *,
    endings: Mapping[str, str] | None,
    metrics: Sequence[Any] | Any,
    **options: Any,
) -> App:
    """The graph used as it is, imported where ``app`` is an import string, and named (``name``, else its own)."""

    target = import_object(app) if isinstance(app, str) else app
    label = name or (discovery.display_name(app) if isinstance(app, str) else _own_name(target))
    one = ecosystem.is_evaluator(metrics) or hasattr(metrics, "judge")
    several = () if metrics is None else (metrics,) if one else tuple(metrics)  # one evaluator, or several
    return App(target, name=label, endings=dict(endings or {}), metrics=several, **options)


def _run_dir(out_dir: str | Path | None) -> Path:
    from dialectica.sim.config.loader import default_out_dir  # lazy: start-up (omegaconf)

    return Path(out_dir) if out_dir is not None else default_out_dir()


def _guarded(run_dir: Path, run: Callable[[], Evaluation]) -> Evaluation:
    """``run()``; on bad input the run directory it made is removed: nothing half-written is left as if it ran."""
    fresh = not run_dir.exists()
    try:
        return run()
    except ConfigError:
        if fresh:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise


def _native(
    spec: Any, *, scenarios: Any, user: Any, judge: Any, out_dir: str | Path | None, overrides: Sequence[str], **kw: Any
) -> Evaluation:
    """A native graph (a ``GraphSpec``): its casts play, ``scenarios`` selects by name (None: all of them)."""

    if user is not None or judge is not None:
        raise ConfigError(
            f"graph {spec.name} is a GraphSpec: its cast plays the participants and its outcome decides "
            "the ending; leave user and judge out (participants=... in overrides picks its cast)"
        )
    if scenarios is not None and (isinstance(scenarios, (str, Path)) or not all(isinstance(n, str) for n in scenarios)):
        raise ConfigError("scenarios of a GraphSpec are names from its datasets (a list of strings), or None for all")
    discovery.register(spec)
    run_dir = _run_dir(out_dir)
    selected = [f"scenario=[{','.join(scenarios)}]"] if scenarios else []
    return _guarded(run_dir, lambda: _run(spec, run_dir, [*selected, *overrides], scenarios=None, **kw))


def _own_name(target: Any) -> str:
    """The compiled graph's own name if it set one, else where it lives (``support_bot.graph.graph``, a factory
    ``mybot.build`` as on the command line; a script's ``script.graph``, a notebook's the variable's name), else
    ``app``."""
    own = getattr(target, "name", None)
    if isinstance(own, str) and own != "LangGraph":
        return own
    import sys

    for module_name, module in list(sys.modules.items()):
        if module_name.startswith(("dialectica.", "langgraph", "langchain", "_")):
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            if value is target:
                return f"{module_name}.{attr}"
    main = sys.modules.get("__main__")
    for attr, value in list(getattr(main, "__dict__", {}).items()):
        if value is target and not attr.startswith("_"):  # the script's (file.attr) or the notebook's (attr)
            script = getattr(main, "__file__", None)
            return f"{Path(script).stem}.{attr}" if script else attr
    named = getattr(target, "__name__", None)  # a factory made inside a function
    return named if isinstance(named, str) and named != "<lambda>" else "app"


def _run(
    spec: Any,
    run_dir: Path,
    overrides: Sequence[str],
    *,
    scenarios: Any,
    episodes: int,
    seed: int,
    params: Mapping[str, Any],
    tracking: str | None,
    max_concurrency: int | None,
    llm: Any,
    progress: bool,
) -> Evaluation:
    from hydra.core.config_store import ConfigStore

    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf)
    from dialectica.sim.engine.batch import raised_episodes  # lazy: start-up (omegaconf, numpy)
    from dialectica.sim.engine.runner import run  # lazy: start-up (omegaconf)

    if not (CONF_DIR / "graph" / f"{spec.name}.yaml").exists():  # a built-in graph has its config file
        ConfigStore.instance().store(group="graph", name=spec.name, node=spec.defaults())
    args = [
        f"graph={spec.name}",
        *([f"llm={llm}"] if isinstance(llm, str) else []),
        *(["tracking=none"] if tracking == "none" else []),
        *overrides,
    ]
    values: dict[str, Any] = {
        "episodes": episodes,
        "seed": seed,
        "progress": progress,
        "max_concurrency": max_concurrency,
        **{f"graph.{key}": value for key, value in params.items()},
    }
    if scenarios is not None:
        values["graph.scenarios"] = _scenario_file(scenarios, run_dir)
    if tracking not in (None, "none"):
        values["tracking.uri"] = tracking
    if isinstance(llm, Mapping):
        values["llm"] = dict(llm)
    try:
        run_cfg = load(args, out_dir=run_dir, values=values)
    except ConfigError as exc:  # a list given here is checked in the copy the run would keep: named as given
        copy = f"malformed scenario file {run_dir / 'scenarios.yaml'}, item"
        if isinstance(scenarios, (str, Path)) or copy not in str(exc):
            raise
        raise ConfigError(str(exc).replace(copy, "scenarios given to evaluate(), scenario")) from None
    if params:  # the MLflow run named by its knobs, as a sweep's job is: two evaluations of one factory tell apart
        label = " ".join(f"{key}={value}" for key, value in params.items())
        run_cfg = dataclasses.replace(run_cfg, tracking=dataclasses.replace(run_cfg.tracking, label=label))
    result = run(run_cfg, echo=lambda line: None)
    entry = result.graphs[spec.name]
    if not result.already_finished:
        problems = raised_episodes(result.values, run_cfg.max_error_rate, run_dir)[0]
        if problems:  # the command line's policy: past max_error_rate the run failed
            raise EpisodesFailed(problems[0])
    return Evaluation(spec.name, run_dir, entry["metrics"], entry.get("mlflow_run_id"))
