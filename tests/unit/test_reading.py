"""How the moderator reads answers (graphs/socratic_panel/reading.py, graphs/text.py), incl. scripted round trips."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from dialectica.graphs.socratic_panel.reading import read_answer
from dialectica.graphs.socratic_panel.scripted import _FIRM, _HEDGED, _OPEN, ScriptedExpert
from dialectica.metrics.text import canonical_claim, sentences

SCENARIO_DIR = Path(__file__).resolve().parents[2] / "datasets" / "socratic_panel" / "scenarios"
SCENARIOS = {p.stem: yaml.safe_load(p.read_text()) for p in sorted(SCENARIO_DIR.glob("*.yaml"))}
FRAMES = (*_FIRM, *_OPEN, *_HEDGED, "I now agree with my colleagues that")


def test_scenarios_were_found():
    assert len(SCENARIOS) >= 1


# --- graphs/text.py ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "framed",
    [
        "I would argue that payers will accept a premium.",
        "The central point is that a premium will be accepted by payers",
        "On reflection I accept that payers will accept a premium!",
        "payers will accept a premium",
    ],
)
def test_canonical_claim_ignores_frame_and_phrasing(framed):
    assert canonical_claim(framed) == canonical_claim("payers will accept a premium")


def test_canonical_claim_separates_different_clauses():
    keys = {
        canonical_claim(s)
        for s in (
            "I would argue that payers will accept a premium.",
            "I would argue that payers will refuse a premium.",
            "I would argue that patients will accept a premium.",
        )
    }
    assert len(keys) == 3


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_claims_have_distinct_keys(name):
    keys = [canonical_claim(c["text"]) for c in SCENARIOS[name]["claims"]]
    assert len(set(keys)) == len(keys)


def test_sentences_keep_abbreviations_whole():
    parts = sentences("A trial by Smith et al. in 2020 found gains. Dr. Osei disagrees! Does it hold? Yes.")
    assert len(parts) == 4
    assert parts[0].startswith("A trial by Smith et al") and parts[0].endswith("found gains.")
    assert parts[1].endswith("Osei disagrees!")


def test_sentences_of_blank_text_is_empty():
    assert sentences("   ") == []


# --- read_answer ------------------------------------------------------------------------------------

ANSWER = (
    "I am convinced that trams will cut commuting times. "
    "My position rests on the assumption that commuters value reliability. "
    "Implicitly we take for granted that fares stay flat. "
    "The assumption that commuters value reliability in turn rests on the deeper assumption that delays cost money. "
    "The assumption that delays cost money in turn rests on the more fundamental assumption that time is scarce. "
    "An independent randomised controlled trial of 2,400 commuters by Smith et al. in 2021 found that trams were "
    "punctual, which bears on the assumption that commuters value reliability. "
    "I do not accept the assumption that buses are obsolete. "
    "On reflection I now accept the assumption that fares stay flat. "
    "Why would anyone doubt this? "
    "[Expert X was unable to respond due to technical issues]"
)


def test_read_answer_separates_each_kind_of_statement():
    reading = read_answer(ANSWER)
    assert reading.claims == [canonical_claim("trams will cut commuting times")]
    assert [(a.text, a.kind, a.parent) for a in reading.assumptions] == [
        ("commuters value reliability", "explicit", None),
        ("fares stay flat", "implicit", None),
        ("delays cost money", "explicit", "commuters value reliability"),
        ("time is scarce", "foundational", "delays cost money"),
    ]
    (evidence,) = reading.evidence
    assert (evidence.assumption, evidence.source_type, evidence.strength, evidence.bias_risk) == (
        "commuters value reliability",
        "study",
        "high",
        "low",
    )
    assert (evidence.sample_size, evidence.year, evidence.citation) == (2400, 2021, "Smith et al")
    assert reading.rejected == ["buses are obsolete"]
    assert reading.accepted == ["fares stay flat"]
    assert reading.words == len(ANSWER.split())


def test_evidence_without_sample_year_citation_or_bias_cue_gets_defaults():
    answer = "A cohort study found that riders returned, which bears on the assumption that riders return."
    (item,) = read_answer(answer).evidence
    assert (item.source_type, item.strength, item.bias_risk) == ("study", "medium", "medium")
    assert (item.sample_size, item.year, item.citation) == (None, None, "uncited")


def test_bears_on_without_a_known_design_is_not_evidence():
    reading = read_answer("A rumour found that riders returned, which bears on the assumption that riders return.")
    assert reading.evidence == []


# --- round trips with the scripted experts ---------------------------------------------------------


def _evidence_cases():
    for name, scenario in SCENARIOS.items():
        for item in scenario["evidence"]:
            yield pytest.param(name, item["id"], id=f"{name}-{item['id']}")


@pytest.mark.parametrize(("name", "evidence_id"), list(_evidence_cases()))
def test_scripted_evidence_sentence_round_trips(name, evidence_id):
    scenario = SCENARIOS[name]
    item = next(e for e in scenario["evidence"] if e["id"] == evidence_id)
    persona = next(p for p in scenario["experts"] if evidence_id in p["evidence"])
    assumption = next(a["text"] for a in scenario["assumptions"] if a["id"] == item["assumption"])
    expert = ScriptedExpert(persona, scenario, random.Random(0))

    reading = read_answer(expert._evidence_sentence(item, assumption))
    assert reading.claims == [] and reading.assumptions == []
    (got,) = reading.evidence
    assert (got.source_type, got.strength, got.bias_risk, got.sample_size, got.year, got.assumption) == (
        item["source_type"],
        item["strength"],
        item["bias_risk"],
        item["sample_size"],
        item["year"],
        assumption,
    )
    assert got.citation.rstrip(".") == item["citation"].rstrip(".")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scripted_assumption_chains_round_trip(name):
    scenario = SCENARIOS[name]
    texts = {a["id"]: a["text"] for a in scenario["assumptions"]}
    for persona in scenario["experts"]:
        expert = ScriptedExpert(persona, scenario, random.Random(1))
        for root, chain in expert.chains.items():
            spoken = []
            while out := expert._reveal(root):
                spoken += out
            mentions = read_answer(" ".join(spoken)).assumptions
            assert [(m.text, m.parent) for m in mentions] == [
                (texts[a], texts[chain[i - 1]] if i else None) for i, a in enumerate(chain)
            ]
            assert all(m.kind == "foundational" for m in mentions[3:])


def _claim_cases():
    for name, scenario in SCENARIOS.items():
        for claim in scenario["claims"]:
            yield pytest.param(claim["text"], id=f"{name}-{claim['id']}")


@pytest.mark.parametrize("claim", list(_claim_cases()))
def test_every_scripted_frame_canonicalises_to_the_bare_claim(claim):
    key = canonical_claim(claim)
    for frame in FRAMES:
        sentence = f"{frame} {claim}."
        assert canonical_claim(sentence) == key, frame
        assert read_answer(sentence).claims == [key], frame
