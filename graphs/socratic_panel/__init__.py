"""``graph=socratic_panel``: a moderator questions 3-4 experts until they converge."""

from dialectica.graphs.socratic_panel import build
from dialectica.graphs.socratic_panel.panel import VIEW
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.scripted import scripted_panel
from dialectica.graphs.socratic_panel.surrogate import surrogate_panel
from dialectica.sim.resources import builtin_graph
from dialectica.sim.spec import GraphSpec

_CONFIG, _DATA = builtin_graph("socratic_panel")

SPEC = GraphSpec(
    name="socratic_panel", description=__doc__.split(": ", 1)[1].strip(),
    params=PanelParams, build=build.build_socratic_panel, initial_state=build.initial_state, outcome=build.outcome,
    recursion_limit=build.recursion_limit, prepare_scenario=build.prepare_scenario,
    casts={"scripted": scripted_panel, "surrogate": surrogate_panel},
    view=VIEW, roles={"moderator": "system", "expert": "participant"}, config=_CONFIG, datasets=_DATA,
)
