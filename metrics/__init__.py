"""Pure metrics over episode records: a metric factory holds options, the function it returns maps
records to named numbers."""

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from dialectica.metrics.record import FullRecord, Record  # generated from the writer's model (sim/records)


class TerminationReason(StrEnum):
    """Why an episode ended: the harness's vocabulary (``dialectica.sim.authoring.termination`` gives each its
    meaning; a graph may declare its own endings besides). Rates are counts of these."""

    CONVERGED = "converged"
    MAX_ROUNDS = "max_rounds"
    MAX_TURNS = "max_turns"
    PARTIAL = "partial_report"
    BUDGET = "budget_exhausted"
    ERROR = "error"


__all__ = ["FullRecord", "Metric", "MetricFn", "Record", "TerminationReason", "converged"]

MetricFn = Callable[[Sequence[Record]], dict[str, float]]
Metric = Callable[[], MetricFn]


def converged(record: Mapping[str, Any]) -> bool:
    """Whether an episode converged: its record's ``converged`` (an ending its graph counts as convergence);
    records written before that field converged when they ended ``converged``."""
    return bool(record.get("converged", record["termination_reason"] == "converged"))
