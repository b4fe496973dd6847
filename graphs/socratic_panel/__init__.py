"""``graph=socratic_panel``: a moderator questions 3-4 experts until they converge."""

from dialectica.graph import TerminationReason as End
from dialectica.graph import builtin_spec
from dialectica.graphs.socratic_panel import build
from dialectica.graphs.socratic_panel.calibration import CALIBRATION
from dialectica.graphs.socratic_panel.panel import VIEW
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.scripted import scripted_panel
from dialectica.graphs.socratic_panel.surrogate import surrogate_panel

SPEC = builtin_spec(
    "socratic_panel",
    build,
    description=__doc__.split(": ", 1)[1].strip(),
    params=PanelParams,
    casts={"scripted": scripted_panel, "surrogate": surrogate_panel},
    view=VIEW,
    roles={"moderator": "system", "expert": "participant"},
    grid={"convergence_threshold": (0.5, 0.7, 0.9)},
    terminations={
        End.CONVERGED: "All five criteria and a quorum of voices held in one round",
        End.MAX_ROUNDS: "The round limit was reached before the criteria held",
    },
    calibration=CALIBRATION,
)
