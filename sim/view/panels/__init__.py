"""Each graph's own section of the episode page; importing this package registers them all."""

from sim.view.panels import committee, interview, maieutic, socratic_panel, tribunal  # noqa: F401
