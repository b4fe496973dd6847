"""Committee: the argument graph (members' statements, supports and opposes), position changes, the votes
cast by round, the consensus check by round (its three components, votes cast against the quorum)."""

from __future__ import annotations

import json
from typing import Any

from dialectica.graph import GraphView
from dialectica.metrics import FullRecord
from dialectica.pages import LANE_LEFT, Markup, esc, fmt, join, lane_frame, legend, note, number, table, tag

POSITIONS = {"support": "#2f855a", "oppose": "#c53030", "nuanced": "#805ad5"}


def argument_svg(graph: dict[str, Any]) -> Markup:
    """Statements as dots in their member's lane, in statement order; supports green, opposes red."""
    nodes = sorted(graph.get("nodes", []), key=lambda n: n.get("order", 0))
    if not nodes:
        return tag("p", "The argument graph is empty.", class_="muted")
    members = list(dict.fromkeys(str(n.get("member", "?")) for n in nodes))
    step, lane = 14, 22
    pos = {
        n["id"]: (LANE_LEFT + step * (i + 0.5), lane * (members.index(str(n.get("member", "?"))) + 0.5))
        for i, n in enumerate(nodes)
    }
    width, height, body = lane_frame(members, [n.get("round") for n in nodes], step, lane, prefix="round ")
    for e in graph.get("edges", []):
        if e.get("source") not in pos or e.get("target") not in pos:
            continue
        (x1, y1), (x2, y2) = pos[e["source"]], pos[e["target"]]
        bend = -18 if y1 == y2 else 0
        relation = esc(e.get("relationship", ""))
        body.append(
            f'<path class="{relation}" d="M {x1:.1f} {y1:.1f} Q {(x1 + x2) / 2:.1f} {(y1 + y2) / 2 + bend:.1f} '
            f'{x2:.1f} {y2:.1f}"><title>{esc(e["source"])} {relation} {esc(e["target"])}</title></path>'
        )
    for n in nodes:
        x, y = pos[n["id"]]
        colour = POSITIONS.get(str(n.get("position")), "#9aa5b1")
        cited = ", ".join(n.get("cited", []))
        body.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{colour}" data-node="{esc(n["id"])}">'
            f"<title>{esc(n.get('member'))}, "
            f"round {esc(n.get('round'))} {esc(n.get('phase'))}: {esc(n.get('position'))}"
            f"{' citing ' + esc(cited) if cited else ''}</title></circle>"
        )
    svg = Markup(
        f'<svg class="argument-graph" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" '
        f'height="{height:.0f}" role="img" aria-label="argument graph">{"".join(body)}</svg>'
    )
    keys = legend([*POSITIONS.items(), ("supports", "#2f855a"), ("opposes", "#c53030")])
    caption = tag(
        "p", f"{len(nodes)} statements, {len(graph.get('edges', []))} relations, {len(members)} members", class_="muted"
    )
    return join([caption, keys, tag("div", svg, class_="scroll")])


def _cast(row: dict[str, Any]) -> str:
    """ "5 of 7 votes cast, quorum 4" (empty for records older than the quorum)."""
    return f"{fmt(row.get('voices'))} votes cast, quorum {fmt(row.get('quorum'))}" if "voices" in row else ""


def _explain(record: FullRecord) -> str:
    last = (record.get("per_round") or [{}])[-1]
    m = record.get("metrics") or {}
    verdict = (
        f"consensus in round {last.get('round')}"
        if last.get("consensus_reached")
        else f"no consensus after {m.get('rounds', len(record.get('per_round') or []))} rounds"
    )
    cast = f" ({_cast(last)})" if _cast(last) else ""
    return (
        f"{verdict}: consensus score {fmt(last.get('consensus_score'))} from vote share {fmt(last.get('vote_share'))}, "
        f"semantic agreement {fmt(last.get('semantic_agreement'))} and confidence {fmt(last.get('confidence'))}"
        f"{cast}; {fmt(m.get('dissenters'))} dissenters."
    )


def _notes(record: FullRecord) -> dict[Any, list[Markup]]:
    out = {}
    for row in record.get("per_round") or []:
        rebuttals = "rebuttals held" if row.get("rebuttals") else "no rebuttals"
        divergence = f"divergence {fmt(row.get('divergence'))}: {rebuttals}"
        cast = f", {_cast(row)}" if _cast(row) else ""
        consensus = (
            f"consensus score {fmt(row.get('consensus_score'))} (vote share {fmt(row.get('vote_share'))}), "
            f"{fmt(row.get('dissenters'))} dissenters{cast}: "
            + ("consensus" if row.get("consensus_reached") else "no consensus")
        )
        out[row.get("round")] = [note(divergence), note(consensus, "ok" if row.get("consensus_reached") else "warn")]
    return out


def panel(record: FullRecord) -> Markup:
    artifacts = record.get("artifacts") or {}
    parts = (
        [argument_svg(json.loads(artifacts["argument_graph.json"]))]
        if artifacts.get("argument_graph.json")
        else [note("The record has no argument_graph.json artifact.", "warn")]
    )
    changes = json.loads(artifacts.get("position_changes.json") or "[]")
    if changes:
        rows = [
            [c.get("member"), c.get("round"), c.get("phase"), f"{c.get('from')} → {c.get('to')}", c.get("why")]
            for c in changes
        ]
        parts.append(
            Markup(
                tag("h3", f"Position changes ({len(changes)})") + table(["member", "round", "phase", "change", "why"], rows)
            )
        )
    votes = votes_table(record.get("transcript") or [])
    if votes is not None:
        parts.append(votes)
    scores = [number(r.get("consensus_score")) for r in record.get("per_round") or []]
    if any(s is not None for s in scores):
        parts.append(tag("p", "consensus score by round: " + " → ".join(fmt(s) for s in scores), class_="muted"))
    return join(parts)


def votes_table(transcript: list[dict[str, Any]]) -> Markup | None:
    """Each member's vote and confidence by round; a fallback (no vote cast) shows as "no vote"."""
    ballots = [t for t in transcript if t.get("phase") == "vote" and "vote" in t]
    if not ballots:
        return None
    rounds = sorted({t["round"] for t in ballots})
    weights: dict[str, Any] = {}
    cells: dict[str, dict[int, str]] = {}
    for t in ballots:
        weights[t["speaker"]] = t.get("weight")
        cells.setdefault(t["speaker"], {})[t["round"]] = (
            "no vote" if t.get("fallback") else f"{t['vote']} {fmt(t.get('confidence'))}"
        )
    rows = [[member, weights[member], *(by.get(r, "") for r in rounds)] for member, by in cells.items()]
    return Markup(tag("h3", "Votes (vote, confidence)") + table(["member", "weight", *(f"round {r}" for r in rounds)], rows))


VIEW = GraphView(panel, title="Argument graph", metric="consensus_score", explain=_explain, notes=_notes)
