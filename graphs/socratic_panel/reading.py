"""How the moderator reads an expert's answer: claims, assumptions, evidence.

Everything here works on the answer's text alone, the way it would work on an
LLM's answer: cue phrases, not hidden labels. Pure functions, no state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dialectica.graphs.socratic_panel.state import AssumptionKind
from dialectica.metrics.text import canonical_claim, content_words, sentences

_CLAUSE = r"(?P<{name}>[^.?!]+?)"
_ASSUMPTION_LINK = re.compile(
    r"assumption that " + _CLAUSE.format(name="parent") + r",? (?:itself |in turn )*rests on the "
    r"(?:deeper |more fundamental |unstated )*assumption that " + _CLAUSE.format(name="child") + r"\s*[.!]?$",
    re.IGNORECASE,
)
_ASSUMPTION = re.compile(
    r"(?:rests on|relies on|depends on|presupposes|we are assuming|take for granted|takes for granted)"
    r" (?:the (?:\w+ )*?assumption )?that " + _CLAUSE.format(name="text") + r"\s*[.!]?$",
    re.IGNORECASE,
)
_END = r"\s*[.!]?$"
_REJECT = re.compile(r"(?:do not|don't|cannot|can't) accept the assumption that " + _CLAUSE.format(name="text") + _END, re.I)
_ACCEPT = re.compile(
    r"(?:now accept|withdraw my objection to|am persuaded by) the assumption that " + _CLAUSE.format(name="text") + _END,
    re.I,
)
_BEARS_ON = re.compile(r"bears on the assumption that " + _CLAUSE.format(name="text") + r"\s*[.!]?$", re.I)
_SAMPLE = re.compile(r"\bof (?P<n>\d[\d,]*) (?:[a-z-]+ )?[a-z]+", re.I)
_YEAR = re.compile(r"\b(?:in|from) (?P<year>(?:19|20)\d\d)\b")
_CITATION = re.compile(r"\bby (?P<who>[A-Z][\w' -]*?(?: et al)?) (?:in|from) (?:19|20)\d\d")

# Cue phrase -> (source type, strength). Longer phrases are tried first.
EVIDENCE_DESIGNS: dict[str, tuple[str, str]] = {
    "randomised controlled trial": ("study", "high"),
    "meta-analysis": ("study", "high"),
    "cohort study": ("study", "medium"),
    "small pilot study": ("study", "low"),
    "audited market dataset": ("market_data", "high"),
    "industry market survey": ("market_data", "medium"),
    "informal market scan": ("market_data", "low"),
    "binding regulatory ruling": ("regulatory_precedent", "high"),
    "regulatory guidance note": ("regulatory_precedent", "medium"),
    "informal regulator comment": ("regulatory_precedent", "low"),
    "consensus statement of leading experts": ("expert_opinion", "high"),
    "expert panel view": ("expert_opinion", "medium"),
    "single expert opinion": ("expert_opinion", "low"),
    "large registry analysis": ("observational", "high"),
    "observational study": ("observational", "medium"),
    "anecdotal field report": ("observational", "low"),
}
BIAS_CUES: dict[str, str] = {
    "industry-funded": "high",
    "self-reported": "high",
    "unblinded": "medium",
    "speaking from experience": "medium",
    "independent": "low",
    "pre-registered": "low",
}
_STRONG = ("convinced", "certain", "clearly", "the data show", "firmly")
_HEDGES = ("perhaps", "might", "i suspect", "possibly", "not sure", "tentatively", "unclear")


@dataclass(frozen=True)
class AssumptionMention:
    text: str
    kind: AssumptionKind
    parent: str | None = None


@dataclass(frozen=True)
class EvidenceMention:
    assumption: str
    text: str
    source_type: str
    strength: str
    bias_risk: str
    sample_size: int | None
    year: int | None
    citation: str


@dataclass
class Reading:
    """What the moderator took from one answer."""

    claims: list[str] = field(default_factory=list)
    assumptions: list[AssumptionMention] = field(default_factory=list)
    evidence: list[EvidenceMention] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    words: int = 0


def _assumption_kind(sentence: str) -> AssumptionKind:
    lowered = sentence.lower()
    if any(cue in lowered for cue in ("fundamental", "at bottom", "foundation")):
        return "foundational"
    if any(cue in lowered for cue in ("implicit", "unstated", "take for granted", "takes for granted")):
        return "implicit"
    return "explicit"


def _evidence(sentence: str, assumption: str) -> EvidenceMention | None:
    lowered = sentence.lower()
    design = next((d for d in sorted(EVIDENCE_DESIGNS, key=len, reverse=True) if d in lowered), None)
    if design is None:
        return None
    source_type, strength = EVIDENCE_DESIGNS[design]
    bias = next((level for cue, level in BIAS_CUES.items() if cue in lowered), "medium")
    sample = _SAMPLE.search(sentence)
    year = _YEAR.search(sentence)
    citation = _CITATION.search(sentence)
    return EvidenceMention(
        assumption=assumption,
        text=sentence,
        source_type=source_type,
        strength=strength,
        bias_risk=bias,
        sample_size=int(sample["n"].replace(",", "")) if sample else None,
        year=int(year["year"]) if year else None,
        citation=citation["who"].strip() if citation else "uncited",
    )


def read_answer(text: str) -> Reading:
    """Extracts claims, assumptions, evidence and objections from an answer."""
    reading = Reading(words=len(text.split()))
    for sentence in sentences(text):
        if sentence.endswith("?") or sentence.startswith("["):
            continue
        if (bears := _BEARS_ON.search(sentence)) and (item := _evidence(sentence, bears["text"].strip())):
            reading.evidence.append(item)
        elif match := _ACCEPT.search(sentence):
            reading.accepted.append(match["text"].strip())
        elif match := _REJECT.search(sentence):
            reading.rejected.append(match["text"].strip())
        elif match := _ASSUMPTION_LINK.search(sentence):
            reading.assumptions.append(
                AssumptionMention(match["child"].strip(), _assumption_kind(sentence), match["parent"].strip())
            )
        elif match := _ASSUMPTION.search(sentence):
            reading.assumptions.append(AssumptionMention(match["text"].strip(), _assumption_kind(sentence)))
        elif len(content_words(sentence)) >= 3:
            reading.claims.append(canonical_claim(sentence))
    return reading


def confidence(text: str) -> float:
    """Confidence the answer expresses: 0.6 baseline, moved by cue words."""
    lowered = text.lower()
    score = 0.6 + 0.1 * sum(cue in lowered for cue in _STRONG) - 0.1 * sum(cue in lowered for cue in _HEDGES)
    return round(min(1.0, max(0.0, score)), 3)


def quality(reading: Reading) -> float:
    """Answer quality in [0, 1]: substance (claims) and elaboration (length)."""
    substance = min(1.0, (len(reading.claims) + len(reading.assumptions) + len(reading.evidence)) / 3)
    return round(0.5 * substance + 0.5 * min(1.0, reading.words / 40), 3)
