"""``graph=socratic_panel``: a moderator questions 3-4 experts until they converge."""

from graphs.registry import register
from graphs.socratic_panel import build
from graphs.socratic_panel.params import PanelParams

SPEC = register("socratic_panel", PanelParams, build, roles={"moderator": "system", "expert": "participant"})
