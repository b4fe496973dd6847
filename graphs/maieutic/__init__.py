"""``graph=maieutic``: Sophia, a Socratic tutor with a Critic loop, questions one learner."""

from graphs.maieutic.build import build_maieutic, initial_state, outcome, play, recursion_limit, prepare_scenario
from graphs.maieutic.params import MaieuticParams
from graphs.registry import GraphSpec, graph

SPEC = graph(
    GraphSpec(
        name="maieutic",
        params_type=MaieuticParams,
        build=build_maieutic,
        initial_state=initial_state,
        outcome=outcome,
        recursion_limit=recursion_limit,
        prepare_scenario=prepare_scenario,
        play=play,
        metrics=("moves", "critic", "retrieval", "turns_to_synthesis"),
        figures=("critic_loops", "moves"),
    )
)
