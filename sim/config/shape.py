"""The config's shape, checked before any graph, model or langchain module is imported: unknown keys, the
types and ranges of the top-level values and of ``llm``, and the paths a run would write to. A mistake here
costs a second, not the several seconds of loading the graphs (``config.loader`` checks the rest).
"""

from __future__ import annotations

import functools
import numbers
import re
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from dialectica.sim.authoring.params import ConfigError, did_you_mean
from dialectica.sim.config.paths import cannot_create
from dialectica.sim.config.resources import CONF_DIR, KEYED_GROUPS, group_options
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.secrets import scrub_url

FLAGS = ("progress", "embeddings", "resume")
TRACKING_SCHEMES = (
    "",
    "file",
    "sqlite",
    "http",
    "https",
    "postgresql",
    "mysql",
    "mssql",
    "databricks",
    "databricks-uc",
    "uc",
)  # MLflow's; ``postgresql+psycopg2://`` counts as postgresql
OBJECTIVE_KEYS = ("metric", "floor_metric", "floor", "penalty")
_CREDENTIAL = re.compile(r"(api[_-]?key|token|password|secret|credential|user)", re.IGNORECASE)
_TRACKING_CREDENTIALS = (
    "; a tracking server's credentials come from the environment: MLFLOW_TRACKING_TOKEN, or "
    "MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD"
)


def container(node: Any, resolve: bool = True) -> dict[str, Any]:
    """A config mapping as a plain dict (its keys are strings: they come from YAML and overrides).

    Raises:
        ConfigError: naming the key whose ``${...}`` does not resolve.
    """
    try:
        values = OmegaConf.to_container(node, resolve=resolve)
    except OmegaConfBaseException as exc:
        raise ConfigError(_unresolved(node, exc)) from exc
    assert isinstance(values, dict), f"expected a mapping, got {values!r}"
    return typing.cast(dict[str, Any], values)


def _unresolved(node: Any, exc: Exception) -> str:
    """Which key's ``${...}`` fails to resolve, and why, as one line."""
    why = " ".join(str(exc).partition("full_key:")[0].split())
    stack: list[tuple[str, Any]] = [("", OmegaConf.to_container(node, resolve=False))]
    while stack:
        key, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((f"{key}.{k}" if key else str(k), v) for k, v in value.items())
        elif isinstance(value, str) and "${" in value:
            try:
                OmegaConf.select(node, key, throw_on_resolution_failure=True)
            except OmegaConfBaseException:
                return f"{key}={value} does not resolve ({why}); give a value, or ${{...}} of a key that exists"
    return f"a ${{...}} value does not resolve ({why}); check the interpolations (dialectica --cfg job)"


@functools.cache
def known_keys(group: str | None = None) -> tuple[str, ...]:
    """The keys the config files define: at the top level (``group=None``, with the groups), or those of
    any option of ``group`` (``participants``, ``tracking``)."""
    if group is None:
        top = OmegaConf.load(CONF_DIR / "config.yaml")
        return tuple(sorted({str(k) for k in top if k not in ("defaults", "hydra")} | set(KEYED_GROUPS)))
    files = (OmegaConf.load(path) for path in (CONF_DIR / group).glob("*.yaml"))
    return tuple(sorted({str(k) for node in files for k in node if k != "defaults"}))


def _unknown_keys(keys: Any, valid: tuple[str, ...], prefix: str, hint: str = "") -> None:
    unknown = sorted(str(k) for k in set(keys) - set(valid))
    if unknown:
        raise ConfigError(
            f"unknown key {prefix}{unknown[0]}{did_you_mean(unknown[0], valid, prefix)}; valid keys: {', '.join(valid)}"
            f"{hint if _CREDENTIAL.search(unknown[0]) else ''}"
        )


MAX_EPISODES = 1_000_000  # about three hours of the fastest scripted graph; past it a typo, not a plan
_HIGH = {"episodes": MAX_EPISODES}


def override_list(overrides: Any, example: str) -> list[str]:
    """``overrides`` as a list (a generator read once); refuses one string, or anything but strings in it.

    Raises:
        ConfigError: ``overrides=...`` with an example of the list it takes.
    """
    given = [overrides] if isinstance(overrides, str) else list(overrides)
    if isinstance(overrides, str) or not all(isinstance(o, str) for o in given):
        shown = overrides if isinstance(overrides, str) else given
        raise ConfigError(f"overrides={shown!r} is invalid; valid values: a list of key=value strings, e.g. ['{example}']")
    return given


