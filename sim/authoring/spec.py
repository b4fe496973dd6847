"""The graph protocol: what a graph folder (or a plugin) exports so that the harness can run it.

A graph exports one :class:`GraphSpec`. The harness compiles ``spec.build()`` once per process and
runs every episode through that compiled graph; what differs per episode (the cast's models, the
params, the seed) reaches the nodes through LangGraph's runtime context, an :class:`Episode`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from dialectica.metrics import FullRecord
from dialectica.sim.authoring.data import builtin_graph, read_yaml
from dialectica.sim.authoring.params import ConfigError, field_defaults
from dialectica.sim.authoring.termination import declared

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from dialectica.sim.authoring.calibration import Calibration

D = TypeVar("D")
P = TypeVar("P")
N = TypeVar("N")


@dataclass
class EpisodeOutcome:
    """What an episode's final state means to the harness.

    Attributes:
        termination: Why the episode ended.
        metrics: Episode-level numbers (rounds, depth, jaccard_agreement, ...).
        per_round: One dict of numbers per round, in order.
        transcript: Turns as {round, role, speaker, text}; role "participant"
            marks the answers whose agreement is measured.
        artifacts: Text outputs such as a markdown report.
        timings: Wall-clock figures the graph measured itself (kept out of ``metrics`` so that
            records stay reproducible apart from ``timings``).
        labels: Categories to break metrics down by (for example the discovery schema).
        converged: Whether the episode converged; None: as the graph's ``converging`` endings say.
        final_state: A graph used as it is: its final state less ``messages``, as JSON (shown on its page).
        context: A graph used as it is: the knob values and runtime context it ran with, as JSON.
    """

    termination: str  # a TerminationReason, or one of the graph's declared endings
    metrics: dict[str, float]
    per_round: list[dict[str, Any]] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    converged: bool | None = None
    final_state: dict[str, Any] | None = None
    context: dict[str, Any] | None = None


@dataclass
class Episode(Generic[D, P]):
    """LangGraph's runtime context of one episode (``context_schema`` of every graph).

    Attributes:
        deps: The cast: the chat models and data the graph's nodes talk to.
        params: The graph's typed thresholds.
        seed: The episode's seed.
    """

    deps: D
    params: P
    seed: int = 0
    _nodes: dict[Callable[..., Any], Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def at_turn(self, turn: int) -> Episode[D, P]:
        """The context for the graph's turn ``turn`` (0-based). A graph that drives its turns in ``play`` asks for
        it each turn, so that a replay (``dialectica replay``) can change the params from a turn on; in a plain
        run it is this episode."""
        return self

    def nodes(self, cls: Callable[[D, P], N]) -> N:
        """The episode's one instance of a node class built as ``cls(deps, params)`` (thread-safe, for
        parallel branches), so node objects may keep per-episode state."""
        with self._lock:
            if cls not in self._nodes:
                self._nodes[cls] = cls(self.deps, self.params)
            node: N = self._nodes[cls]
            return node


def step(cls: Callable[[Any, Any], Any], method: str, *args: Any) -> Callable[..., Any]:
    """A node (or router) that calls ``method(*args, state)`` on the episode's instance of node class ``cls``.

    Lets a graph keep its nodes as methods of a class holding ``deps`` and ``params`` while the
    compiled graph stays the same for every episode; ``args`` tell apart parallel branches that share
    a method (for example one judge of several).
    """

    def run(state: Any, runtime: Any) -> Any:
        return getattr(runtime.context.nodes(cls), method)(*args, state)

    run.__name__ = method
    run.__qualname__ = f"{getattr(cls, '__name__', 'nodes')}.{method}"
    return run


@dataclass(frozen=True)
class CastOptions:
    """A graph without options for its scripted cast."""


class Markup(str):
    """A string that already is safe HTML (what a page panel returns); the page helpers (``dialectica.pages``)
    escape every other value."""


@dataclass(frozen=True)
class GraphView:
    """What an episode page adds for one graph.

    Attributes:
        panel: ``panel(record)`` -> the graph's own section as HTML (argument graph, rules trace, ...).
        title: That section's heading.
        metric: Default metric for the best and worst episode (``-name``: lower is better).
        explain: ``explain(record)`` -> one sentence on why the episode ended.
        notes: ``notes(record)`` -> HTML notes to show inline in the timeline, by round.
    """

    panel: Callable[[FullRecord], Markup] | None = None
    title: str = ""
    metric: str = "rounds"
    explain: Callable[[FullRecord], str] | None = None
    notes: Callable[[FullRecord], dict[Any, list[Markup]]] | None = None


def _no_scenario_check(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    if not isinstance(scenario.get("name"), str):
        raise ConfigError("missing or malformed key 'name' (expected str)")
    return scenario


@dataclass(frozen=True)
class GraphSpec:
    """How the harness builds, starts and reads one graph.

    Attributes:
        name: Config name (``graph=NAME``).
        params: Dataclass of the graph's thresholds (``graph.<key>``), range-checked by ``bounded``.
        build: ``build()`` -> compiled LangGraph graph whose ``context_schema`` is :class:`Episode`.
        initial_state: ``initial_state(scenario, params)`` -> input state.
        outcome: ``outcome(final_state, params, scenario)`` -> EpisodeOutcome (the scenario may hold
            hidden ground truth that the graph never saw).
        casts: ``participants=KIND`` -> ``cast(request)`` building the episode's deps.
        datasets: The graph's data folder, holding ``scenarios/*.yaml`` (and whatever they refer to).
        recursion_limit: ``recursion_limit(params)`` -> LangGraph recursion limit.
        prepare_scenario: ``prepare_scenario(scenario, datasets)`` -> the scenario, checked and with its
            references (personas, schemas) resolved; raises ConfigError when it is malformed.
        play: ``play(compiled, episode, state, config)`` -> final state, for graphs that the harness
            drives turn by turn; None means one ``invoke``.
        metrics: Extra metric factories (``() -> records -> {name: value}``) over this graph's records.
        figures: Extra figures, ``figure(records, out_dir) -> path`` (or ``[picture, *files saved beside it]``).
        view: The graph's part of an episode page.
        roles: Every chat model the deps hold, by role name: ``system`` for the graph's own roles,
            ``participant`` for those the harness simulates (``llm.roles.<name>`` picks a model).
        cast_options: Dataclass of the scripted cast's options (``graph.cast.<key>``).
        embeds: Whether the graph's nodes use sentence embeddings (deps get ``request.embed``).
        agreement: Whether rounds have two or more participants' answers whose agreement is measured
            (``embedding_agreement``); graphs with one participant skip the embedding model.
        config: The graph's Hydra defaults (a ``conf/graph/<name>.yaml``); None: ``params``' defaults.
        description: One line for ``dialectica list``.
        grid: A few values of the graph's main thresholds (``graph.<key>``): what ``dialectica validity``
            varies unless told otherwise.
        terminations: Every reason the graph's ``outcome`` can end an episode with (``error`` aside, which
            the harness gives an episode that raised), as reason -> one-line meaning (a tuple of the harness's
            ``TerminationReason`` values keeps their standard meanings); an episode ending with another is
            recorded as an error naming the declared ones. Empty: not declared (any reason is accepted).
        converging: The endings that count as convergence: ``convergence_rate`` is their share, and each
            record's ``converged`` says whether its ending is one of them (``converged`` unless the graph
            says otherwise, as the tutor does for ``synthesis`` and ``aporia``).
        turns: ``turns(state)`` -> how many turns (rounds) a state of one ``invoke`` has completed, so that
            ``dialectica replay`` can fork an episode after turn T; graphs with ``play`` count turns there
            (:meth:`Episode.at_turn`); None: the graph cannot be replayed from a later turn.
        calibration: Behaviour statistics and persona knobs for ``dialectica calibrate`` and
            ``participants=calibrated``; None: the graph cannot be calibrated.
        own_models: Whether the graph calls chat models it brings itself (a factory's model arguments), so
            that its episodes call a model even with scripted participants (``traces=auto`` traces them).
    """

    name: str
    params: type[DataclassInstance]
    build: Callable[[], Any]
    initial_state: Callable[[dict[str, Any], Any], dict[str, Any]]
    outcome: Callable[[dict[str, Any], Any, dict[str, Any]], EpisodeOutcome]
    casts: Mapping[str, Callable[[Any], Any]]
    datasets: Path
    recursion_limit: Callable[[Any], int] = lambda params: 100
    prepare_scenario: Callable[[dict[str, Any], Path], dict[str, Any]] = _no_scenario_check
    play: Callable[[Any, Episode[Any, Any], dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    metrics: tuple[Callable[[], Callable[..., dict[str, float]]], ...] = ()
    figures: tuple[Callable[..., Path | list[Path]], ...] = ()
    view: GraphView = GraphView()
    roles: Mapping[str, str] = field(default_factory=dict)
    cast_options: type[DataclassInstance] = CastOptions
    embeds: bool = False
    agreement: bool = True
    config: Path | None = None
    description: str = ""
    grid: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    terminations: Mapping[str, str] | tuple[str, ...] = ()
    converging: tuple[str, ...] = ("converged",)
    turns: Callable[[dict[str, Any]], int] | None = None
    calibration: Calibration | None = None
    own_models: bool = False

    def __post_init__(self) -> None:
        endings = self.endings()
        unknown = [reason for reason in self.converging if endings and reason not in endings]
        if unknown:
            raise ValueError(
                f"graph {self.name}: converging endings {', '.join(unknown)} are not among its declared "
                f"endings: {', '.join(endings)}"
            )

    def endings(self) -> dict[str, str]:
        """The declared endings, reason -> meaning (empty when the graph declares none)."""
        return declared(self.terminations)

    def converges(self, reason: str) -> bool:
        """Whether an episode that ended with ``reason`` converged."""
        return reason in self.converging

    def compiled(self) -> Any:
        """The graph compiled once per process."""
        return _compiled(self)

    def defaults(self) -> dict[str, Any]:
        """The graph's config defaults: its YAML file, or its params' and cast options' defaults."""
        if self.config is not None:
            values = read_yaml(self.config) or {}
            return {**values, "name": self.name}
        return {
            "name": self.name,
            **field_defaults(self.params),
            **({"cast": field_defaults(self.cast_options)} if dataclasses.fields(self.cast_options) else {}),
        }


_COMPILED: dict[str, Any] = {}
_COMPILE_LOCK = threading.Lock()


def _compiled(spec: GraphSpec) -> Any:
    with _COMPILE_LOCK:
        if spec.name not in _COMPILED:
            _COMPILED[spec.name] = spec.build()
        return _COMPILED[spec.name]


def builtin_spec(name: str, build: ModuleType, **fields: Any) -> GraphSpec:
    """The spec of a graph folder of this package: the functions of its build module (``build_<name>``,
    ``initial_state``, ``outcome``, ``recursion_limit``, ``prepare_scenario`` and, if it has them, ``play`` and
    ``turns``),
    its ``conf/graph/<name>.yaml`` and its ``datasets/<name>/``; ``fields`` give the rest."""
    config, datasets = builtin_graph(name)
    return GraphSpec(
        name=name,
        build=getattr(build, f"build_{name}"),
        initial_state=build.initial_state,
        outcome=build.outcome,
        recursion_limit=build.recursion_limit,
        prepare_scenario=build.prepare_scenario,
        play=getattr(build, "play", None),
        turns=getattr(build, "turns", None),
        config=config,
        datasets=datasets,
        **fields,
    )
