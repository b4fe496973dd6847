"""A graph's final state and context as JSON for its record: readable, the same for the same seed, bounded."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass

from langchain_core.messages import AIMessage
from pydantic import BaseModel

from dialectica.sim.adapter.snapshot import MAX_CHARS, context_values, final_state, plain


class Tone(enum.Enum):
    WARM = "warm"


@dataclass
class Desk:
    tone: Tone = Tone.WARM
    limit: int = 2


class Ticket(BaseModel):
    number: int
    tags: set[str]


class Opaque:
    __slots__ = ()


def test_values_become_json_a_person_can_read_and_the_same_each_time():
    state = {
        "messages": [AIMessage("hi")],
        "desk": Desk(),
        "ticket": Ticket(number=7, tags={"b", "a"}),
        "last": AIMessage("Refund issued."),
        "score": float("nan"),
        "thing": Opaque(),
    }
    out = final_state(state)
    assert out == {
        "desk": {"tone": "warm", "limit": 2},
        "ticket": {"number": 7, "tags": ["a", "b"]},
        "last": "ai: Refund issued.",
        "score": None,
        "thing": out["thing"],
    }
    assert out["thing"].startswith("<") and "Opaque" in out["thing"] and " at 0x" not in out["thing"]
    assert json.loads(json.dumps(out)) == out and final_state(state) == out


def test_long_text_and_long_lists_are_cut_saying_how_much():
    out = plain({"text": "x" * (MAX_CHARS + 5), "items": list(range(250))})
    assert out["text"].endswith("… [5 more characters]") and len(out["text"]) < MAX_CHARS + 30
    assert len(out["items"]) == 201 and out["items"][-1] == "… 50 more items"


def test_the_context_holds_the_factorys_knobs_then_the_contexts_fields():
    assert context_values(Desk(limit=5), {"model_size": "small"}) == {"model_size": "small", "tone": "warm", "limit": 5}
    assert context_values({"user_id": 3}, {}) == {"user_id": 3}
    assert context_values(None, {}) == {}
