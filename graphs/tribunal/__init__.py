"""``graph=tribunal``: a layered judging pipeline with parallel layers, error routing and re-evaluation."""

from graphs.registry import register
from graphs.tribunal import build
from graphs.tribunal.params import TribunalParams

SPEC = register("tribunal", TribunalParams, build, metrics=("tribunal",),
                roles={"prosecutor": "system", "defense": "system", "tech_lead": "system"})
