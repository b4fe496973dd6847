"""``build_maieutic()``: Sophia's spiral graph, one learner turn per invocation."""

from __future__ import annotations

import json
import math
import statistics
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from dialectica.graph import ConfigError, Episode, EpisodeOutcome, TerminationReason, attempt, read_yaml, step
from dialectica.graphs.maieutic.nodes import MaieuticDeps, MaieuticNodes
from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.prompts import learner_prompt
from dialectica.graphs.maieutic.state import MaieuticState


def build_maieutic() -> Any:
    """Analyst -> (Librarian ->) Interlocutor <-> Critic -> user; Analyst -> Synthesizer -> end.

    Compiled with an in-memory checkpointer: each ``invoke`` on the same thread is one
    learner turn, and the state carries over between turns.
    """
    workflow = StateGraph(MaieuticState, context_schema=Episode)
    for name in ("analyst", "librarian", "interlocutor", "critic", "synthesizer"):
        workflow.add_node(name, step(MaieuticNodes, name))
    workflow.add_edge(START, "analyst")
    workflow.add_conditional_edges(
        "analyst",
        step(MaieuticNodes, "route_after_analyst"),
        {"retrieve": "librarian", "respond": "interlocutor", "synthesize": "synthesizer"},
    )
    workflow.add_edge("librarian", "interlocutor")
    workflow.add_edge("interlocutor", "critic")
    workflow.add_conditional_edges(
        "critic", step(MaieuticNodes, "route_after_critic"), {"revise": "interlocutor", "deliver": END}
    )
    workflow.add_edge("synthesizer", END)
    return workflow.compile(checkpointer=InMemorySaver())


def recursion_limit(params: MaieuticParams) -> int:
    """One turn: analyst, librarian, then up to ``critic_cap`` interlocutor-critic pairs."""
    return 2 * params.critic_cap + 8


def initial_state(scenario: dict[str, Any], params: MaieuticParams) -> dict[str, Any]:
    return {"topic": scenario["topic"]}


def play(
    compiled: Any, episode: Episode[MaieuticDeps, MaieuticParams], state: dict[str, Any], config: dict[str, Any]
) -> dict[str, Any]:
    """The dialogue loop: learner turns until Sophia synthesises or ``max_turns`` learner turns pass.

    The episode's turns share one checkpointer thread, deleted at the end so that a process running
    many episodes through the one compiled graph does not keep them all. Each turn runs under
    ``episode.at_turn(turn)``, so that a replay can change the thresholds from a turn on.
    """
    deps = episode.deps
    thread = f"episode-{uuid.uuid4().hex}"
    config = {**config, "configurable": {"thread_id": thread}}
    dialogue: list[tuple[str, str]] = []  # (learner, Sophia) exchanges: the learner remembers the dialogue
    final = state
    turn = 0
    try:
        while turn < episode.at_turn(turn).params.max_turns:
            current, turn = episode.at_turn(turn), turn + 1
            prompt = learner_prompt(question=deps.question, character=deps.character, dialogue=dialogue)

            # One retry; a learner who still does not answer is silent this turn (a fallback), and Sophia goes on.
            def answer(prompt: list[BaseMessage] = prompt) -> str:
                return str(deps.learner.invoke(prompt, {"callbacks": config.get("callbacks", [])}).content)  # metered

            said, _, error = attempt(answer)
            message = HumanMessage(said) if error is None else HumanMessage("", additional_kwargs={"fallback": error})
            final = compiled.invoke({**state, "messages": [message]}, config, context=current)
            state = {}
            if final.get("finished"):
                break
            dialogue.append((said or "", str(final["messages"][-1].content)))
    finally:
        compiled.checkpointer.delete_thread(thread)
    return final


