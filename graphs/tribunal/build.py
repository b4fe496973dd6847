"""``build_tribunal()``: parallel detective and judicial layers, ChiefJustice, error routing."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, StateGraph

from dialectica.graph import ConfigError, Episode, step
from dialectica.graphs.tribunal.bench import JUDGES
from dialectica.graphs.tribunal.nodes import COLLECTORS, TribunalNodes
from dialectica.graphs.tribunal.params import TribunalParams
from dialectica.graphs.tribunal.record import outcome as outcome  # the spec's outcome
from dialectica.graphs.tribunal.scripted import judge_personas
from dialectica.graphs.tribunal.state import TribunalState


def build_tribunal() -> Any:
    """detective_dispatch fans out to every collector; evidence_aggregator waits for all of them (fan-in)
    and routes to the judicial layer or the ErrorHandler; judicial_dispatch fans out to the three judges;
    chief_justice waits for all three and routes to report, re-evaluation or the ErrorHandler."""
    g = StateGraph(TribunalState, context_schema=Episode)
    _layer(g, "detective_dispatch", COLLECTORS, "collect", "evidence_aggregator")
    _layer(g, "judicial_dispatch", JUDGES, "deliberate", "chief_justice")
    g.add_node("error_handler", step(TribunalNodes, "error_handler"))
    g.add_node("report_generator", step(TribunalNodes, "report_generator"))
    g.add_edge(START, "detective_dispatch")
    g.add_conditional_edges(
        "evidence_aggregator",
        step(TribunalNodes, "route_after_detectives"),
        {"judge": "judicial_dispatch", "error": "error_handler"},
    )
    g.add_conditional_edges(
        "chief_justice",
        step(TribunalNodes, "route_after_chief"),
        {"report": "report_generator", "reevaluate": "judicial_dispatch", "error": "error_handler"},
    )
    g.add_edge("error_handler", END)
    g.add_edge("report_generator", END)
    return g.compile()


def _layer(g: StateGraph[Any, Any, Any, Any], dispatch: str, branches: Iterable[str], method: str, join: str) -> None:
    """One parallel layer: ``dispatch`` fans out to a node per branch (``method`` for that branch); ``join`` waits
    for all of them (fan-in)."""
    g.add_node(dispatch, step(TribunalNodes, dispatch))
    for name in branches:
        g.add_node(name, step(TribunalNodes, method, name))
        g.add_edge(dispatch, name)
    g.add_node(join, step(TribunalNodes, join))
    g.add_edge(list(branches), join)


def turns(state: dict[str, Any]) -> int:
    """The turns a state has completed (evaluation rounds ruled on): ``dialectica replay`` forks an episode after one."""
    return len(state.get("rulings", []))


def recursion_limit(params: TribunalParams) -> int:
    """Four supersteps for the detectives, three per judicial round, one to close, with slack."""
    return 4 + 3 * (params.max_reevaluations + 1) + 6


def initial_state(scenario: dict[str, Any], params: TribunalParams) -> dict[str, Any]:
    """The case as the graph may see it: the criteria's hidden truth stays with the scripted judges."""
    criteria = [{k: c[k] for k in ("id", "dimension", "title", "description")} for c in scenario["criteria"]]
    return {"subject": scenario["subject"], "criteria": criteria, "reevaluations": 0, "evaluation_round": 0}


_COLLECTOR_KEYS = ("id", "delay_s", "fault", "evidence")


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    """The scenario, checked, with ``judges``: each judge's persona mapping (the scripted judges' numbers,
    today's defaults where the file gives none; see ``scripted.JUDGE_KEYS``)."""
    for key, kind in (("name", str), ("subject", str), ("criteria", list), ("collectors", list)):
        if not isinstance(scenario.get(key), kind):
            raise ConfigError(f"missing or malformed key {key!r} (expected {kind.__name__})")
    for c in scenario["criteria"]:
        if c.get("dimension") not in ("security", "fact", "functionality"):
            raise ConfigError(
                f"criterion {c.get('id')!r} has dimension {c.get('dimension')!r}; "
                "valid choices: security, fact, functionality"
            )
    ids = sorted(str(c.get("id")) for c in scenario["collectors"] if isinstance(c, dict))
    if ids != sorted(COLLECTORS):
        raise ConfigError(f"collectors {', '.join(ids)}; the detective layer needs exactly: {', '.join(COLLECTORS)}")
    for collector in scenario["collectors"]:
        missing = [k for k in _COLLECTOR_KEYS if k not in collector]
        if missing:
            raise ConfigError(f"collector {collector.get('id', '?')!r} lacks key {missing[0]!r}")
        if collector["fault"] not in ("none", "hang"):  # crashes are drawn per episode (participants.crash_rate)
            raise ConfigError(f"collector {collector['id']!r} fault {collector['fault']!r}; valid choices: none, hang")
    scenario["judges"] = judge_personas(scenario.get("judges"))  # the scripted judges' persona mappings
    return scenario
