"""The judicial bench: personas, the prompt each judge gets, and how opinions are read back."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from dialectica.graph import complete_items, read_json
from dialectica.graphs.tribunal.state import Evidence, Opinion

JUDGES: dict[str, str] = {
    "prosecutor": "You are the Prosecutor. Assume nothing works until the evidence proves it; find every flaw.",
    "defense": "You are the Defense. Credit effort, intent and what the evidence shows working.",
    "tech_lead": "You are the Tech Lead. Judge soundness and maintainability pragmatically, from the evidence.",
}
ARGUMENT_CHARS = 100  # an opinion's argument: one short sentence (the grammar ends it here)
FORMAT = (
    "For every criterion write one line exactly like: Criterion c1: score 3. Cited: e1, e2. Argument: one or two sentences."
)
_LINE = re.compile(
    r"Criterion (?P<id>[\w-]+): score (?P<score>[1-5])\.\s*Cited: (?P<cited>[^.]*)\.\s*Argument: (?P<argument>.*)$",
    re.IGNORECASE | re.MULTILINE,
)


def judge_prompt(
    judge: str, subject: str, criteria: Sequence[dict[str, Any]], evidence: Sequence[Evidence], feedback: str
) -> list[BaseMessage]:
    lines = [f"Case: {subject}", "Criteria:"]
    lines += [f"- {c['id']} ({c['dimension']}) {c['title']}: {c['description']}" for c in criteria]
    lines.append("Evidence:")
    lines += [
        f"- {e['id']} [{e['criterion']}] {'found' if e['found'] else 'NOT FOUND'} by {e['collector']} at "
        f"{e['location']}: {e['content']} (tags: {', '.join(e['tags']) or 'none'})"
        for e in evidence
    ]
    if feedback:
        lines.append(f"Chief Justice: {feedback}")
    lines.append(FORMAT)
    return [SystemMessage(JUDGES[judge]), HumanMessage("\n".join(lines))]


def _opinion(ids: Sequence[str]) -> dict[str, Any]:
    """One opinion on one of the criteria ``ids``."""
    return {
        "type": "object",
        "properties": {  # in the order a judge writes them: which criterion, from which evidence, why, then the score
            "criterion": {"enum": list(ids)},
            "cited": {
                "type": "array",
                "items": {"type": "string", "maxLength": 12, "description": "evidence id"},
                "maxItems": 3,
            },
            "argument": {"type": "string", "maxLength": ARGUMENT_CHARS, "description": "one sentence on why"},
            "score": {"enum": [1, 2, 3, 4, 5]},
        },
        "required": ["criterion", "score", "cited", "argument"],
    }


def opinions_schema(criteria: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The JSON a judge that can be constrained answers with: one opinion per criterion, in the criteria's order
    (each slot names its own criterion, so a reply can neither score one twice nor skip one)."""
    return {
        "type": "object",
        "properties": {
            "opinions": {
                "type": "array",
                "prefixItems": [_opinion([c["id"]]) for c in criteria],
                "minItems": len(criteria),
                "maxItems": len(criteria),
            }
        },
        "required": ["opinions"],
    }


def reply_tokens(criteria: Sequence[dict[str, Any]]) -> int:
    """The token cap of a judge's JSON reply: room for every slot of ``opinions_schema`` at its longest argument
    (about 45 tokens an opinion), so the cap does not cut a reply off and cost a retry."""
    return 32 + 64 * len(criteria)


def read_opinions(text: str, judge: str, round_num: int, criteria: Sequence[dict[str, Any]]) -> list[Opinion]:
    """One opinion per criterion, from JSON (see ``opinions_schema``; from a reply cut off by the token cap, its
    whole opinions) or from ``FORMAT`` lines; a criterion the reply does not score gets a neutral 3 marked
    unparsed."""
    schema = opinions_schema(criteria)
    data = read_json(text, schema)
    whole = data["opinions"] if data is not None else complete_items(text, "opinions", _opinion([c["id"] for c in criteria]))
    if whole:
        scored = {o["criterion"].lower(): (o["score"], o["cited"], o["argument"]) for o in whole}
    else:
        scored = {
            m["id"].lower(): (int(m["score"]), [x.strip() for x in m["cited"].split(",")], m["argument"])
            for m in _LINE.finditer(text)
        }
    opinions = []
    for c in criteria:
        score, cited, argument = scored.get(c["id"].lower(), (3, [], ""))
        opinions.append(
            Opinion(
                round=round_num,
                judge=judge,
                criterion=c["id"],
                score=score,
                cited=[x for x in cited if x and x.lower() != "none"],
                argument=argument.strip(),
                parsed=c["id"].lower() in scored,
            )
        )
    return opinions
