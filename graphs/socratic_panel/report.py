"""What the panel concludes: question targets, insights, blind spots, recommendations, report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.scoring import evidence_score
from dialectica.graphs.socratic_panel.state import Assumption, PanelState


def _level(score: float) -> str:
    return "high" if score >= 0.7 else "medium" if score >= 0.5 else "low"


def choose_target(
    question_type: str, assumptions: Sequence[Assumption], evidence_map: Mapping[str, list[Any]]
) -> str | None:
    """The assumption a question aims at, or None for open questions.

    Assumption questions dig beneath the newest leaf; evidence and perspective
    questions take up a contested assumption first (evidence settles disputes),
    else evidence questions ask about the deepest assumption with no evidence.
    """
    contested = [a for a in assumptions if a["contradictions"] and not a["contradiction_resolved"]]
    if question_type == "assumption":
        parents = {p for a in assumptions for p in a["related_assumptions"]}
        leaves = [a for a in assumptions if a["id"] not in parents]
        return leaves[-1]["text"] if leaves else None
    if question_type in ("evidence", "perspective") and contested:
        return contested[0]["text"]
    if question_type == "evidence":
        bare = [a for a in assumptions if not evidence_map.get(a["id"])]
        return max(bare, key=lambda a: a["depth_layer"])["text"] if bare else None
    return None


def _mean_score(items: Sequence[Mapping[str, Any]], p: PanelParams) -> float:
    return sum(evidence_score(e, p) for e in items) / len(items) if items else 0.0


def core_insights(
    assumptions: Sequence[Assumption], evidence_map: Mapping[str, list[Any]], p: PanelParams
) -> list[dict[str, Any]]:
    """Top five settled (validated or invalidated) assumptions at or above the impact cut-off."""
    settled = [
        a
        for a in assumptions
        if a["validation_status"] in ("validated", "invalidated") and a["impact_score"] >= p.impact_cutoff
    ]
    settled.sort(key=lambda a: (-a["impact_score"], a["id"]))
    insights = []
    for a in settled[:5]:
        verdict = "holds" if a["validation_status"] == "validated" else "does not hold"
        insights.append(
            {
                "title": f"The assumption that {a['text']} {verdict}",
                "description": f"Raised by {len(a['raised_by'])} expert(s) at layer {a['depth_layer']}; "
                f"{len(evidence_map.get(a['id'], []))} evidence item(s) weighed.",
                "confidence": round(min(1.0, _mean_score(evidence_map.get(a["id"], []), p)), 3),
                "evidence_strength": a["evidence_strength"] if a["evidence_strength"] != "none" else "low",
                "impact": _level(a["impact_score"]),
                "supporting_assumptions": [a["id"]],
            }
        )
    return insights


def blind_spots(assumptions: Sequence[Assumption], evidence_map: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    """Assumptions the panel leaned on without any evidence, most impactful first."""
    bare = sorted((a for a in assumptions if not evidence_map.get(a["id"])), key=lambda a: (-a["impact_score"], a["id"]))
    return [
        {
            "id": a["id"],
            "description": f"No evidence was offered for the assumption that {a['text']}",
            "impact": _level(a["impact_score"]),
            "mitigation": f"Commission evidence on whether {a['text']}",
            "discovered_in_round": a["depth_layer"],
        }
        for a in bare[:5]
    ]


def recommendations(
    assumptions: Sequence[Assumption], evidence_map: Mapping[str, list[Any]], p: PanelParams
) -> list[dict[str, Any]]:
    """One action per high-impact assumption: build on it, drop it, or test it."""
    action = {"validated": "Build on", "invalidated": "Abandon plans that rely on", "unproven": "Test before relying on"}
    ranked = sorted(
        (a for a in assumptions if a["impact_score"] >= p.impact_cutoff), key=lambda a: (-a["impact_score"], a["id"])
    )
    return [
        {
            "action": f"{action[a['validation_status']]} the assumption that {a['text']}",
            "priority": _level(a["impact_score"]),
            "assumption_id": a["id"],
            "evidence_items": len(evidence_map.get(a["id"], [])),
        }
        for a in ranked[:5]
    ]


def _bullets(lines: Sequence[str]) -> str:
    return "\n".join(f"- {line}" for line in lines) if lines else "- none"


def _share(value: float) -> str:
    return f"{value:.0%}" if value == value else "undefined (too few experts answered)"


def render_markdown(state: PanelState) -> str:
    """The executive report with the seed's six sections."""
    by_id = {a["id"]: a for a in state.get("assumptions_identified", [])}
    ids = {
        "validated": state.get("assumptions_validated", []),
        "invalidated": state.get("assumptions_invalidated", []),
        "unproven": state.get("assumptions_unproven", []),
    }
    texts = {k: [by_id[i]["text"] for i in these] for k, these in ids.items()}
    converged = state.get("convergence_achieved", False)
    recs = state.get("recommendations", [])
    unresolved = [a["text"] for a in by_id.values() if a["contradictions"] and not a["contradiction_resolved"]]
    bottom_line = recs[0]["action"] if recs else "Gather more evidence before deciding"
    return (
        "\n\n".join(
            [
                f"# Socratic panel report\n\n**Query:** {state['query']}",
                "## 1. Executive summary\n"
                f"{'Converged' if converged else 'Did not converge'} after {state.get('current_round', 0)} rounds "
                f"({state.get('convergence_reason', '')}). Depth {state.get('depth_layers', 0)} layers, agreement "
                f"{_share(state.get('agreement_level', float('nan')))}, "
                f"evidence completeness {state.get('evidence_completeness', 0.0):.0%}. "
                f"Bottom line: {bottom_line}.",
                "## 2. Assumptions analysis\n"
                + "\n".join(f"**{k.capitalize()}** ({len(v)})\n{_bullets(v)}" for k, v in texts.items()),
                "## 3. Blind spots discovered\n" + _bullets([b["description"] for b in state.get("blind_spots", [])]),
                "## 4. Critical risks\n"
                + _bullets([f"Contested and unresolved: {t}" for t in unresolved] + texts["invalidated"]),
                "## 5. Actionable recommendations\n" + _bullets([f"{r['action']} ({r['priority']})" for r in recs]),
                "## 6. Decision recommendation\n"
                + (
                    "Proceed, acting on the validated assumptions above."
                    if converged and not texts["invalidated"]
                    else "Proceed with caution: revisit the invalidated and unproven assumptions first."
                    if converged
                    else "Do not decide yet: the panel did not converge."
                ),
            ]
        )
        + "\n"
    )
