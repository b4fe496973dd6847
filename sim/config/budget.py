"""The ``budget`` keys, typed and checked (``engine.budget`` spends them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dialectica.sim.authoring.params import ConfigError

KINDS = ("episodes", "tokens", "seconds")


@dataclass(frozen=True)
class Budget:
    """Limits on one run (None: no limit). ``tokens``: model tokens, prompt plus generated, every role."""

    episodes: int | None = None
    tokens: int | None = None
    seconds: float | None = None

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Budget:
        """The ``budget`` block, checked: each value a positive number or null.

        Raises:
            ConfigError: naming the key and the valid values.
        """
        values = dict(values or {})
        for key, value in values.items():
            if key not in KINDS:
                raise ConfigError(f"unknown key budget.{key}; valid keys: {', '.join(KINDS)}")
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if value is not None and (not number or value <= 0 or (key != "seconds" and not isinstance(value, int))):
                kind = "number of seconds" if key == "seconds" else "whole number"
                raise ConfigError(f"budget.{key}={value!r} is invalid; valid values: a positive {kind}, or null")
        return cls(**values)
