"""Typed, range-checked graph parameters built from a plain mapping."""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_type_hints

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

P = TypeVar("P", bound="DataclassInstance")


# The metadata key marking a params field whose value builds another compiled graph (a graph used as it is: its
# factory's arguments): ``dialectica replay`` cannot change it after a turn.
REBUILDS_GRAPH = "rebuilds_graph"
WHY = "why"  # a field's metadata: said after its type error (where the type came from)
HARNESS = "harness"  # a field's metadata: a key the harness adds (a graph used as it is), not the graph's own knob


class ConfigError(ValueError):
    """Bad user input; the message is one line naming the key and the valid choices (``key``: the one config key
    at fault, where one is, as ``build_params`` names it)."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice a mistyped ``word`` most likely meant: difflib's ratio of at least 0.75 (a letter or two off)."""
    import difflib

    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1, cutoff=0.75)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str], prefix: str = "") -> str:
    """`` (did you mean <prefix><choice>?)`` for the valid choice ``closest`` to ``word``, or ``""``."""
    choice = closest(word, choices)
    return f" (did you mean {prefix}{choice}?)" if choice else ""


def bounded(default: Any, low: float | None = None, high: float | None = None, **kw: Any) -> Any:
    """A dataclass field whose value (or every value of a mapping) must lie in [low, high]."""
    if isinstance(default, dict):
        return dataclasses.field(default_factory=lambda: dict(default), metadata={"range": (low, high)}, **kw)
    return dataclasses.field(default=default, metadata={"range": (low, high)}, **kw)


def range_text(low: float | None, high: float | None) -> str:
    """``[0, 1]``, ``>= 0.01`` or ``<= 5``: the valid range in a message."""
    if low is not None and high is not None:
        return f"[{low}, {high}]"
    return f">= {low}" if low is not None else f"<= {high}"


def _check(key: str, value: Any, hint: Any, bounds: tuple[float | None, float | None] | None) -> Any:
    if isinstance(hint, types.UnionType) and type(None) in get_args(hint):  # ``int | None``: null, or an int
        if value is None:
            return None
        (hint,) = (arg for arg in get_args(hint) if arg is not type(None))
    origin = getattr(hint, "__origin__", hint)
    if origin is dict:
        if not isinstance(value, Mapping):
            raise ConfigError(f"{key} must be a mapping, got {value!r}")
        return {k: _check(f"{key}.{k}", v, hint.__args__[1], bounds) for k, v in value.items()}
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, got {value!r}")
        return value
    if hint in (int, float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{key} must be a finite number, got {value!r}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (hint is int and value != int(value)):
            low, high = bounds or (None, None)
            valid = f"; valid range: {range_text(low, high)}" if low is not None or high is not None else ""
            raise ConfigError(f"{key} must be {'an integer' if hint is int else 'a number'}, got {value!r}{valid}")
        value = hint(value)
        low, high = bounds or (None, None)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ConfigError(f"{key}={value} is out of range; valid range: {range_text(low, high)}")
        return value
    if hint is str:
        if isinstance(value, (Mapping, list, tuple)):
            raise ConfigError(f"{key} must be a string, got {value!r}")
        return str(value)
    return value


def build_params(cls: type[P], values: Mapping[str, Any], prefix: str) -> P:
    """Builds dataclass ``cls`` from ``values``, rejecting unknown keys and out-of-range numbers.

    Raises:
        ConfigError: naming ``prefix.key`` and the valid keys or range.
    """
    hints = get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        hint = did_you_mean(unknown[0], fields, f"{prefix}.")
        harness = sorted(n for n, f in fields.items() if f.metadata.get(HARNESS))
        if not harness:
            raise ConfigError(
                f"unknown key {prefix}.{unknown[0]}{hint}; valid keys: {', '.join(sorted(fields))}", f"{prefix}.{unknown[0]}"
            )
        own = sorted(n for n in fields if n not in harness)
        raise ConfigError(
            f"unknown key {prefix}.{unknown[0]}{hint}; the graph's own knobs: "
            f"{', '.join(own) or 'none (no context field or factory argument with a plain default)'}; "
            f"the harness's keys: {', '.join(harness)}",
            f"{prefix}.{unknown[0]}",
        )
    kwargs = {}
    for name in [n for n in fields if n in values]:
        try:
            kwargs[name] = _check(f"{prefix}.{name}", values[name], hints[name], fields[name].metadata.get("range"))
        except ConfigError as exc:
            why = fields[name].metadata.get(WHY) if "must be an integer" in str(exc) else None
            raise ConfigError(f"{exc} {why}" if why else str(exc), f"{prefix}.{name}") from None
    params = cls(**kwargs)
    if hasattr(params, "validate"):
        params.validate()
    return params


def field_defaults(cls: type) -> dict[str, Any]:
    """The defaults of a dataclass's fields (a field without one is left out)."""
    values = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            values[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            values[f.name] = f.default_factory()
    return values
