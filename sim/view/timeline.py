"""The dialogue as a timeline: rounds in order, each turn with its speaker, and the graph's notes inline."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from dialectica.sim.view.charts import speaker_colour, swimlane
from dialectica.sim.view.markup import Markup, esc, join, tag

_KIND_KEYS = ("phase", "type")


def turn_html(index: int, turn: dict[str, Any]) -> Markup:
    """One turn: speaker, its role and phase or question type, the text; system roles sit left, others right."""
    speaker = str(turn.get("speaker", "?"))
    role = str(turn.get("role", ""))
    tags = [role, *(str(turn[k]) for k in _KIND_KEYS if turn.get(k))]
    if turn.get("fallback"):
        tags.append("fallback")
    head = Markup(
        f'<span class="speaker" style="color:{speaker_colour(speaker)}">{esc(speaker)}</span>'
        + join(tag("span", t, class_="tag") for t in tags if t)
    )
    side = "left" if role in ("system", "moderator") else "right"
    return tag(
        "article",
        Markup(tag("header", head) + tag("p", turn.get("text", ""))),
        id=f"turn-{index}",
        class_=f"turn turn-{side}",
        data_turn=index,
        data_round=turn.get("round"),
        data_speaker=speaker,
        style=f"background:{speaker_colour(speaker, light=True)}",
    )


def timeline(transcript: Sequence[dict[str, Any]], notes: dict[Any, list[Markup]]) -> Markup:
    """Turns grouped by round, each round closed by its notes; rounds with notes but no turns still show."""
    indexed = list(enumerate(transcript))
    blocks, shown = [], set()
    for round_no, group in groupby(indexed, key=lambda it: it[1].get("round")):
        turns = join(turn_html(i, t) for i, t in group)
        shown.add(round_no)
        blocks.append(_round(round_no, turns, notes.get(round_no, [])))
    blocks += [_round(r, Markup(""), n) for r, n in notes.items() if r not in shown]
    head = swimlane(transcript)
    return join([head, *blocks]) if blocks else tag("p", "No turns.", class_="muted")


def _round(round_no: Any, turns: Markup, notes: list[Markup]) -> Markup:
    title = f"Round {round_no}" if round_no is not None else "Turns"
    return tag("div", Markup(tag("h3", title) + turns + join(notes)), class_="round", data_round=round_no)
