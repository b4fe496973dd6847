"""Thresholds of the tribunal (``conf/graph/tribunal.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.sim.params import bounded


@dataclass(frozen=True)
class TribunalParams:
    """The seed's deadline (300 s) and re-evaluation cap (1) as defaults."""

    layer_timeout_s: float = bounded(300.0, 0.001, 86400.0)  # a branch past this yields found=False evidence
    max_reevaluations: int = bounded(1, 0, 10)  # ChiefJustice may send the bench back this many times
    dispersion_threshold: float = bounded(2.0, 0.0, 4.0)  # score spread (max - min) that asks for re-evaluation
    security_cap: int = bounded(2, 1, 5)  # highest score a criterion with a confirmed security issue can get
    overrule_score: int = bounded(4, 1, 5)  # an opinion this high resting on unsupported facts is overruled
    functionality_weight: float = bounded(2.0, 0.0, 10.0)  # the tech lead's weight on functionality criteria
    pass_score: float = bounded(3.0, 1.0, 5.0)  # a criterion passes at or above this final score


@dataclass(frozen=True)
class TribunalCastOptions:
    """The scripted collectors (``graph.cast.*``)."""

    hang_s: float = bounded(1.5, 0.0, 3600.0)  # a collector planted to hang takes this long; it crosses
    # graph.layer_timeout_s only when that is lower
