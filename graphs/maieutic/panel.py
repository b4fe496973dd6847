"""Maieutic tutor: each turn's move, what the Librarian retrieved and how similar, what the Critic sent back,
and how the learner's thesis moved."""

from __future__ import annotations

import json
from typing import Any

from dialectica.graph import GraphView
from dialectica.metrics import FullRecord
from dialectica.pages import Markup, fmt, hbars, join, note, number, table, tag


def failed_checks(row: dict[str, Any]) -> dict[str, int]:
    """The Critic's failed checks in one turn, by check, from the ``failed/<check>`` counts."""
    return {k.split("/", 1)[1]: int(v) for k, v in row.items() if k.startswith("failed/") and v}


def passages(retrievals: list[dict[str, Any]]) -> Markup:
    """Each search's hits as similarity bars, labelled by passage."""
    parts = []
    for r in retrievals:
        found = r.get("passages", r.get("hits"))  # the Librarian's records: "passages" (older ones: "hits")
        hits = found if isinstance(found, list) else []
        title = f"turn {r.get('round', '?')}: “{r.get('query', '')}” best similarity {fmt(r.get('best_similarity'))}"
        rows = [(str(h.get("work") or h.get("id")), float(h.get("similarity") or 0.0), "ok") for h in hits]
        texts = join(tag("li", f"{h.get('work') or h.get('id')}: {h.get('text', '')}") for h in hits)
        parts.append(
            Markup(
                tag("h3", title)
                + (
                    hbars(rows, scale=1.0) + tag("ul", texts)
                    if hits
                    else tag("p", "no passage above the floor", class_="muted")
                )
            )
        )
    return join(parts)


def _explain(record: FullRecord) -> str:
    m = record.get("metrics") or {}
    revised = f"the thesis was revised {fmt(m.get('depth'))} times"
    how = {
        "synthesis": "the learner affirmed a revised thesis",
        "aporia": "the learner reached aporia",
        "gave_up": "the learner gave up early",
    }.get(str(record.get("termination_reason")))
    if how:
        return f"{how}; Sophia synthesised after {fmt(m.get('rounds'))} turns; {revised}."
    return (
        f"no synthesis within {fmt(m.get('rounds'))} turns; the thesis was revised {fmt(m.get('depth'))} times, "
        f"final frustration {fmt(m.get('frustration_final'))}."
    )


def _notes(record: FullRecord) -> dict[Any, list[Markup]]:
    out: dict[Any, list[Markup]] = {}
    for row in record.get("per_round") or []:
        mine = out.setdefault(row.get("round"), [])
        failed = failed_checks(row)
        if failed:
            checks = ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in failed.items())
            loops = fmt(row.get("critic_loops"))
            said = (
                f"Critic rejected {loops} draft(s); the cap was reached, so Sophia asked the fallback question instead: "
                f"failed {checks}"
                if row.get("cap_reached") and row.get("fallback")
                else f"Critic rejected {loops} draft(s), this reply the last of them, released at the cap: failed {checks}"
                if row.get("cap_reached")
                else f"Critic rejected {loops} draft(s) before this reply: failed {checks}"
            )
            mine.append(note(said, "reject"))
        if row.get("retrieved"):
            found = f"{row.get('hits')} passage(s) above the floor" if row.get("hits") else "no passage above the floor"
            mine.append(note(f"Librarian: {found}, best similarity {fmt(row.get('best_similarity'))}"))
    return out


def panel(record: FullRecord) -> Markup:
    artifacts = record.get("artifacts") or {}
    rounds = record.get("per_round") or []
    rows = [
        [
            r.get("round"),
            r.get("move"),
            r.get("retrieved"),
            r.get("hits"),
            r.get("best_similarity"),
            r.get("hit_similarity_mean"),
            r.get("critic_loops"),
            ", ".join(f"{k} ×{v}" for k, v in failed_checks(r).items()) or "–",
            r.get("frustration"),
        ]
        for r in rounds
    ]
    parts = [
        table(
            [
                "turn",
                "move",
                "searched",
                "hits",
                "best similarity",
                "hit similarity",
                "critic loops",
                "failed checks",
                "frustration",
            ],
            rows,
        )
    ]
    similarities = [
        (f"turn {r.get('round')}", number(r.get("best_similarity")), "ok" if r.get("hits") else "") for r in rounds
    ]
    best = [(label, value, class_) for label, value, class_ in similarities if value is not None]
    if best:
        parts.append(
            Markup(
                tag("h3", "Best passage similarity per search (green: a passage cleared the floor)") + hbars(best, scale=1.0)
            )
        )
    if artifacts.get("retrievals.json"):
        parts.append(Markup(tag("h3", "Retrieved passages") + passages(json.loads(artifacts["retrievals.json"]))))
    else:
        parts.append(note("The record holds similarities but not the passages themselves (artifact retrievals.json)."))
    theses = [line.split(". ", 1)[-1] for line in (artifacts.get("thesis_evolution.md") or "").splitlines() if line.strip()]
    if theses:
        parts.append(Markup(tag("h3", "Thesis evolution") + tag("ol", join(tag("li", t) for t in theses))))
    return join(parts)


VIEW = GraphView(panel, title="Moves, retrieval and the Critic", metric="depth", explain=_explain, notes=_notes)
