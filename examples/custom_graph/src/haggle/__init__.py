"""``graph=haggle``: a buyer and a seller trade offers until they are within ``gap`` of each other."""

from pathlib import Path

from dialectica.graph import GraphSpec
from haggle.cast import scripted_cast
from haggle.graph import HaggleParams, build, initial_state, outcome, recursion_limit

HERE = Path(__file__).parent

SPEC = GraphSpec(
    name="haggle",
    description="a buyer and a seller trade offers until they meet",
    params=HaggleParams,
    build=build,
    initial_state=initial_state,
    outcome=outcome,
    recursion_limit=recursion_limit,
    casts={"scripted": scripted_cast},
    roles={"buyer": "participant", "seller": "participant"},
    config=HERE / "graph.yaml",  # the Hydra defaults of `graph=haggle`
    datasets=HERE,  # scenarios/*.yaml
)
