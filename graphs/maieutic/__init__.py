"""``graph=maieutic``: Sophia, a Socratic tutor with a Critic loop, questions one learner."""

from graphs.maieutic import build
from graphs.maieutic.params import MaieuticParams
from graphs.registry import register

SPEC = register("maieutic", MaieuticParams, build, metrics=("moves", "critic", "retrieval", "turns_to_synthesis"),
                figures=("critic_loops", "moves"),
                roles={"interlocutor": "system", "synthesizer": "system", "learner": "participant"})
