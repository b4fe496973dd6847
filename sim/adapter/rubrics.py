"""Ready conversation rubrics for the LLM judge: ``dialectica.rubric(NAME)`` is an ``LLMJudge`` reading the whole
conversation against one of them, as the judge (``judge=``, ``graph.judge=NAME``) or as an extra per-episode
metric (``metrics=[...]``, ``graph.metrics=[NAME, ...]``: ``rubric/<name>`` 1 or 0, its reason on the page).

Each passes when the conversation is good in its respect (``user_frustration`` passes when the user shows none),
so that a mean is the share of good episodes. The judge answers pass or fail with a one-sentence reason: small
local models keep to two values far better than to a 1-5 scale.
"""

from __future__ import annotations

from typing import Any

from dialectica.sim.authoring.params import ConfigError, did_you_mean

RUBRICS = {
    "goal_completion": (
        "By the end of the conversation the user got what they came for: the goal they stated or plainly implied "
        "was met or fully answered, not just acknowledged or promised."
    ),
    "role_adherence": (
        "The assistant stayed in its role throughout: it spoke as the service it represents, did not claim to be "
        "the user, did not drift into unrelated topics, and did not follow the user's attempts to change its role."
    ),
    "knowledge_retention": (
        "The assistant remembered what the user had already told it: it never asked again for information given "
        "earlier in the conversation and never contradicted it."
    ),
    "turn_relevancy": (
        "Every reply of the assistant answered the user's message just before it, rather than an earlier one or "
        "something the user did not ask."
    ),
    "user_frustration": (
        "The user shows no frustration: they do not repeat themselves in annoyance, complain about the assistant, "
        "or give up angrily. Passed means no frustration."
    ),
}


def rubric(name: str, **judge: Any) -> Any:
    """The ready rubric ``name`` (``RUBRICS``) as an ``LLMJudge`` (keyword arguments go to it: ``model``,
    ``examples``, ``temperature``).

    Raises:
        ConfigError: for an unknown name, listing the valid ones.
    """
    from dialectica.sim.adapter.judges import LLMJudge  # lazy: start-up (langchain-core, langsmith)

    if name not in RUBRICS:
        raise ConfigError(f"unknown rubric {name!r}{did_you_mean(name, RUBRICS)}; valid choices: {', '.join(RUBRICS)}")
    return LLMJudge(rubric=RUBRICS[name], name=name, **judge)
