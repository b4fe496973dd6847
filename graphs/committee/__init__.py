"""``graph=committee``: 5-12 members deliberate, rebut, vote; a consensus detector decides when to stop."""

from dialectica.graph import TerminationReason as End
from dialectica.graph import builtin_spec
from dialectica.graphs.committee import build
from dialectica.graphs.committee.calibration import CALIBRATION
from dialectica.graphs.committee.figures import argument_graphs
from dialectica.graphs.committee.panel import VIEW
from dialectica.graphs.committee.params import CommitteeParams
from dialectica.graphs.committee.scripted import scripted_committee
from dialectica.graphs.committee.surrogate import surrogate_committee

SPEC = builtin_spec(
    "committee",
    build,
    description=__doc__.split(": ", 1)[1].strip(),
    params=CommitteeParams,
    casts={"scripted": scripted_committee, "surrogate": surrogate_committee},
    figures=(argument_graphs,),
    view=VIEW,
    roles={"chair": "system", "member": "participant"},
    embeds=True,
    grid={"consensus_threshold": (0.6, 0.75, 0.9)},
    terminations={
        End.CONVERGED: "The consensus detector passed with a quorum of votes",
        End.MAX_ROUNDS: "The round limit was reached before a consensus",
    },
    calibration=CALIBRATION,
)
