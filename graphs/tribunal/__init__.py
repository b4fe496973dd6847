"""``graph=tribunal``: a layered judging pipeline with parallel layers, error routing and re-evaluation."""

from dialectica.graph import TerminationReason as End
from dialectica.graph import builtin_spec
from dialectica.graphs.tribunal import build
from dialectica.graphs.tribunal.calibration import CALIBRATION
from dialectica.graphs.tribunal.metrics import tribunal
from dialectica.graphs.tribunal.panel import VIEW
from dialectica.graphs.tribunal.params import TribunalCastOptions, TribunalParams
from dialectica.graphs.tribunal.scripted import scripted_tribunal

SPEC = builtin_spec(
    "tribunal",
    build,
    description=__doc__.split(": ", 1)[1].strip(),
    params=TribunalParams,
    # no simulated participants: the collectors replay the case's evidence, so both kinds get the same
    # cast; the judges are system roles and follow the llm config
    casts={"scripted": scripted_tribunal, "surrogate": scripted_tribunal},
    cast_options=TribunalCastOptions,
    metrics=(tribunal,),
    view=VIEW,
    roles={"prosecutor": "system", "defense": "system", "tech_lead": "system"},
    grid={"dispersion_threshold": (0.5, 1.5, 3.0)},
    terminations={
        End.CONVERGED: "A full verdict, the judges within the dispersion threshold",
        End.MAX_ROUNDS: "The judges were still apart after the last re-evaluation",
        End.PARTIAL: "A collector crashed or a judge failed twice; the ErrorHandler reported",
    },
    calibration=CALIBRATION,
)
