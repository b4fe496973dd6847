"""The README's table of termination reasons, each graph's declaration, and its code agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dialectica.sim import discovery
from dialectica.sim.termination import TerminationReason

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<graph>\w+)` \| (?P<reasons>.+) \|$")


def _readme_table() -> dict[str, set[str]]:
    section = ROOT.joinpath("README.md").read_text().split("### How episodes end", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        if match := ROW.match(line):
            # a reason is a backticked word that opens the cell or follows "), "
            rows[match["graph"]] = set(re.findall(r"(?:^|\), )`(\w+)`", match["reasons"]))
    return rows


def _returned_by_code(graph: str) -> set[str]:
    folder = ROOT / "graphs" / graph
    names = {name for path in folder.glob("*.py") if path.name != "__init__.py"
             for name in re.findall(r"TerminationReason\.([A-Z_]+)", path.read_text())}
    return {TerminationReason[name].value for name in names}


@pytest.mark.parametrize("graph", discovery.builtin_names())
def test_readme_declaration_and_code_agree(graph):
    declared = set(discovery.load(graph).endings())
    assert declared, f"{graph} declares no terminations"
    assert TerminationReason.ERROR.value not in declared  # the harness's, never a graph's
    assert _readme_table()[graph] == declared
    assert _returned_by_code(graph) == declared


def test_every_reason_but_error_is_reachable_by_some_graph():
    reachable = {r for g in discovery.builtin_names() for r in discovery.load(g).terminations}
    assert reachable | {TerminationReason.ERROR} == set(TerminationReason)


def test_an_undeclared_ending_is_recorded_as_an_error_naming_the_declared_ones():
    from dataclasses import dataclass, replace

    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from dialectica.sim.episode import EpisodePlan, run_episode
    from dialectica.sim.spec import Episode, EpisodeOutcome, GraphSpec

    class State(TypedDict, total=False):
        n: int

    @dataclass(frozen=True)
    class Params:
        pass

    def build():
        g = StateGraph(State, context_schema=Episode)
        g.add_node("step", lambda s: {"n": 1})
        g.add_edge(START, "step")
        g.add_edge("step", END)
        return g.compile()

    spec = GraphSpec(
        name="ends_oddly", params=Params, build=build, initial_state=lambda scenario, params: {"n": 0},
        outcome=lambda state, params, scenario: EpisodeOutcome(TerminationReason.MAX_TURNS, {"rounds": 1}),
        casts={"scripted": lambda request: None}, datasets=Path("."),
        terminations=(TerminationReason.CONVERGED, TerminationReason.MAX_ROUNDS),
    )
    plan = EpisodePlan("ends_oddly", 0, 1, {"name": "s"}, "scripted")
    record = run_episode(spec, Params(), plan)
    assert record.termination_reason == "error"
    assert "'max_turns', which it does not declare; declared: converged, max_rounds" in record.error
    assert run_episode(replace(spec, name="ends_freely", terminations=()), Params(), plan).termination_reason == "max_turns"
