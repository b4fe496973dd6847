"""``graph=maieutic``: Sophia, a Socratic tutor with a Critic loop, questions one learner."""

from dialectica.graph import builtin_spec
from dialectica.graphs.maieutic import build, metrics
from dialectica.graphs.maieutic.calibration import CALIBRATION
from dialectica.graphs.maieutic.figures import critic_loop_histogram, move_distribution
from dialectica.graphs.maieutic.moves import CONVERGING, ENDINGS
from dialectica.graphs.maieutic.panel import VIEW
from dialectica.graphs.maieutic.params import MaieuticParams, SophiaCastOptions
from dialectica.graphs.maieutic.scripted import scripted_maieutic
from dialectica.graphs.maieutic.surrogate import surrogate_maieutic

SPEC = builtin_spec(
    "maieutic",
    build,
    description=__doc__.split(": ", 1)[1].strip(),
    params=MaieuticParams,
    casts={"scripted": scripted_maieutic, "surrogate": surrogate_maieutic},
    cast_options=SophiaCastOptions,
    metrics=(metrics.moves, metrics.critic, metrics.retrieval, metrics.turns_to_synthesis),
    figures=(critic_loop_histogram, move_distribution),
    view=VIEW,
    roles={"interlocutor": "system", "synthesizer": "system", "learner": "participant"},
    embeds=True,
    agreement=False,
    calibration=CALIBRATION,
    grid={"frustration_threshold": (3.0, 5.0, 7.0)},
    terminations=ENDINGS,
    converging=CONVERGING,
)
