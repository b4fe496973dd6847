"""The Critic's checks (seed 001, Node D): pure functions of the draft and the documents it was given.

Check 1: is the draft longer than ``max_sentences`` (the seed's 4) sentences? Check 2: does it end with a
"?"? Check 3: if documents were present, is there a citation tag? A failed draft goes back to the
Interlocutor with the seed's instruction for a long draft, "Too long. Cut to 1 sentence.".
"""

from __future__ import annotations

import re

from dialectica.metrics.text import sentences

CITE = re.compile(r"<cite>[^<]+</cite>")
CHECKS = ("too_long", "no_question", "no_citation")
PASSED, FAILED, NOT_APPLICABLE = "passed", "failed", "not_applicable"
TOO_LONG = "Too long. Cut to 1 sentence."  # the seed's instruction, word for word
INSTRUCTIONS = {
    "too_long": TOO_LONG,
    # The seed names one instruction only (for a long draft); the others say what their check wants.
    "no_question": "End with one question grounded in the text: the last character must be a question mark.",
    "no_citation": "Ground the question in the documents: cite one with a <cite>ID</cite> tag before the question mark.",
}


def sentence_count(text: str) -> int:
    """Sentences, with abbreviations such as "e.g." and "Dr." kept whole and citation tags ignored."""
    return len(sentences(CITE.sub("", text)))


def ends_with_question(text: str) -> bool:
    """Check 2 as the seed states it: the draft's last character (trailing whitespace aside) is "?".

    A closing quote or a citation tag after the "?" fails, as does a "?" inside an earlier quotation.
    """
    return text.rstrip().endswith("?")


def verdict(draft: str, has_documents: bool, max_sentences: int) -> dict[str, str]:
    """Every check's result for one draft: ``passed``, ``failed``, or ``not_applicable`` (check 3 without
    documents), in CHECKS order."""
    return {
        "too_long": FAILED if sentence_count(draft) > max_sentences else PASSED,
        "no_question": PASSED if ends_with_question(draft) else FAILED,
        "no_citation": (FAILED if not CITE.search(draft) else PASSED) if has_documents else NOT_APPLICABLE,
    }


def failed_checks(draft: str, has_documents: bool, max_sentences: int) -> list[str]:
    """The names of the checks the draft fails, in CHECKS order (empty when it passes)."""
    return [name for name, result in verdict(draft, has_documents, max_sentences).items() if result == FAILED]


def instruction(failed: list[str]) -> str:
    """The corrective instruction sent back to the Interlocutor: one sentence per failed check."""
    return " ".join(INSTRUCTIONS[name] for name in failed)
