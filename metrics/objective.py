"""Tuning objectives over a run's logged metrics."""

from __future__ import annotations

from collections.abc import Mapping


def penalised(
    metrics: Mapping[str, float | None],
    metric: str,
    floor_metric: str | None = None,
    floor: float | None = None,
    penalty: float = 1.0,
) -> float:
    """``metric`` minus ``penalty`` per unit that ``floor_metric`` falls below ``floor``.

    For example the highest convergence rate whose mean depth stays above a floor. A missing metric
    counts as 0 (the trial measured nothing worth keeping).
    """
    value = metrics.get(metric) or 0.0
    if floor_metric is not None and floor is not None:
        value -= penalty * max(0.0, floor - (metrics.get(floor_metric) or 0.0))
    return float(value)
