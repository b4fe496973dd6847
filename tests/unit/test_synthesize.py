"""``dialectica synthesize``: one checked scenario per call, near duplicates dropped by sentence embeddings."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from dialectica.sim.analysis.synthesize import synthesize, write
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.engine.embedding import Embedder

ANA = {"persona": "Ana, who flew to Lisbon two days ago.", "instructions": "Get a refund for booking AB1234."}
REPLIES = [
    {"name": "Late Refund", **ANA, "opening": "Hi, I want my money back.", "rubric": "The assistant issues the refund."},
    {"name": "late refund", **ANA, "opening": "Hello, refund please.", "rubric": "The assistant refunds."},  # Ana again
    {"name": "x", "persona": "pass", "instructions": "", "opening": "hi", "rubric": "text"},  # placeholders
    None,  # not JSON
    {"name": "angry_regular", "persona": "Dev, a frequent flyer furious about a cancelled connection in Chicago.",
     "instructions": "Demand compensation and a lounge pass, and threaten to switch airlines.",
     "opening": "This is the third time you cancelled on me.", "rubric": "The assistant stays calm and explains the policy.",
     "expected_tools": ["lookup_booking"]},
]  # fmt: skip


def test_only_valid_distinct_scenarios_are_kept(tmp_path):
    prompts: list[str] = []

    def ask(prompt: str, schema: dict[str, Any], seed: int) -> dict[str, Any] | None:
        prompts.append(prompt)
        return REPLIES[len(prompts) - 1] if len(prompts) <= len(REPLIES) else None

    done = synthesize("airline customers", 2, ask=ask, embed=Embedder(), tools=["lookup_booking"], max_calls=10)
    assert [s["name"] for s in done.scenarios] == ["late_refund", "angry_regular"]
    assert (done.calls, done.invalid, done.duplicates) == (5, 2, 1)
    assert done.scenarios[1]["expected_tools"] == ["lookup_booking"] and done.scenarios[0]["opening"] == [
        "Hi, I want my money back."
    ]
    assert "Already written (write a different one): late_refund" in prompts[1]
    assert "lookup_booking" in prompts[0]
    path = write(done.scenarios, tmp_path / "scenarios.yaml")
    assert yaml.safe_load(path.read_text()) == done.scenarios and not list(tmp_path.glob(".*partial"))


def test_a_bad_style_is_one_line():
    with pytest.raises(ConfigError, match="style='angry' is invalid; valid choices: plain, adversarial"):
        synthesize("x", 1, ask=lambda *a: None, embed=Embedder(), style="angry")


@pytest.mark.parametrize(
    "reply",
    [
        {"name": "echo", "persona": "Your Persona here", "instructions": "Get a refund, booking AB1234.",
         "opening": "Hello there, refund?", "rubric": "The assistant refunds it."},
        {"name": "same", "persona": "A customer wanting money back.", "instructions": "A customer wanting money back.",
         "opening": "Hello there, refund?", "rubric": "The assistant refunds it."},
        {"name": "json", "persona": "Bo, a student.", "instructions": "Format your first message as a JSON object.",
         "opening": "Hello there, refund?", "rubric": "The assistant refunds it."},
        {"name": "shape", "persona": "<who the user is, in one sentence>", "instructions": "Get a refund, AB1234.",
         "opening": "Hello there, refund?", "rubric": "The assistant refunds it."},
    ],
)  # fmt: skip
def test_a_small_models_echoes_are_not_scenarios(reply):
    done = synthesize("x", 1, ask=lambda *a: reply, embed=Embedder(), max_calls=1)
    assert done.scenarios == [] and done.invalid == 1


def test_the_researchers_examples_show_the_form_and_are_not_written_again():
    prompts: list[str] = []

    def ask(prompt: str, schema: dict[str, Any], seed: int) -> dict[str, Any] | None:
        prompts.append(prompt)
        return REPLIES[0] if len(prompts) == 1 else REPLIES[4]

    own = [{"name": "ana", **ANA, "rubric": "Refund AB1234."}]
    done = synthesize("airline customers", 1, ask=ask, embed=Embedder(), examples=own, max_calls=3)
    assert '"name": "ana"' in prompts[0] and "An example of the form" in prompts[0]
    assert done.duplicates == 1 and [s["name"] for s in done.scenarios] == ["angry_regular"]  # Ana is theirs already
