"""``graph=interview``: an autonomous discovery interview that fills a schema's ASCR within a budget."""

from graphs.interview.build import build_interview, initial_state, outcome, prepare_scenario, recursion_limit
from graphs.interview.params import InterviewParams
from graphs.registry import GraphSpec, graph

SPEC = graph(
    GraphSpec(
        name="interview",
        params_type=InterviewParams,
        build=build_interview,
        initial_state=initial_state,
        outcome=outcome,
        recursion_limit=recursion_limit,
        prepare_scenario=prepare_scenario,
        metrics=("by_label",),
    )
)
