"""Discovery schemas: the fields an interview must fill and when it is complete."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KINDS = ("text", "choice", "list", "number", "map")


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    required: bool
    question: str
    asks: tuple[str, ...]
    vocabulary: Mapping[str, tuple[str, ...]]
    min_items: int = 1

    def filled(self, value: Any) -> bool:
        if value is None or value == "" or value == {}:
            return False
        if self.kind == "list":
            return len(value) >= self.min_items
        return True


@dataclass(frozen=True)
class DiscoverySchema:
    id: str
    title: str
    fields: tuple[Field, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DiscoverySchema:
        fields = tuple(
            Field(
                name=f["name"],
                kind=f["kind"],
                required=bool(f.get("required")),
                question=f["question"],
                asks=tuple(f.get("asks", ())),
                min_items=int(f.get("min_items", 1)),
                vocabulary={k: tuple(v) for k, v in (f.get("vocabulary") or {}).items()},
            )
            for f in data["fields"]
        )
        return cls(id=data["id"], title=data["title"], fields=fields)

    @property
    def kinds(self) -> dict[str, str]:
        return {f.name: f.kind for f in self.fields}

    def field(self, name: str) -> Field:
        return next(f for f in self.fields if f.name == name)

    def missing(self, ascr: Mapping[str, Any]) -> list[str]:
        """Required fields not yet filled (lists need ``min_items``)."""
        return [f.name for f in self.fields if f.required and not f.filled(ascr.get(f.name))]

    def complete(self, ascr: Mapping[str, Any]) -> bool:
        """The completion rule: every required field filled."""
        return not self.missing(ascr)

    def next_field(self, ascr: Mapping[str, Any], asked: Mapping[str, int]) -> Field:
        """What to ask next: a missing required field, the least asked first; then optional empty fields."""
        pending = (
            [self.field(n) for n in self.missing(ascr)]
            or [f for f in self.fields if not f.filled(ascr.get(f.name))]
            or list(self.fields)
        )
        return min(pending, key=lambda f: asked.get(f.name, 0))

    def filled_required(self, ascr: Mapping[str, Any]) -> int:
        return sum(1 for f in self.fields if f.required and f.filled(ascr.get(f.name)))
