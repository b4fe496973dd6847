"""``graph=committee``: 5-12 members deliberate, rebut, vote; a consensus detector decides when to stop."""

from graphs.committee import build
from graphs.committee.params import CommitteeParams
from graphs.registry import register

SPEC = register("committee", CommitteeParams, build, figures=("argument_graph",),
                roles={"chair": "system", "member": "participant"})
