"""What a graph declares to be calibrated: its behaviour statistics and the persona knobs that move them.

A graph that can be calibrated sets ``GraphSpec.calibration`` to a :class:`Calibration` (``dialectica calibrate``
fits its :class:`Knob` values to an LLM reference run; ``participants=calibrated`` plays the fitted sets). Public,
like ``dialectica.graph``: the names in ``__all__`` change only after a deprecation period of one minor release.
"""

from __future__ import annotations

from dialectica.sim.authoring.calibration import Calibration, Knob

__all__ = ["Calibration", "Knob"]
