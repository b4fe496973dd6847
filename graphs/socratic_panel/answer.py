"""An expert's answer as fields: what an LLM expert is asked for, written out as the prose the moderator reads.

A model under a grammar fills the fields (its position's claims, the assumptions beneath it from the surface
down, the evidence it cites and the assumption each bears on, what it rejects or now accepts); ``written`` turns
them into the sentences ``reading.read_answer`` reads, the same phrases the scripted experts use, one claim a
sentence. So both casts are read by one reader, and the transcript, the other experts and the embeddings see
prose. A reply that is not JSON of the schema (a scripted expert's, or a model's that never fitted) is read as it
is.
"""

from __future__ import annotations

import re
from typing import Any

from dialectica.graph import read_json
from dialectica.graphs.socratic_panel.reading import EVIDENCE_DESIGNS
from dialectica.metrics.text import content_words

_TEXT = 120  # characters a finding, or an assumption another expert voiced, may take


def _clauses(description: str, chars: int = _TEXT) -> dict[str, Any]:
    """A list of up to two clauses (the description goes on the items: a model is shown the items' shape)."""
    return {"type": "array", "items": {"type": "string", "maxLength": chars, "description": description}, "maxItems": 2}


ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {  # in the order an expert writes them
        "claims": _clauses("a claim your position makes, in one sentence", 160) | {"maxItems": 3},
        "assumptions": _clauses("an assumption your position rests on, then any deeper one beneath it: A -> B", 240)
        | {"maxItems": 3},
        "evidence": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "design": {"enum": list(EVIDENCE_DESIGNS)},
                    "sample": {"type": "integer", "minimum": 0, "description": "how many were studied, 0 if unknown"},
                    "by": {"type": "string", "maxLength": 40, "description": "who published it"},
                    "year": {"type": "integer", "minimum": 1900, "maximum": 2100},
                    "finding": {"type": "string", "maxLength": _TEXT, "description": "what it found, as a clause"},
                    "bears_on": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 3,
                        "description": "which assumption: 1, 2 or 3",
                    },
                },
                "required": ["design", "sample", "by", "year", "finding", "bears_on"],
            },
        },
        "rejects": _clauses("an assumption another expert voiced that you do not accept"),
        "accepts": _clauses("an assumption you objected to and now accept"),
    },
    "required": ["claims", "assumptions", "evidence", "rejects", "accepts"],
}
ANSWER_TOKENS = 512  # room for every field at its longest (about 450 tokens), so the cap does not cut one off


_LEAD = (  # what a model may write before an assumption's clause
    r"^(?:which\s+)?(?:(?:rests|relies) on\s+)?(?:the\s+)?(?:(?:deeper|more fundamental|unstated)\s+)?"
    r"(?:assumption\s+)?that\s+"
)
_LINK = re.compile(r"\s*->\s*")  # "A -> which rests on the deeper assumption that B", as the persona writes chains
_BEARS = re.compile(r"[\s(,;]*(?:it |which )?bears on the assumption.*$", re.I | re.S)  # a finding's own note of it


def _clause(text: str) -> str:
    """``text`` as a clause after "that": one sentence's worth (no sentence ends inside it), no closing stop, and
    a lower-case first letter unless it starts a name or an acronym; empty when it says nothing ("none")."""
    text = re.sub(r"(?<=\d)\.(?=\d)", " point ", " ".join(text.split()))
    text = re.sub(r"[.?!]+(?=\w)", "", re.sub(r"[.?!;]+(?=\s|$)", ",", text)).strip(" ,:")
    text = re.sub(_LEAD, "", text, flags=re.I)
    if len(content_words(text)) < 2:
        return ""
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


def _sentence(claim: str) -> str:
    """A claim as one sentence of its own (each is one claim to the reader, as a scripted expert's are)."""
    text = re.sub(r"[.?!;]+(?=\s)", ",", " ".join(claim.split())).rstrip(" ,;:.!?")
    return f"{text[:1].upper()}{text[1:]}."


def written(data: dict[str, Any]) -> str:
    """The answer ``data`` (valid under ``ANSWER_SCHEMA``) in the sentences the moderator's reader reads: each
    assumption a chain from the surface down (its links written ``A -> B``), evidence on the assumption its number
    names (the first of that chain)."""
    chains = [chain for chain in ([c for c in map(_clause, _LINK.split(a)) if c] for a in data["assumptions"]) if chain]
    out = [_sentence(claim) for claim in data["claims"] if _clause(claim)]
    for chain in chains:
        out.append(f"My position rests on the assumption that {chain[0]}.")
        for i in range(1, len(chain)):
            deeper = "more fundamental" if i >= 2 else "deeper"
            out.append(f"The assumption that {chain[i - 1]} in turn rests on the {deeper} assumption that {chain[i]}.")
    for item in data["evidence"]:
        finding = _clause(_BEARS.sub("", item["finding"]))
        if not 1 <= item["bears_on"] <= len(chains) or not finding:
            continue
        sample = f" of {item['sample']:,} people" if item["sample"] else ""
        article = "An" if item["design"][0] in "aeiou" else "A"
        by = " ".join(item["by"].split()) or "an unnamed source"
        out.append(
            f"{article} {item['design']}{sample} by {by} in {item['year']} found that {finding}, "
            f"which bears on the assumption that {chains[item['bears_on'] - 1][0]}."
        )
    out += [f"I do not accept the assumption that {c}." for c in map(_clause, data["rejects"]) if c]
    out += [f"I now accept the assumption that {c}." for c in map(_clause, data["accepts"]) if c]
    return " ".join(out)


def answer_text(reply: str) -> str:
    """What the moderator reads of a reply: the fields written out when it is JSON of ``ANSWER_SCHEMA``, else the
    reply as it is."""
    data = read_json(reply, ANSWER_SCHEMA)
    return written(data) if data is not None else reply
