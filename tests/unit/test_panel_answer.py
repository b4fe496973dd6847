"""An LLM expert's structured answer: written out as the prose the moderator's reader reads, and asked for by the
panel with its schema and token cap."""

from __future__ import annotations

import json
import random
from itertools import pairwise

from dialectica.graph import read_json
from dialectica.graphs.socratic_panel.answer import ANSWER_SCHEMA, ANSWER_TOKENS, answer_text, written
from dialectica.graphs.socratic_panel.nodes import Expert, PanelDeps, PanelNodes
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.reading import EVIDENCE_DESIGNS, read_answer
from dialectica.metrics.text import content_words
from dialectica.sim.authoring.scripted import ScriptedChatModel
from dialectica.sim.llm.backends import Reply
from dialectica.sim.llm.chat import LLMChatModel
from dialectica.sim.llm.settings import LLMSettings

WORDS = "fares riders council budget downtown traffic buses demand income trips e.g. 2.5 percent US".split()


def _clause(rng: random.Random) -> str:
    while len(content_words(text := " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 4))))) < 2:
        pass
    return rng.choice([text, text.capitalize(), f"{text}.", f"That {text}!"])


def _linked(rng: random.Random, chain: list[str]) -> str:
    """A chain as a model writes it in one item (at most the schema's 120 characters)."""
    long = " -> which rests on the deeper assumption that ".join(chain)
    return long if len(long) <= 120 and rng.random() < 0.5 else " -> ".join(chain)


def _answer(rng: random.Random) -> dict:
    chains = [[_clause(rng) for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(0, 3))]
    return {
        "claims": rng.choice(
            [
                ["Fare-free buses will raise downtown ridership."],
                ["fares deter riders; budgets hold", "US riders pay e.g. fares"],
            ]
        ),
        "assumptions": [_linked(rng, chain) for chain in chains],
        "evidence": [
            {
                "design": rng.choice(list(EVIDENCE_DESIGNS)),
                "sample": rng.choice([0, 80, 12000]),
                "by": "Lee et al.",
                "year": rng.randint(1990, 2026),
                "finding": _clause(rng) + rng.choice(["", " (it bears on the assumption that fares matter)"]),
                "bears_on": rng.randint(1, 3),
            }
            for _ in range(rng.randint(0, 2))
        ],
        "rejects": [_clause(rng) for _ in range(rng.randint(0, 1))] + rng.choice([[], ["none"]]),
        "accepts": [_clause(rng) for _ in range(rng.randint(0, 2))],
    }


def test_the_reader_takes_from_the_written_answer_every_field_the_model_filled():
    rng = random.Random(7)
    for _ in range(200):
        data = _answer(rng)
        assert read_json(json.dumps(data), ANSWER_SCHEMA) is not None
        reading = read_answer(written(data))
        lengths = [len(a.split(" -> ")) for a in data["assumptions"]]
        assert len(reading.assumptions) == sum(lengths)
        start, roots = 0, []
        for n in lengths:  # each item its own chain, from the surface down
            chain = reading.assumptions[start : start + n]
            assert chain[0].parent is None and all(b.parent == a.text for a, b in pairwise(chain))
            roots.append(chain[0].text)
            start += n
        cited = [e for e in data["evidence"] if e["bears_on"] <= len(roots)]
        assert [(e.assumption, e.year, e.sample_size or 0) for e in reading.evidence] == [
            (roots[e["bears_on"] - 1], e["year"], e["sample"]) for e in cited
        ]
        assert [e.source_type for e in reading.evidence] == [EVIDENCE_DESIGNS[e["design"]][0] for e in cited]
        assert all("bears on" not in e.text.split("which bears on")[0] for e in reading.evidence)
        assert len(reading.rejected) == len([r for r in data["rejects"] if r != "none"])
        assert len(reading.accepted) == len(data["accepts"])
        assert len(reading.claims) == len(data["claims"])  # one claim a sentence


def test_a_reply_that_is_not_an_answer_is_read_as_it_is():
    prose = "My position rests on the assumption that fares deter riders."
    assert answer_text(prose) == prose
    assert answer_text('{"position": "cut off') == '{"position": "cut off'
    data = _answer(random.Random(1))
    assert answer_text(json.dumps(data)) == written(data)


def test_an_expert_is_asked_for_the_answers_fields_and_the_moderator_reads_them_as_prose():
    class Backend:
        identity = {"backend": "recorder"}
        requests: list = []

        def complete(self, request):
            self.requests.append(request)
            data = {
                "claims": ["Fare-free buses help the poor most", "fares deter riders"],
                "assumptions": [
                    "fares deter riders -> which rests on the deeper assumption that riders are price sensitive"
                ],
                "evidence": [
                    {
                        "design": "cohort study",
                        "sample": 900,
                        "by": "Lee",
                        "year": 2020,
                        "finding": "fares fell",
                        "bears_on": 1,
                    }
                ],
                "rejects": [],
                "accepts": [],
            }
            return Reply(text=json.dumps(data), prompt_tokens=1, completion_tokens=1, seconds=0.0)

    model = LLMChatModel(backend=Backend(), settings=LLMSettings(backend="llamacpp", retries=0), role="expert", seed=1)
    deps = PanelDeps(
        moderator=ScriptedChatModel(policy=lambda messages: "Why?"),
        experts={"ada": model},
        roster=[Expert("ada", "Ada", "analyst")],
        sleep=lambda s: None,
    )
    question = {"round": 1, "type": "assumption", "text": "Why?", "moderator_id": "m", "target_assumption": None}
    state = {"query": "Fares?", "current_round": 1, "question_history": [question | {"depth_level": 1}]}
    (response,) = PanelNodes(deps, PanelParams()).collect_responses(state | {"response_history": []})["response_history"]
    (request,) = Backend.requests
    assert request.schema == ANSWER_SCHEMA and request.max_tokens == ANSWER_TOKENS
    assert response["assumptions_revealed"] == ["fares deter riders", "riders are price sensitive"]
    assert [e["assumption"] for e in response["evidence_cited"]] == ["fares deter riders"]
    assert not response["response_text"].startswith("{")
