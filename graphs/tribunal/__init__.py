"""``graph=tribunal``: a layered judging pipeline with parallel layers, error routing and re-evaluation."""

from graphs.registry import GraphSpec, graph
from graphs.tribunal.build import build_tribunal, initial_state, outcome, recursion_limit, prepare_scenario
from graphs.tribunal.params import TribunalParams

SPEC = graph(
    GraphSpec(
        name="tribunal",
        params_type=TribunalParams,
        build=build_tribunal,
        initial_state=initial_state,
        outcome=outcome,
        recursion_limit=recursion_limit,
        prepare_scenario=prepare_scenario,
        metrics=("tribunal",),
    )
)
