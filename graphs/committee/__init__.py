"""``graph=committee``: 5-12 members deliberate, rebut, vote; a consensus detector decides when to stop."""

from graphs.committee.build import build_committee, initial_state, outcome, prepare_scenario, recursion_limit
from graphs.committee.params import CommitteeParams
from graphs.registry import GraphSpec, graph

SPEC = graph(
    GraphSpec(
        name="committee",
        params_type=CommitteeParams,
        build=build_committee,
        initial_state=initial_state,
        outcome=outcome,
        recursion_limit=recursion_limit,
        prepare_scenario=prepare_scenario,
        figures=("argument_graph",),
    )
)
