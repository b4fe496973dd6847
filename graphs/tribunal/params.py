"""Thresholds of the tribunal (``conf/graph/tribunal.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.graph import bounded
from dialectica.metrics.agreement import majority

BENCH = 3  # prosecutor, defense, tech lead: the seed's judicial layer


@dataclass(frozen=True)
class TribunalParams:
    """The seed's deadline (300 s) and re-evaluation cap (1) as defaults."""

    layer_timeout_s: float = bounded(300.0, 0.001, 86400.0)  # a branch past this yields found=False evidence
    max_reevaluations: int = bounded(1, 0, 10)  # ChiefJustice may send the bench back this many times
    dispersion_threshold: float = bounded(2.0, 0.0, 4.0)  # score spread (max - min) above which a criterion is
    # contested: the bench is sent back while re-evaluations remain, and the episode has not converged after
    quorum: int | None = bounded(None, 2, BENCH)  # parsed opinions a criterion needs for its spread, dispersion
    # and agreement to be defined; null: a majority of the bench (2)
    security_cap: int = bounded(2, 1, 5)  # highest score a criterion with a confirmed security issue can get
    overrule_score: int = bounded(4, 1, 5)  # an opinion this high resting on unsupported facts is overruled
    functionality_weight: float = bounded(2.0, 0.0, 10.0)  # the tech lead's weight on functionality criteria
    pass_score: float = bounded(3.0, 1.0, 5.0)  # a criterion passes at or above this final score

    @property
    def voices_needed(self) -> int:
        """The quorum in force: ``quorum``, or a majority of the bench."""
        return self.quorum if self.quorum is not None else majority(BENCH)


@dataclass(frozen=True)
class TribunalCastOptions:
    """The scripted collectors (``graph.cast.*``)."""

    hang_s: float = bounded(1.5, 0.0, 3600.0)  # a collector planted to hang takes this long; it crosses
    # graph.layer_timeout_s only when that is lower
