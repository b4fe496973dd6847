"""The graph registry: each graph module registers one GraphSpec under its config name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

from sim.registry import Registry
from sim.termination import TerminationReason


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
    """

    termination: TerminationReason
    metrics: dict[str, float]
    per_round: list[dict[str, Any]] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    artifacts: dict[str, str] = field(default_factory=dict)
    timings: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphSpec:
    """How the harness builds, starts and reads one graph.

    Attributes:
        name: Config name (``graph=NAME``).
        params_type: Dataclass of the graph's thresholds.
        build: ``build(deps, params)`` -> compiled LangGraph graph.
        initial_state: ``initial_state(scenario, params)`` -> input state.
        outcome: ``outcome(final_state, params, scenario)`` -> EpisodeOutcome (the scenario may hold
            hidden ground truth that the graph never saw).
        recursion_limit: ``recursion_limit(params)`` -> LangGraph recursion limit.
        prepare_scenario: ``prepare_scenario(scenario, root)`` -> the scenario, checked and with its
            references (personas, schemas) resolved from ``root``, the graph's folder under datasets/;
            raises ConfigError when it is malformed.
        play: ``play(compiled, deps, state, config, params)`` -> final state, for graphs that
            the harness drives turn by turn; None means one ``invoke``.
        metrics: Names of extra registered metrics this graph's records support.
        figures: Names of extra registered figures (``sim/plots.py``) for this graph's runs.
        roles: Every chat model the graph's deps hold, by role name: ``system`` for the graph's own
            roles, ``participant`` for those the harness simulates (``llm.roles.<name>`` picks a model).
    """

    name: str
    params_type: type
    build: Callable[[Any, Any], Any]
    initial_state: Callable[[dict[str, Any], Any], dict[str, Any]]
    outcome: Callable[[dict[str, Any], Any, dict[str, Any]], EpisodeOutcome]
    recursion_limit: Callable[[Any], int]
    prepare_scenario: Callable[[dict[str, Any], Any], dict[str, Any]]
    play: Callable[[Any, Any, dict[str, Any], dict[str, Any], Any], dict[str, Any]] | None = None
    metrics: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    roles: dict[str, str] = field(default_factory=dict)


GRAPHS: Registry[GraphSpec] = Registry("graph")


def graph(spec: GraphSpec) -> GraphSpec:
    """Registers a GraphSpec under its name; a second spec with the same name raises."""
    return GRAPHS.register(spec.name)(spec)


def register(name: str, params_type: type, module: Any, **extra: Any) -> GraphSpec:
    """Registers the graph whose ``module`` defines ``build_<name>``, ``initial_state``, ``outcome``,
    ``recursion_limit``, ``prepare_scenario`` and, for turn-by-turn graphs, ``play``."""
    return graph(GraphSpec(
        name=name, params_type=params_type, build=getattr(module, f"build_{name}"),
        initial_state=module.initial_state, outcome=module.outcome, recursion_limit=module.recursion_limit,
        prepare_scenario=module.prepare_scenario, play=getattr(module, "play", None), **extra,
    ))


GRAPH_NAMES = ("committee", "interview", "maieutic", "socratic_panel", "tribunal")


def load(name: str) -> GraphSpec:
    """Imports only the graph ``name`` (start-up stays short); an unknown name lists the choices."""
    if name in GRAPH_NAMES and name not in GRAPHS:
        import_module(f"graphs.{name}")
    return load_all().get(name, key="graph") if name not in GRAPHS else GRAPHS.get(name)


def load_all() -> Registry[GraphSpec]:
    """Imports every graph package so that each registers itself."""
    for name in GRAPH_NAMES:
        import_module(f"graphs.{name}")
    return GRAPHS