def _transcript(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Learner and Sophia turns by round; Sophia's carry the turn's move, the Critic's loops, and whether
    the reply is a fallback (the cap's, or the safe question when her Interlocutor did not answer) rather than
    a draft of hers; the learner's whether it said nothing because its call failed."""
    turns = state.get("turn_log", [])
    transcript = []
    for i, message in enumerate(state.get("messages", [])):
        turn = {
            "round": i // 2 + 1,
            "role": "participant" if message.type == "human" else "system",
            "speaker": "learner" if message.type == "human" else "sophia",
            "text": str(message.content),
        }
        if message.type == "human":  # a learner whose call failed (after a retry) said nothing
            turn["fallback"] = bool(message.additional_kwargs.get("fallback"))
        if message.type != "human" and i // 2 < len(turns):
            entry = turns[i // 2]
            turn |= {"move": entry["move"], "critic_loops": entry["critic_loops"], "fallback": entry["fallback"]}
        transcript.append(turn)
    return transcript


def outcome(state: dict[str, Any], params: MaieuticParams, scenario: dict[str, Any] | None = None) -> EpisodeOutcome:
    """How the dialogue ended (``moves.ENDINGS``: synthesis, aporia or gave_up when Sophia synthesised,
    else ``max_turns``).

    The record keeps what every headline metric is computed from: ``per_round`` (one entry per learner
    turn: move, Critic summary, retrieval, whether the thesis was revised or circled), the transcript
    (Sophia's turns carry their move), and the artifacts ``critic.json`` (each tutor turn's drafts with
    every check's result and the Critic's decision, and the delivered reply's checks), ``retrievals.json``
    (each search: turn, query, best similarity, passages over the floor with their similarities) and
    ``thesis_evolution.md``.
    """
    turns = state.get("turn_log", [])
    loops = [t["critic_loops"] for t in turns if t["move"] != "SYNTHESIZE"]
    retrievals = state.get("retrievals", [])
    return EpisodeOutcome(
        termination=state["ending"] if state.get("finished") else TerminationReason.MAX_TURNS,
        metrics={
            "rounds": len(turns),
            "depth": sum(bool(t.get("revised")) for t in turns),
            "critic_loops": statistics.fmean(loops) if loops else math.nan,
            "critic_loops_max": max(loops) if loops else math.nan,
            "good_will_overrides": state.get("good_will_overrides", 0),
            "circles": state.get("circle_count", 0),
            "frustration_final": state.get("frustration_level", 0.0),
            "retrievals": len(retrievals),
            "documents": len(state.get("documents", [])),
        },
        per_round=turns,
        transcript=_transcript(state),
        artifacts={
            "synthesis.md": state.get("synthesis", ""),
            "critic.json": json.dumps(state.get("critic_log", []), sort_keys=True),
            "retrievals.json": json.dumps(retrievals, sort_keys=True),
            "thesis_evolution.md": "\n".join(f"{i}. {t}" for i, t in enumerate(state.get("thesis_evolution", []), 1)),
        },
    )


def prepare_scenario(scenario: dict[str, Any], root: Path) -> dict[str, Any]:
    """Checks the keys and resolves the topic and persona from ``root`` (datasets/maieutic)."""
    for key in ("name", "topic", "persona"):
        if not isinstance(scenario.get(key), str):
            raise ConfigError(f"missing or malformed key {key!r} (expected str)")
    resolved = dict(scenario)
    for key, file, section in (("topic", "topics.yaml", "topics"), ("persona", "personas.yaml", "personas")):
        known = {item["id"]: item for item in read_yaml(root / file)[section]}
        if scenario[key] not in known:
            raise ConfigError(f"{key} {scenario[key]!r} is not in {file}; valid choices: {', '.join(known)}")
        resolved[f"{key}_spec"] = known[scenario[key]]
    resolved["canon"] = canon(root / "canon.yaml")
    return resolved


@lru_cache(maxsize=4)
def _canon(path: str, mtime: float) -> tuple[Any, ...]:
    return tuple(read_yaml(Path(path))["passages"])


def canon(path: Path) -> list[dict[str, Any]]:
    """The canon's passages, parsed once per process."""
    return list(_canon(str(path), path.stat().st_mtime))
