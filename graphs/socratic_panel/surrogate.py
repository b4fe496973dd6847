"""Surrogate panel experts: an LLM per persona, told its claims, assumption chains and evidence."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dialectica.graph import CastRequest, bullet, degree
from dialectica.graphs.socratic_panel.nodes import PanelDeps
from dialectica.graphs.socratic_panel.reading import EVIDENCE_DESIGNS
from dialectica.graphs.socratic_panel.scripted import scripted_panel

_DESIGN = {value: cue for cue, value in EVIDENCE_DESIGNS.items()}


def expert_persona(persona: dict[str, Any], scenario: dict[str, Any]) -> str:
    """The system prompt of one expert: who they are, what they hold and why, what they know."""
    claims = {c["id"]: c["text"] for c in scenario["claims"]}
    assumptions = {a["id"]: a for a in scenario["assumptions"]}
    chains = []
    for root in persona["assumptions"]:
        chain, node = [], root
        while node:
            chain.append(assumptions[node]["text"])
            node = next((a["id"] for a in scenario["assumptions"] if a["parent"] == node), None)
        chains.append(" -> which rests on the deeper assumption that ".join(chain))
    evidence = [
        f"a {_DESIGN[(e['source_type'], e['strength'])]}"
        + (f" of {e['sample_size']:,} {e['unit']}" if e.get("sample_size") else "")
        + f" by {e['citation']} in {e['year']} found that {e['finding']}"
        f" (it bears on the assumption that {assumptions[e['assumption']]['text']})"
        for e in scenario["evidence"]
        if e["id"] in persona["evidence"]
    ]
    rejects = [assumptions[a]["text"] for a in persona.get("rejects", [])]
    lines = [
        f"You are {persona['name']}, a {persona['role']}, speaking on a panel about: {scenario['query']}",
        "Your position:",
        bullet([claims[c] for c in persona["claims"]]),
        "Your position rests on these assumptions, from the surface down:",
        bullet(chains),
        "Evidence you know and may cite:",
        bullet(evidence or ["none beyond your experience"]),
    ]
    if rejects:
        lines += ["Assumptions you do not accept when others voice them:", bullet(rejects)]
    lines.append(
        f"Temperament: you are {degree(persona['stubbornness'], 'flexible', 'measured', 'stubborn')}, "
        f"{degree(persona['persuadability'], 'hard to persuade', 'open to good arguments', 'easily persuaded')} and "
        f"{degree(persona['openness'], 'guarded about your assumptions', 'fairly candid', 'candid about your assumptions')}."
    )
    return "\n".join(lines)


def surrogate_panel(request: CastRequest) -> PanelDeps:
    """The scripted panel with each expert replaced by an LLM playing that persona."""
    scenario = request.scenario
    experts = {p["id"]: request.participant("expert", expert_persona(p, scenario), p["id"]) for p in scenario["experts"]}
    return replace(scripted_panel(request), experts=experts)
