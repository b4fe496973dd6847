"""The run's typed config: ``RunConfig`` and its parts. ``config.load`` builds it (the one place Hydra is read);
nothing below it reads a DictConfig. Build one with ``load``, then change it with ``dataclasses.replace``: the
scalar fields (``episodes``, ``seed``, ``resume``, ...) are kept in step with ``resolved``, what is logged and
fingerprinted."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialectica.sim import secrets
from dialectica.sim.authoring.faults import FaultRates
from dialectica.sim.authoring.spec import GraphSpec
from dialectica.sim.config.budget import Budget
from dialectica.sim.config.fork import Fork
from dialectica.sim.config.resources import CONF_DIR
from dialectica.sim.config.shape import Traces, checked_int
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.llm.casting import Voices
from dialectica.sim.secrets import scrub_url

_SECRET = secrets.SECRET_NAME


@dataclass(frozen=True)
class GraphRun:
    """One graph of a run, its config typed.

    Attributes:
        spec: The graph.
        params: Its thresholds (``spec.params``).
        options: Its scripted cast's options (``spec.cast_options``, from ``graph.cast``).
        scenarios: The selected scenarios, prepared.
        raw: The graph's config as given (for logging).
        datasets: The graph's data folder.
        fork: Where each episode forks from (``dialectica replay``: a ``config.fork.Fork``); None in a plain run.
    """

    spec: GraphSpec
    params: Any
    options: Any
    scenarios: list[dict[str, Any]]
    raw: dict[str, Any]
    datasets: Path
    fork: Fork | None = None


@dataclass(frozen=True)
class TrackingConfig:
    enabled: bool
    uri: str
    experiment: str
    parent_run_id: str | None = None  # the sweep's parent run, when this run is a job of a multirun
    label: str = ""  # what tells this job from the sweep's others (``convergence_threshold=0.7 seed=1``)
    traces: Traces = field(default_factory=Traces)  # which episodes become MLflow traces (``traces=``)


@dataclass(frozen=True)
class RunConfig:
    """One run, checked: what ``dialectica.load_config`` builds and ``dialectica.run`` plays.

    Change it with ``dataclasses.replace`` (``seed``, ``episodes``, ``out_dir``, ``budget``, ...): what MLflow logs,
    the resume fingerprint and the command in the run's description follow the replaced values.
    """

    graphs: list[GraphRun]
    episodes: int
    seed: int
    participants: str
    tracking: TrackingConfig
    out_dir: Path
    progress: bool
    resolved: dict[str, Any]
    embedding_cache: Path | None = None
    embeddings: bool = True
    overrides: tuple[str, ...] = ()
    resume: bool = False
    objective: dict[str, Any] | None = None
    voices: Voices = field(default_factory=Voices)
    view: ViewOptions = field(default_factory=ViewOptions)
    max_concurrency: int = 1
    max_error_rate: float = 0.5
    faults: FaultRates = field(default_factory=FaultRates)
    checkpoints: bool | frozenset[int] = False  # the episodes whose LangGraph checkpoints are kept (authoring/history)
    budget: Budget = field(default_factory=Budget)  # when the run stops starting episodes (engine/budget)

    def __post_init__(self) -> None:
        """``resolved`` (what MLflow logs and resume fingerprints) says the scalar fields' values, also after a
        ``dataclasses.replace``; so do ``overrides`` (the command a run's description gives). A replaced
        ``episodes`` or ``seed`` is checked as the loader checks it; ``out_dir`` may be given as a string."""
        object.__setattr__(self, "episodes", checked_int("episodes", self.episodes, 1))
        object.__setattr__(self, "seed", checked_int("seed", self.seed, 0))
        object.__setattr__(self, "out_dir", Path(self.out_dir))
        resolved, overrides = dict(self.resolved), self.overrides
        for key in _SCALARS:
            value = getattr(self, key)
            if key in resolved and resolved[key] != value:  # replaced after the overrides were composed
                overrides = with_overrides(overrides, [as_override(key, value)])
            if key in resolved or key in ("episodes", "seed"):
                resolved[key] = value
        limits, given = dataclasses.asdict(self.budget), dict(resolved.get("budget") or {})
        changed = {kind: value for kind, value in limits.items() if given.get(kind) != value}
        if changed:  # a budget replaced after loading (a resumed run's, a sequential race's)
            overrides = with_overrides(overrides, [as_override(f"budget.{k}", v) for k, v in changed.items()])
            resolved["budget"] = given | limits
        object.__setattr__(self, "resolved", resolved)
        object.__setattr__(self, "overrides", overrides)


# RunConfig fields that are one top-level config key each, with the same name.
_SCALARS = ("episodes", "seed", "progress", "embeddings", "resume", "max_error_rate")


def redact(tree: Any) -> Any:
    """Copy of a config tree with values under secret-looking keys replaced and URL credentials scrubbed."""
    if isinstance(tree, dict):
        return {k: "***REDACTED***" if _SECRET.search(str(k)) else redact(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [redact(v) for v in tree]
    return scrub_url(tree) if isinstance(tree, str) else tree


def redact_overrides(overrides: Iterable[str]) -> list[str]:
    """Command-line overrides with the values of secret-looking keys replaced and URL credentials scrubbed."""
    return [
        o.split("=", 1)[0] + "=***REDACTED***" if _SECRET.search(o.split("=", 1)[0]) else scrub_url(o) for o in overrides
    ]


def as_override(key: str, value: Any, *, add: bool = False) -> str:
    """``key=value`` in Hydra's override grammar, as a command line sets ``value`` (secret-looking keys' values
    redacted): ``as_override("graph.scenarios", Path("a b.yaml"))`` is ``graph.scenarios='a b.yaml'``; ``add``:
    ``++key=value``, which sets a key the config may lack and merges a mapping into a group's (``load``'s values)."""
    return f"{'++' * add}{key}={_hydra_value(redact({key: value})[key])}"


def with_overrides(overrides: Iterable[str], later: Iterable[str]) -> tuple[str, ...]:
    """``overrides`` then ``later``, a later one replacing an earlier one of the same key; a config group's choice
    (``llm=llamacpp``) stays, as what a later ``++llm={...}`` merges into."""
    later = list(later)
    groups = {p.name for p in CONF_DIR.iterdir() if p.is_dir()}
    merges = {_override_key(o) for o in later if o.startswith("++") and o.partition("=")[2].startswith("{")}
    replaced = {_override_key(o) for o in later} - (merges & groups)  # a mapping merged into a group keeps its choice
    return (*(o for o in overrides if _override_key(o) not in replaced), *later)


def _override_key(override: str) -> str:
    return override.split("=", 1)[0].lstrip("+~")


_PLAIN = re.compile(r"[A-Za-z_/][\w./:@+-]*", re.ASCII)  # a string Hydra reads as itself, unquoted


def _hydra_value(value: Any) -> str:
    if hasattr(value, "item") and not isinstance(value, str | bytes):  # a numpy scalar: its Python value
        value = value.item()
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        return repr(float(value))
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_hydra_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_hydra_value(v) for v in value) + "]"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in ("true", "false", "null", "nan", "inf"):
        return text
    escaped = re.sub(r"(\\*)('|\Z)", lambda m: m[1] * 2 + ("\\'" if m[2] else ""), text)  # \\ before ' or the end
    return f"'{escaped}'"


# Keys (or prefixes before a dot) that change how a run looks or where it reports, never what its records hold:
# a resume's fingerprint, a replay's folder name and the analyses that count each config once leave them out.
RUN_CONTROL = (
    "objective",  # what a sweeper maximises over the metrics: it changes no episode
    "progress",
    "resume",
    "view",
    "tracking",
    "traces",
    "embedding_cache",
    "max_concurrency",
    "max_error_rate",
    "budget",
    "llm.max_in_flight",
    "llm.requests_per_minute",
    "llm.rate_limit_retries",
    "hydra",
)


def run_control(key: str) -> bool:
    """Whether config key ``key`` (``view.enabled``, ``resume``) is one of ``RUN_CONTROL``."""
    key = key.lstrip("+~")
    return any(key == k or key.startswith(f"{k}.") for k in RUN_CONTROL)


def flatten(tree: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}; lists stay values."""
    if not isinstance(tree, dict):
        return {prefix: tree}
    out: dict[str, Any] = {}
    for key, value in tree.items():
        out |= flatten(value, f"{prefix}.{key}" if prefix else str(key))
    return out
