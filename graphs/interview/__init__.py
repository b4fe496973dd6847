"""``graph=interview``: an autonomous discovery interview that fills a schema's ASCR within a budget."""

from dialectica.graphs.interview import build
from dialectica.graphs.interview.panel import VIEW
from dialectica.graphs.interview.params import InterviewParams
from dialectica.graphs.interview.scripted import scripted_interview
from dialectica.graphs.interview.surrogate import surrogate_interview
from dialectica.metrics.summary import by_label
from dialectica.sim.resources import builtin_graph
from dialectica.sim.spec import GraphSpec

_CONFIG, _DATA = builtin_graph("interview")

SPEC = GraphSpec(
    name="interview", description=__doc__.split(": ", 1)[1].strip(),
    params=InterviewParams, build=build.build_interview, initial_state=build.initial_state, outcome=build.outcome,
    recursion_limit=build.recursion_limit, prepare_scenario=build.prepare_scenario,
    casts={"scripted": scripted_interview, "surrogate": surrogate_interview},
    metrics=(by_label,), view=VIEW, roles={"interviewer": "system", "interviewee": "participant"},
    agreement=False, config=_CONFIG, datasets=_DATA,
)