def int_value(cfg: DictConfig, key: str, low: int) -> int:
    """``cfg[key]``, an integer >= ``low`` (and at most ``MAX_EPISODES`` episodes)."""
    return checked_int(key, cfg.get(key), low)


def checked_int(key: str, value: Any, low: int) -> int:
    """``value`` of ``key`` as an int (a numpy integer too), >= ``low`` (and at most ``MAX_EPISODES`` episodes).

    Raises:
        ConfigError: naming the key and the valid values.
    """
    high = _HIGH.get(key)
    number = int(value) if isinstance(value, numbers.Integral) and not isinstance(value, bool) else None
    if number is None or number < low or (high is not None and number > high):
        valid = f"integers {low}..{high:,}" if high is not None else f"integers >= {low}"
        raise ConfigError(f"{key}={value!r} is invalid; valid values: {valid}")
    return number


def objective(cfg: DictConfig) -> dict[str, Any] | None:
    """The ``objective`` mapping a sweeper maximises, or None."""
    value = cfg.get("objective")
    if value is None:
        return None
    if not isinstance(value, DictConfig):
        raise ConfigError(f"objective needs 'metric' and takes only {', '.join(OBJECTIVE_KEYS)}; got {value!r}")
    values = container(value)
    unknown = sorted(set(values) - set(OBJECTIVE_KEYS))
    if unknown or "metric" not in values:
        raise ConfigError(f"objective needs 'metric' and takes only {', '.join(OBJECTIVE_KEYS)}; got {sorted(values)}")
    return values


def view_options(cfg: DictConfig) -> ViewOptions:
    """The ``view`` block, typed."""
    view = cfg.get("view")
    if view is None:
        return ViewOptions.from_mapping(None)
    if not isinstance(view, DictConfig):
        raise ConfigError(
            f"view={view!r} is invalid; valid values: a mapping of {', '.join(ViewOptions.__dataclass_fields__)}"
        )
    options = ViewOptions.from_mapping(container(view, resolve=False))
    episodes = cfg.get("episodes")
    if isinstance(episodes, int):
        options.check_episodes(episodes)
    return options


def tracking_uri(uri: Any) -> None:
    """Rejects a tracking URI MLflow cannot use, and an SQLite file that cannot be created."""
    if not isinstance(uri, str) or not uri:
        raise ConfigError(
            f"tracking.uri={uri!r} is invalid; valid values: sqlite:///<file>, http(s)://<host>:<port> "
            "of an MLflow server, or tracking=none"
        )
    shown = scrub_url(uri)
    scheme = uri.partition("://")[0].split("+")[0].lower() if "://" in uri else ""
    if scheme not in TRACKING_SCHEMES:
        raise ConfigError(
            f"tracking.uri={shown}: unknown scheme {scheme + '://'!r}; valid: sqlite:///<file>, "
            "http(s)://<host>:<port> of an MLflow server, file:///<folder>, a database URL "
            "(postgresql://, mysql://, mssql://), or tracking=none"
        )
    if scheme == "sqlite":
        if not uri.startswith("sqlite:///"):
            raise ConfigError(
                f"tracking.uri={shown}: an SQLite URI is sqlite:///<file> (three slashes; four before an absolute path)"
            )
        why = cannot_create(Path(uri.removeprefix("sqlite:///")))
        if why:
            raise ConfigError(
                f"tracking.uri={shown}: the MLflow database cannot be created there ({why}); "
                "give a writable path, or tracking=none"
            )


