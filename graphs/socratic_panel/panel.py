"""Socratic panel: the five convergence criteria by round and the tree of assumptions the panel uncovered."""

from __future__ import annotations

import json
import re
from typing import Any

from dialectica.graph import GraphView
from dialectica.metrics import FullRecord
from dialectica.pages import Markup, esc, fmt, join, md_section, note, table, tag

_STATUS = re.compile(r"^\*\*(\w+)\*\* \(\d+\)$")
_REASON = re.compile(r"\((Not converged: [^)]*)\)|(Converged at round \d+)")


def criteria_grid(per_round: list[dict[str, Any]]) -> Markup:
    """✓ / ✗ for each criterion that was ever unmet, by round (the record lists unmet criteria only)."""
    unmet = [[c for c in str(r.get("unmet") or "").split(",") if c] for r in per_round]
    names = list(dict.fromkeys(c for row in unmet for c in row))
    rows = [[name, *(Markup('<span class="cell-bad">✗</span>' if name in row else "✓") for row in unmet)] for name in names]
    rows.append(["all met", *("✓" if not row else "–" for row in unmet)])
    return table(["criterion", *(f"round {r.get('round', i + 1)}" for i, r in enumerate(per_round))], rows)


def assumption_tree(assumptions: list[dict[str, Any]]) -> Markup:
    """Nested by ``related_assumptions`` (a deeper assumption names the one it refines), roots first."""
    ids = {a["id"] for a in assumptions}
    parent = {
        a["id"]: next((p for p in a.get("related_assumptions", []) if p in ids and p != a["id"]), None) for a in assumptions
    }
    children: dict[str | None, list[dict[str, Any]]] = {}
    for a in assumptions:
        children.setdefault(parent[a["id"]], []).append(a)

    def items(of: str | None, seen: frozenset[str]) -> Markup:
        out = []
        for a in children.get(of, []):
            if a["id"] in seen:
                continue
            status = str(a.get("validation_status", "unknown"))
            meta = (
                f" layer {a.get('depth_layer', '?')}, evidence {a.get('evidence_strength', '?')}, "
                f"raised by {', '.join(a.get('raised_by', [])) or 'nobody'}"
            )
            sub = items(a["id"], seen | {a["id"]})
            out.append(
                tag(
                    "li",
                    Markup(
                        tag("span", status, class_=f"status status-{status}")
                        + esc(a.get("text", a["id"]))
                        + tag("span", meta, class_="muted")
                        + (tag("ul", sub) if sub else "")
                    ),
                )
            )
        return join(out)

    return tag("ul", items(None, frozenset()), class_="tree")


def tree_from_report(report: str) -> Markup | None:
    """Without the assumptions themselves, the report's status lists as a two-level tree."""
    body = md_section(report, "2. Assumptions analysis") or md_section(report, "Assumptions analysis")
    if body is None:
        return None
    groups: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if m := _STATUS.match(line.strip()):
            groups.append((m.group(1).lower(), []))
        elif line.startswith("- ") and groups:
            groups[-1][1].append(line[2:])
    return tag(
        "ul",
        join(
            tag(
                "li",
                Markup(
                    tag("span", status, class_=f"status status-{status}")
                    + f" {len(texts)}"
                    + tag("ul", join(tag("li", t) for t in texts))
                ),
            )
            for status, texts in groups
        ),
        class_="tree",
    )


def _explain(record: FullRecord) -> str:
    summary = md_section((record.get("artifacts") or {}).get("report.md", ""), "1. Executive summary") or ""
    if m := _REASON.search(summary):
        return (m.group(1) or m.group(2)) + "."
    last = (record.get("per_round") or [{}])[-1]
    return f"unmet in the last round: {last.get('unmet') or 'none'}."


def _notes(record: FullRecord) -> dict[Any, list[Markup]]:
    out = {}
    for r in record.get("per_round") or []:
        verdict = f"unmet {r['unmet'].replace(',', ', ')}" if r.get("unmet") else "all criteria met"
        out[r.get("round")] = [
            note(
                f"depth {fmt(r.get('depth'))}, agreement {fmt(r.get('jaccard_agreement'))}, evidence "
                f"{fmt(r.get('evidence_completeness'))}: {verdict}",
                "warn" if r.get("unmet") else "ok",
            )
        ]
    return out


def panel(record: FullRecord) -> Markup:
    artifacts = record.get("artifacts") or {}
    parts = [
        tag("h3", "Convergence criteria by round"),
        criteria_grid(record.get("per_round") or []),
        tag("h3", "Assumption tree"),
    ]
    if artifacts.get("assumptions.json"):
        parts.append(assumption_tree(json.loads(artifacts["assumptions.json"])))
    else:
        fallback = tree_from_report(artifacts.get("report.md", ""))
        parts += [
            note(
                "The record holds the report's status lists, not the assumptions with their links "
                "(artifact assumptions.json): shown by status."
            ),
            fallback or tag("p", "No assumptions.", class_="muted"),
        ]
    spots = md_section(artifacts.get("report.md", ""), "3. Blind spots")
    if spots:
        parts.append(
            Markup(
                tag("h3", "Blind spots")
                + tag("ul", join(tag("li", s[2:]) for s in spots.splitlines() if s.startswith("- ")))
            )
        )
    return join(parts)


VIEW = GraphView(panel, title="Criteria and assumption tree", metric="jaccard_agreement", explain=_explain, notes=_notes)
