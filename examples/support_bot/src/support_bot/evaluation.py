"""What a researcher writes beside the graph to evaluate it: a simulated customer and a judge.

dialectica.evaluate("support_bot.graph:graph", scenarios="scenarios.yaml", user=customer, judge=refunded)
"""

import random

from langchain_core.messages import BaseMessage

from dialectica import Verdict

OPENINGS = (
    "Hi, I'd like a refund for my flight.",
    "Hello, can I get my money back for a flight?",
    "I want a refund for a flight I took, please.",
)


def outcome(messages: list[BaseMessage]) -> str:
    """What the customer got, read from the bot's words: refund, refusal, escalation or nothing."""
    said = " ".join(m.text for m in messages if m.type == "ai").lower()
    for phrase, result in (("refund has been issued", "refund"), ("not eligible", "refusal"), ("colleague", "escalation")):
        if phrase in said:
            return result
    return "nothing"


def customer(messages: list[BaseMessage], scenario: dict, rng: random.Random) -> str | None:
    """A customer who wants a refund; asked for the booking number, they give ``scenario["booking"]``, or with
    probability ``scenario["forgets"]`` say they do not have it. They stop once refunded, refused or handed over."""
    if not messages:
        return rng.choice(OPENINGS)
    if outcome(messages) != "nothing":
        return None
    if "booking" in messages[-1].text.lower():
        if rng.random() < scenario.get("forgets", 0):
            return "Sorry, I don't have my booking number with me."
        return f"Sure, it's {scenario['booking']}."
    return "I'd like a refund for my flight, please."


def refunded(messages: list[BaseMessage], scenario: dict) -> Verdict:
    """Passed when the customer got what the scenario expects: ``expect: refund`` or ``expect: refusal``."""
    got, want = outcome(messages), scenario["expect"]
    return Verdict(got == want, f"expected a {want}, the customer got {'a ' if got != 'nothing' else ''}{got}")
