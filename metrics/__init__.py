"""Pure metrics over episode records: a metric factory holds options, the function it returns maps
records to named numbers."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Record = dict[str, Any]
MetricFn = Callable[[Sequence[Record]], dict[str, float]]
Metric = Callable[[], MetricFn]


def converged(record: Mapping[str, Any]) -> bool:
    """Whether an episode converged: its record's ``converged`` (an ending its graph counts as convergence);
    records written before that field converged when they ended ``converged``."""
    return bool(record.get("converged", record["termination_reason"] == "converged"))
