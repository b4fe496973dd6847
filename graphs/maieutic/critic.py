"""The Critic's checks: pure functions of the draft and the turn's documents."""

from __future__ import annotations

import re

from dialectica.metrics.text import sentences

CITE = re.compile(r"<cite>[^<]+</cite>")
_TRAILING = re.compile(r"(?:\s*(?:<cite>[^<]*</cite>|[\"'\u201d\u2019)\]]))+\s*$")
CHECKS = ("too_long", "no_question", "no_citation")
INSTRUCTIONS = {
    "too_long": "Too long. Cut to {limit} sentences or fewer.",
    "no_question": "End with one question grounded in the text.",
    "no_citation": "Ground the question in the documents: cite one with a <cite>ID</cite> tag.",
}


def sentence_count(text: str) -> int:
    """Sentences, with abbreviations such as "e.g." and "Dr." kept whole and citation tags ignored."""
    return len(sentences(CITE.sub("", text)))


def ends_with_question(text: str) -> bool:
    """True when the last sentence is a question; closing quotes and citation tags after the "?" are allowed,
    a "?" inside an earlier quotation is not enough."""
    core = _TRAILING.sub("", text.strip())
    return core.endswith("?")


def failed_checks(draft: str, has_documents: bool, max_sentences: int) -> list[str]:
    """The names of the checks the draft fails, in CHECKS order (empty when it passes)."""
    failed = []
    if sentence_count(draft) > max_sentences:
        failed.append("too_long")
    if not ends_with_question(draft):
        failed.append("no_question")
    if has_documents and not CITE.search(draft):
        failed.append("no_citation")
    return failed


def instruction(failed: list[str], max_sentences: int) -> str:
    """The corrective instruction sent back to the Interlocutor."""
    return " ".join(INSTRUCTIONS[name].format(limit=max_sentences) for name in failed)
