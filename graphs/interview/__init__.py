"""``graph=interview``: an autonomous discovery interview that fills a schema's ASCR within a budget."""

from dialectica.graph import TerminationReason as End
from dialectica.graph import builtin_spec
from dialectica.graphs.interview import build
from dialectica.graphs.interview.calibration import CALIBRATION
from dialectica.graphs.interview.panel import VIEW
from dialectica.graphs.interview.params import InterviewParams
from dialectica.graphs.interview.scripted import scripted_interview
from dialectica.graphs.interview.surrogate import surrogate_interview
from dialectica.metrics.summary import by_label

SPEC = builtin_spec(
    "interview",
    build,
    description=__doc__.split(": ", 1)[1].strip(),
    params=InterviewParams,
    casts={"scripted": scripted_interview, "surrogate": surrogate_interview},
    metrics=(by_label,),
    view=VIEW,
    roles={"interviewer": "system", "interviewee": "participant"},
    agreement=False,
    calibration=CALIBRATION,
    grid={"budget": (3, 6, 10)},
    terminations={
        End.CONVERGED: "Every required field of the discovery schema was filled",
        End.BUDGET: "The question budget ran out before every required field was filled",
    },
)
