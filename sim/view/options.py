"""The ``view:`` config block, typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dialectica.sim.authoring.params import ConfigError


@dataclass(frozen=True)
class ViewOptions:
    """Which episodes get a page.

    Attributes:
        enabled: Write pages after each graph's episodes (and log them to MLflow under ``view/``).
        first: The first N episodes.
        metric: Also the best and the worst episode by this episode metric (``-name``: lower is better);
            None takes the graph's own default.
        errors: Also the first N episodes that raised.
    """

    enabled: bool = True
    first: int = 3
    metric: str | None = None
    errors: int = 1

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None) -> ViewOptions:
        """Checks a ``view:`` block; raises ConfigError naming the bad key."""
        values = dict(values or {})
        unknown = sorted(set(values) - set(cls.__dataclass_fields__))
        if unknown:
            raise ConfigError(f"view.{unknown[0]} is not a view option; valid keys: {', '.join(cls.__dataclass_fields__)}")
        if not isinstance(values.get("enabled", True), bool):
            raise ConfigError(f"view.enabled={values['enabled']!r} is invalid; valid values: true, false")
        for key in ("first", "errors"):
            value = values.get(key, getattr(cls, key))
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"view.{key}={value!r} is invalid; valid values: integers >= 0")
        metric = values.get("metric")
        if metric is not None and (not isinstance(metric, str) or not metric.lstrip("-")):
            raise ConfigError(f"view.metric={metric!r} is invalid; valid values: null or an episode metric name")
        return cls(**values)
