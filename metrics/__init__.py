"""Pure metrics over episode records. Each registered metric maps records to named numbers."""

from collections.abc import Callable, Sequence
from typing import Any

from sim.registry import Registry

Record = dict[str, Any]
MetricFn = Callable[[Sequence[Record]], dict[str, float]]

METRICS: Registry[Callable[..., MetricFn]] = Registry("metric")


def metric(name: str) -> Callable:
    """Registers a metric factory: the outer function holds options, the inner one computes."""
    return METRICS.register(name)
