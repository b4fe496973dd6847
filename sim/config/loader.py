"""The one loader: overrides (Hydra's ``key=value`` grammar) or a composed config, to one checked ``RunConfig``.

This is the only module that reads Hydra's config: ``load`` composes it from overrides (Python, tests and every
subcommand), ``from_composed`` takes the one ``@hydra.main`` composed (``dialectica`` and its sweeps). Both check
the shape first (``shape.check_shape``: unknown keys, value types), then every key's value once, with the
graphs, their scenarios, casts, models, replay's fork and a graph used as it is, and raise one ``ConfigError``
line naming the key and the valid choices.

    cfg = dialectica.load_config(["graph=interview", "graph.budget=4"], out_dir="results/runs/b4")
    cfg = dataclasses.replace(cfg, seed=7, episodes=50)  # then dialectica.run(cfg)
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

from dialectica.sim import secrets
from dialectica.sim.authoring import cast
from dialectica.sim.authoring.data import read_yaml
from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.authoring.params import ConfigError, build_params
from dialectica.sim.authoring.speakers import SYSTEM
from dialectica.sim.authoring.spec import GraphSpec
from dialectica.sim.config import calset, discovery
from dialectica.sim.config.budget import Budget
from dialectica.sim.config.fork import fork_runs
from dialectica.sim.config.groups import register_plugin_configs
from dialectica.sim.config.hydra_errors import input_error, needs_one_graph
from dialectica.sim.config.paths import cannot_create
from dialectica.sim.config.resources import CONF_DIR
from dialectica.sim.config.scenarios import load_scenarios
from dialectica.sim.config.shape import (
    check_shape,
    checkpoints,
    container,
    int_value,
    objective,
    override_list,
    traces,
    view_options,
)
from dialectica.sim.config.typed import (
    GraphRun,
    RunConfig,
    TrackingConfig,
    as_override,
    redact,
    redact_overrides,
    with_overrides,
)
from dialectica.sim.llm.casting import Voices, voices


def load(
    overrides: Sequence[str] = (),
    *,
    out_dir: Path | str | None = None,
    values: Mapping[str, Any] | None = None,
    cwd: Path | None = None,
    parent_run_id: str | None = None,
) -> RunConfig:
    """The run config of ``overrides`` on top of ``conf/config.yaml``, checked.

    Args:
        overrides: Hydra overrides, as on the command line (``graph=interview``, ``graph.budget=4``).
        out_dir: The run directory (default ``results/runs/<time>``, as the command line's).
        values: Keys set to Python values after the overrides (``{"graph.scenarios": path}``): no quoting.
        cwd: What ``${hydra:runtime.cwd}`` resolves to (default: the current directory).
        parent_run_id: The MLflow run of the sweep this run is a job of.

    Raises:
        ConfigError: one line naming the bad key or file and the valid choices.
    """
    overrides = override_list(overrides, "graph=interview")
    try:
        cfg = compose(overrides, cwd or Path.cwd())
        if values:
            with open_dict(cfg):
                for key, value in values.items():
                    OmegaConf.update(cfg, key, value, merge=True, force_add=True)
    except Exception as exc:  # Hydra's own report of a bad override, as the command line says it
        line = input_error(exc)
        if line is None or os.environ.get("HYDRA_FULL_ERROR") == "1":
            raise
        raise ConfigError(line) from exc
    run_dir = Path(out_dir) if out_dir is not None else default_out_dir()
    given = with_overrides(overrides, (as_override(key, value, add=True) for key, value in (values or {}).items()))
    return from_composed(cfg, run_dir, given, parent_run_id)


def default_out_dir() -> Path:
    """``results/runs/<time>``: where a run without ``out_dir`` (or ``hydra.run.dir``) writes."""
    return Path("results/runs") / datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")


def _container(node: Any, resolve: bool = True) -> dict[str, Any]:
    """A config mapping as a plain dict (its keys are strings: they come from YAML and overrides).

    Raises:
        ConfigError: naming the key whose ``${...}`` does not resolve.
    """
    return container(node, resolve)


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _graph_runs(cfg: DictConfig) -> list[GraphRun]:
    graph_cfg = _container(cfg.graph)
    name = str(graph_cfg.pop("name", None))
    if name == "all" and graph_cfg:
        raise ConfigError(needs_one_graph(sorted(graph_cfg)[0]))
    if name == "all":
        usable, problems = discovery.loadable()
        for problem in problems:  # a broken plugin is said, and the other graphs run
            print(f"dialectica: warning: {problem}; graph=all runs the others", file=sys.stderr)
        raws = {n: discovery.load(n).defaults() for n in usable}
    else:
        raws = {name: graph_cfg}
    per_graph = _container(cfg.per_graph) if cfg.get("per_graph") else {}
    for other, values in per_graph.items():
        if other not in discovery.names():
            raise ConfigError(f"unknown graph per_graph.{other}; valid choices: {', '.join(discovery.names())}")
        if not isinstance(values, dict):
            raise ConfigError(
                f"per_graph.{other}={values!r} is invalid; valid values: a mapping of that graph's keys, "
                f"e.g. +per_graph.{other}.<key>=<value>"
            )
    datasets_dir = cfg.get("datasets_dir")
    runs = []
    for graph_name, given in raws.items():
        spec = discovery.load(graph_name)
        raw = _merge({k: v for k, v in given.items() if k != "name"}, per_graph.get(graph_name) or {})
        params, options = _graph_params(spec, raw)
        data = Path(datasets_dir) / graph_name if datasets_dir else spec.datasets
        if hasattr(params, "scenarios"):  # a graph used as it is: graph.scenarios=FILE_OR_FOLDER
            data = _scenario_source(params.scenarios)
        runs.append(
            GraphRun(spec, params, options, load_scenarios(data, spec, _scenarios(cfg.get("scenario", "all"))), raw, data)
        )
    return runs


def _graph_params(spec: GraphSpec, raw: dict[str, Any]) -> tuple[Any, Any]:
    """The graph's params (``graph.<key>``) and its cast's options (``graph.cast.<key>``), checked.

    Raises:
        ConfigError: naming the key, and the graph's config file where the key is set there.
    """
    cast_options = {} if raw.get("cast") is None else raw["cast"]
    if not isinstance(cast_options, dict):
        options = ", ".join(f.name for f in dataclasses.fields(spec.cast_options)) or "none"
        raise ConfigError(
            f"graph.cast={cast_options!r} is invalid; valid values: the cast's options as graph.cast.<key>=<value> "
            f"(graph {spec.name}'s: {options})"
        )
    try:
        params = build_params(spec.params, {k: v for k, v in raw.items() if k != "cast"}, "graph")
        return params, build_params(spec.cast_options, cast_options, "graph.cast")
    except ConfigError as exc:
        written = read_yaml(spec.config) if spec.config is not None else None
        if exc.key is None:  # not one key's fault (the params' own check of several)
            raise
        key = exc.key.removeprefix("graph.")
        in_file = _at(written, key)
        if in_file is _ABSENT or in_file != _at(raw, key):  # the command line's value, not the file's
            raise
        raise ConfigError(f"{exc} (set in {spec.config})") from None


_ABSENT = object()


def _at(tree: Any, dotted: str) -> Any:
    """The value at the dotted key ``dotted`` of ``tree``, or ``_ABSENT``."""
    for part in dotted.split("."):
        if not isinstance(tree, dict) or part not in tree:
            return _ABSENT
        tree = tree[part]
    return tree


def _scenario_source(source: Any) -> Path:
    """``graph.scenarios``: a YAML file of scenarios, or a folder of them."""
    if not isinstance(source, str) or not source:
        raise ConfigError(
            "graph.scenarios is missing: give graph.scenarios=FILE.yaml (a list of scenarios, each with "
            "at least a name) or a folder of scenario files"
        )
    path = Path(source).expanduser()
    if not path.exists():
        raise ConfigError(
            f"graph.scenarios={source}: no such file or folder; give a YAML file of scenarios or a folder of them"
        )
    return path


def _scenarios(value: Any) -> str:
    """``scenario=all``, ``scenario=[a,b]`` (a list) or ``scenario='a,b'``, as one comma-separated string."""
    if isinstance(value, ListConfig):
        return ",".join(str(v) for v in value)
    return str(value)


def calibrated(run: GraphRun) -> GraphRun:
    """``run`` with its scenarios' personas set by the graph's calibrated set (``<datasets>/calibrated.yaml``)."""
    calibration = run.spec.calibration
    assert calibration is not None  # cast.check let only calibratable graphs through
    path = calset.path_for(run.datasets)
    values = calset.read(path, run.spec.name, calibration)
    every = load_scenarios(run.datasets, run.spec, "all")  # a misspelt id is told from another scenario's by all
    values.check_ids(every, calibration, path)
    played = calset.fingerprint(path)  # which set played: in config.json and MLflow's params
    return dataclasses.replace(
        run, scenarios=[values.apply(s, calibration) for s in run.scenarios], raw={**run.raw, "calibrated_set": played}
    )


def from_composed(
    cfg: DictConfig, out_dir: Path, overrides: tuple[str, ...] = (), parent_run_id: str | None = None
) -> RunConfig:
    """The checked ``RunConfig`` of a composed config (its shape, then its types). First registers the
    run's secrets (``secrets.collect``), which every output is scrubbed of.

    Raises:
        ConfigError: one line naming the bad key or file and the valid choices.
    """
    resolved = _container(cfg)
    secrets.collect(resolved, os.environ)
    check_shape(cfg)
    participants = _container(cfg.participants)
    kind = str(participants["kind"])
    faults = FaultRates.from_config(participants)
    tracking = _container(cfg.tracking)
    graph_runs = _cast_runs(cfg, kind)
    sets = {r.spec.name: str(r.raw["calibrated_set"]).rpartition(" ")[2] for r in graph_runs if "calibrated_set" in r.raw}
    if sets:  # which calibrated set played, in the fingerprint: a set rewritten before resume=true is refused
        resolved["participants"]["calibrated_set"] = sets
    embedding_cache = _embedding_cache(cfg, graph_runs)
    cast_voices, roles = _checked_voices(cfg, graph_runs, kind)
    max_error_rate = cfg.get("max_error_rate", 0.5)
    concurrency = cfg.get("max_concurrency")
    if concurrency is None:
        concurrency = cast_voices.default_concurrency(roles)
    return RunConfig(
        graphs=graph_runs,
        episodes=int_value(cfg, "episodes", 1),
        seed=int_value(cfg, "seed", 0),
        participants=kind,
        faults=faults,
        tracking=_tracking(cfg, tracking, parent_run_id),
        out_dir=out_dir,
        progress=bool(cfg.get("progress", True)),
        resolved=secrets.scrub_tree(redact(resolved)),
        embedding_cache=embedding_cache,
        embeddings=bool(cfg.get("embeddings", True)),
        overrides=tuple(secrets.scrub(o) for o in redact_overrides(overrides)),
        resume=bool(cfg.get("resume", False)),
        objective=objective(cfg),
        voices=cast_voices,
        view=view_options(cfg),
        max_concurrency=concurrency,
        max_error_rate=float(max_error_rate),
        checkpoints=checkpoints(cfg),
        budget=Budget.from_mapping(_container(cfg.budget) if cfg.get("budget") else None),
    )


def _cast_runs(cfg: DictConfig, kind: str) -> list[GraphRun]:
    """The configured graphs' runs, each checked against the participant kind; with the calibrated set applied
    (``participants=calibrated``) and as forks of an earlier run (``replay.run``)."""
    graph_runs = _graph_runs(cfg)
    for run in graph_runs:
        cast.check(run.spec, kind)
    if kind == cast.CALIBRATED:
        graph_runs = [calibrated(run) for run in graph_runs]
    replay = _container(cfg.replay) if cfg.get("replay") else {}
    if replay.get("run"):
        graph_runs = fork_runs(graph_runs, replay)
    return graph_runs


def _embedding_cache(cfg: DictConfig, graph_runs: list[GraphRun]) -> Path | None:
    """The embedding cache's path, checked that it can be created where some graph embeds; None: no cache."""
    embedding_cache = Path(cfg.embedding_cache) if cfg.get("embedding_cache") else None
    if embedding_cache is not None and any(r.spec.embeds or (cfg.embeddings and r.spec.agreement) for r in graph_runs):
        why = cannot_create(embedding_cache)
        if why:
            raise ConfigError(
                f"embedding_cache={embedding_cache}: the cache cannot be created there ({why}); "
                "give a writable path, or null to encode every run afresh"
            )
    return embedding_cache


def _checked_voices(cfg: DictConfig, graph_runs: list[GraphRun], kind: str) -> tuple[Voices, list[tuple[str, str]]]:
    """The cast's voices, checked against every graph's roles (and a graph used as it is against its user, judge
    and scenarios); the voices and those (role, kind) pairs."""
    cast_voices = voices(_container(cfg.llm), kind)
    roles = [(role, role_kind) for run in graph_runs for role, role_kind in run.spec.roles.items()]
    cast_voices.check(roles)
    for run in graph_runs:  # a graph used as it is checks its user, judge and scenarios together
        check_run = getattr(run.params, "check_run", None)
        if check_run is not None:
            check_run(run.scenarios, kind, cast_voices)
    return cast_voices, roles


def _tracking(cfg: DictConfig, tracking: Mapping[str, Any], parent_run_id: str | None) -> TrackingConfig:
    return TrackingConfig(
        bool(tracking.get("enabled")),
        str(tracking.get("uri")),
        str(tracking.get("experiment")),
        parent_run_id,
        traces=traces(cfg),
    )


def compose(overrides: list[str], cwd: Path) -> DictConfig:
    """The app's config composed outside a Hydra run (notebooks, tests, dialectica compare):
    ``${hydra:...}`` resolves against ``cwd``."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from hydra.core.hydra_config import HydraConfig

    register_plugin_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = hydra_compose("config", overrides=[*overrides, f"hydra.runtime.cwd={cwd}"], return_hydra_config=True)
    HydraConfig.instance().set_config(cfg)
    with open_dict(cfg):
        del cfg["hydra"]
    return cfg


def chat_model(overrides: Iterable[str] = (), role: str = "judge", seed: int = 0) -> Any:
    """A chat model of the ``llm`` config outside a run (``dialectica pairwise``, ``synthesize``, an openevals judge
    in Python: ``dialectica.chat_model()``): ``overrides`` on top of ``llm=llamacpp`` (unless they name another
    backend), as ``role``, seeded and cached like a run's; ``with_structured_output`` takes a JSON schema.

    Raises:
        ConfigError: a bad override, in one line.
    """
    import tempfile

    given = list(overrides)
    if "llm=scripted" in given:
        raise ConfigError(
            f"llm=scripted: the {role} here must be a model; valid: llm=llamacpp (the default), llm=openai, "
            "or model= from Python"
        )
    if not any(o.startswith("llm=") for o in given):
        given.insert(0, "llm=llamacpp")
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load([*given, "tracking=none"], out_dir=Path(tmp))
    return cfg.voices.speaker(role, SYSTEM, seed, None)
