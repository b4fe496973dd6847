"""``graph=socratic_panel``: a moderator questions 3-4 experts until they converge."""

from graphs.registry import GraphSpec, graph
from graphs.socratic_panel.build import build_socratic_panel, initial_state, outcome, recursion_limit, prepare_scenario
from graphs.socratic_panel.params import PanelParams

SPEC = graph(
    GraphSpec(
        name="socratic_panel",
        params_type=PanelParams,
        build=build_socratic_panel,
        initial_state=initial_state,
        outcome=outcome,
        recursion_limit=recursion_limit,
        prepare_scenario=prepare_scenario,
    )
)
