"""The docs' table of termination reasons (docs/concepts.md), each graph's declaration, and its code agree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dialectica.sim.authoring.termination import TerminationReason
from dialectica.sim.config import discovery

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<graph>\w+)` \| (?P<reasons>.+) \|$")


def _readme_table() -> dict[str, dict[str, bool]]:
    """graph -> reason -> whether the docs count it as convergence (bold)."""
    section = ROOT.joinpath("docs", "concepts.md").read_text().split("### How episodes end", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        if match := ROW.match(line):
            # a reason is a backticked word, bold when it counts as convergence, that opens the cell or follows "), "
            found = re.findall(r"(?:^|\), )(\*\*)?`(\w+)`", match["reasons"])
            rows[match["graph"]] = {reason: bool(bold) for bold, reason in found}
    return rows


def _returned_by_code(graph: str, declared: set[str]) -> set[str]:
    """The harness's reasons the graph's code names, and its own endings that its code returns as strings."""
    code = [path.read_text() for path in (ROOT / "graphs" / graph).glob("*.py") if path.name != "__init__.py"]
    names = {name for text in code for name in re.findall(r"TerminationReason\.([A-Z_]+)", text)}
    own = {
        word
        for text in code
        for line in re.findall(r"\breturn [^\n]+", text)
        for word in re.findall(r'"(\w+)"', line)
        if word in declared
    }
    return {TerminationReason[name].value for name in names} | own


@pytest.mark.parametrize("graph", discovery.builtin_names())
def test_readme_declaration_and_code_agree(graph):
    spec = discovery.load(graph)
    declared = set(spec.endings())
    assert declared, f"{graph} declares no terminations"
    assert TerminationReason.ERROR.value not in declared  # the harness's, never a graph's
    assert _readme_table()[graph] == {reason: reason in spec.converging for reason in declared}
    assert _returned_by_code(graph, declared) == declared


def test_every_reason_but_error_is_reachable_by_some_graph():
    reachable = {r for g in discovery.builtin_names() for r in discovery.load(g).terminations}
    assert set(TerminationReason) <= reachable | {TerminationReason.ERROR}


def test_an_undeclared_ending_is_recorded_as_an_error_naming_the_declared_ones():
    from dataclasses import dataclass, replace

    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from dialectica.sim.authoring.spec import Episode, EpisodeOutcome, GraphSpec
    from dialectica.sim.engine.build import EpisodePlan
    from dialectica.sim.engine.episode import run_episode

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
        name="ends_oddly",
        params=Params,
        build=build,
        initial_state=lambda scenario, params: {"n": 0},
        outcome=lambda state, params, scenario: EpisodeOutcome(TerminationReason.MAX_TURNS, {"rounds": 1}),
        casts={"scripted": lambda request: None},
        datasets=Path("."),
        terminations=(TerminationReason.CONVERGED, TerminationReason.MAX_ROUNDS),
    )
    plan = EpisodePlan("ends_oddly", 0, 1, {"name": "s"}, "scripted")
    record = run_episode(spec, Params(), plan)
    assert record.termination_reason == "error"
    assert "'max_turns', which it does not declare; declared: converged, max_rounds" in record.error
    assert run_episode(replace(spec, name="ends_freely", terminations=()), Params(), plan).termination_reason == "max_turns"
