"""How the committee reads its members' statements and votes: JSON fields when the member was an LLM
constrained by the schemas below, otherwise cue phrases (never hidden labels)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from dialectica.graph import read_json

_CONFIDENCE_FIELD = {"type": "integer", "minimum": 0, "maximum": 100, "description": "your confidence, 0 to 100"}
STATEMENT_SCHEMA = {
    "type": "object",
    "properties": {  # in the order a member writes them: the grounds, then the stance (an optional reply_to goes last)
        "cited": {
            "type": "array",
            "items": {"type": "string", "pattern": "^d[0-9]{1,3}$", "description": "evidence id"},
            "maxItems": 3,
        },
        "statement": {"type": "string", "maxLength": 300, "description": "your statement in one or two sentences"},
        "position": {"enum": ["support", "oppose", "nuanced"]},
        "confidence": _CONFIDENCE_FIELD,
        "reply_to": {"type": "string", "maxLength": 40, "description": "the member id you answer, or empty"},
    },
    "required": ["cited", "statement", "position", "confidence"],
}
VOTE_SCHEMA = {
    "type": "object",
    "properties": {  # in the order a member writes them: why, then the vote
        "rationale": {"type": "string", "maxLength": 300, "description": "why, in one or two sentences"},
        "vote": {"enum": ["support", "oppose", "abstain"]},
        "confidence": _CONFIDENCE_FIELD,
    },
    "required": ["rationale", "vote", "confidence"],
}

_POSITION = re.compile(r"\bI (?:now |still |firmly |cautiously )?(support|oppose)\b", re.I)
_NUANCED = re.compile(r"\bnuanced\b", re.I)
_CONFIDENCE = re.compile(r"Confidence:\s*(\d{1,3})\s*%", re.I)
_CITE = re.compile(r"\[(d\d+)\]")
_TARGET = re.compile(r"In reply to ([\w-]+)", re.I)
_VOTE = re.compile(r"Vote:\s*(support|oppose|abstain)\b", re.I)
_RATIONALE = re.compile(r"Rationale:\s*(.+)$", re.I | re.S)
_BECAUSE = re.compile(r"changed my position[^.]*?because ([^.]+)", re.I)


@dataclass(frozen=True)
class Statement:
    position: str | None  # support | oppose | nuanced
    confidence: float | None  # 0..1
    cited: tuple[str, ...]
    target: str | None  # the member a rebuttal answers
    change_reason: str | None
    text: str | None = None  # the statement's prose, when the reply was JSON


def read_statement(text: str) -> Statement:
    data = read_json(text, STATEMENT_SCHEMA)
    if data is not None:
        because = _BECAUSE.search(data["statement"])
        return Statement(
            position=data["position"],
            confidence=data["confidence"] / 100,
            cited=tuple(dict.fromkeys(data["cited"])),
            target=data.get("reply_to") or None,
            change_reason=because.group(1).strip() if because else None,
            text=data["statement"],
        )
    position: str | None
    if _NUANCED.search(text):
        position = "nuanced"
    else:
        m = _POSITION.search(text)
        position = m.group(1).lower() if m else None
    conf = _CONFIDENCE.search(text)
    target = _TARGET.search(text)
    because = _BECAUSE.search(text)
    return Statement(
        position=position,
        confidence=min(100, int(conf.group(1))) / 100 if conf else None,
        cited=tuple(dict.fromkeys(_CITE.findall(text))),
        target=target.group(1) if target else None,
        change_reason=because.group(1).strip() if because else None,
    )


@dataclass(frozen=True)
class Ballot:
    vote: str  # support | oppose | abstain
    confidence: float  # 0..1
    rationale: str
    fallback: bool  # no readable vote: recorded as an abstention, but never counted as a vote cast


def read_vote(text: str) -> Ballot:
    """The vote, its confidence (0..1; 0.5 when unstated) and rationale; a reply with no readable vote is a
    fallback: an abstention at confidence 0.5 that the consensus detector does not count."""
    data = read_json(text, VOTE_SCHEMA)
    if data is not None:
        return Ballot(data["vote"], data["confidence"] / 100, data["rationale"].strip(), fallback=False)
    vote = _VOTE.search(text)
    conf = _CONFIDENCE.search(text)
    rationale = _RATIONALE.search(text)
    return Ballot(
        vote.group(1).lower() if vote else "abstain",
        min(100, int(conf.group(1))) / 100 if conf else 0.5,
        rationale.group(1).strip() if rationale else text.strip(),
        fallback=vote is None,
    )