def check_shape(cfg: DictConfig) -> None:
    """The checks that need no graph, model or scenario.

    Raises:
        ConfigError: naming the first bad key and the valid keys or values.
    """
    from dialectica.sim.llm.settings import LLMSettings  # lazy: start-up (11 ms)

    container(cfg)  # every ${...} resolves
    _unknown_keys(cfg.keys(), known_keys(), "")
    for group in ("participants", "tracking"):
        if not isinstance(cfg.get(group), DictConfig):
            raise ConfigError(f"{group}={cfg.get(group)!r} is invalid; choose an option: {', '.join(group_options(group))}")
        _unknown_keys(
            cfg[group].keys(), known_keys(group), f"{group}.", _TRACKING_CREDENTIALS if group == "tracking" else ""
        )
    int_value(cfg, "episodes", 1)
    int_value(cfg, "seed", 0)
    for key in FLAGS:
        if not isinstance(cfg.get(key), bool):
            raise ConfigError(f"{key}={cfg.get(key)!r} is invalid; valid values: true, false")
    for key in ("datasets_dir", "embedding_cache"):
        value = cfg.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise ConfigError(f"{key}={value!r} is invalid; valid values: a path, or null")
    datasets_dir = cfg.get("datasets_dir")
    if datasets_dir is not None and not Path(datasets_dir).is_dir():
        what = "not a directory" if Path(datasets_dir).exists() else "no such directory"
        raise ConfigError(
            f"datasets_dir={datasets_dir}: {what}; give a folder holding <graph>/scenarios/*.yaml, "
            "or null for the project's datasets"
        )
    tracking = cfg.tracking
    if not isinstance(tracking.get("enabled"), bool):
        raise ConfigError(f"tracking.enabled={tracking.get('enabled')!r} is invalid; valid values: true, false")
    if tracking.enabled:
        tracking_uri(tracking.get("uri"))
        experiment = tracking.get("experiment")
        if not isinstance(experiment, str) or not experiment.strip():
            raise ConfigError(f"tracking.experiment={experiment!r} is invalid; valid values: an experiment name")
    max_error_rate = cfg.get("max_error_rate", 0.5)
    if isinstance(max_error_rate, bool) or not isinstance(max_error_rate, (int, float)) or not 0 <= max_error_rate <= 1:
        raise ConfigError(f"max_error_rate={max_error_rate!r} is out of range; valid range: [0, 1]")
    concurrency = cfg.get("max_concurrency")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= 1024
    ):
        raise ConfigError(
            f"max_concurrency={concurrency!r} is invalid; valid values: integers 1..1024, or null for the backend's default"
        )
    view_options(cfg)
    objective(cfg)
    checkpoints(cfg)
    traces(cfg)
    if not isinstance(cfg.get("llm"), DictConfig):
        raise ConfigError(f"llm={cfg.get('llm')!r} is invalid; choose an option: {', '.join(group_options('llm'))}")
    LLMSettings.from_dict(container(cfg.llm))


def checkpoints(cfg: DictConfig) -> bool | frozenset[int]:
    """``checkpoints``: false (keep none), true (every episode's) or a list of episode indices (``authoring/history``).

    Raises:
        ConfigError: naming the key and the valid values.
    """
    value = cfg.get("checkpoints", False)
    if isinstance(value, bool):
        return value
    items = list(value) if isinstance(value, ListConfig) else None
    if items is not None and all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in items):
        return frozenset(items)
    raise ConfigError(
        f"checkpoints={value!r} is invalid; valid values: false, true, or a list of episode indices like [0,3]"
    )


@dataclass(frozen=True)
class Traces:
    """Which episodes become MLflow traces (``traces=``).

    Attributes:
        mode: ``auto`` (every episode when a real model is called, none of a scripted run: even three traces
            cost a 2,000-episode scripted run 15%, README "Checking the verdicts against people"), ``all``,
            ``none``, ``first`` (the first ``count``) or ``sample`` (a sample of ``count`` seeded by the run's seed).
        count: For ``first`` and ``sample``.
    """

    mode: str = "auto"
    count: int = 0

    def picks(self, episodes: int, seed: int, models: bool) -> frozenset[int]:
        """The traced episode indices of a run of ``episodes``; ``models``: whether a real model is called."""
        if self.mode == "auto":
            return Traces("all" if models else "none").picks(episodes, seed, models)
        if self.mode == "all":
            return frozenset(range(episodes))
        if self.mode == "sample":
            import random

            return frozenset(random.Random(seed).sample(range(episodes), min(self.count, episodes)))
        return frozenset(range(min(self.count, episodes))) if self.mode == "first" else frozenset()


def traces(cfg: DictConfig) -> Traces:
    """``traces``: auto, all, none, K (the first K episodes) or sample:K (K episodes drawn with the run's seed).

    Raises:
        ConfigError: naming the key and the valid values.
    """
    value = cfg.get("traces", "auto")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return Traces("first", value)
    text = str(value).strip().lower()
    if text in ("auto", "all", "none"):
        return Traces(text)
    kind, _, count = text.partition(":")
    if kind in ("first", "sample") and count.isdigit():
        return Traces(kind, int(count))
    raise ConfigError(
        f"traces={value!r} is invalid; valid values: auto, all, none, K (the first K episodes), "
        "sample:K (K episodes drawn with the run's seed)"
    )
