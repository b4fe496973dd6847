"""A tiny name -> factory registry shared by graphs, participants and metrics."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownNameError(KeyError):
    """A name that no factory is registered under; the message lists the choices."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class Registry(Generic[T]):
    """Maps names to registered objects; registering a name twice raises.

    Args:
        kind: What the registry holds, used in error messages ("graph", "metric").
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator that registers its target under ``name``."""

        def decorate(obj: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is already registered")
            self._items[name] = obj
            return obj

        return decorate

    def get(self, name: str, key: str | None = None) -> T:
        """Returns the object registered as ``name``.

        Raises:
            UnknownNameError: naming ``key`` (the config key) and the valid choices.
        """
        if name not in self._items:
            where = f"{key}=" if key else f"{self.kind} "
            raise UnknownNameError(
                f"unknown {self.kind} {where}{name!r}; valid choices: {', '.join(self.names())}"
            )
        return self._items[name]

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
