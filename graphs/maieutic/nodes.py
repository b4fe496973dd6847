"""Sophia's five nodes: Analyst, Librarian, Interlocutor, Critic, Synthesizer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from dialectica.graphs.maieutic import critic, moves
from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.prompts import interlocutor_prompt, synthesizer_prompt
from dialectica.graphs.maieutic.reading import read_learner, same_thesis
from dialectica.graphs.maieutic.state import MaieuticState
from dialectica.sim.retrieval import Library


@dataclass
class MaieuticDeps:
    """Sophia's voices, her library, and the learner the harness simulates."""

    interlocutor: BaseChatModel
    synthesizer: BaseChatModel
    library: Library
    learner: BaseChatModel
    question: str
    character: str


class MaieuticNodes:
    def __init__(self, deps: MaieuticDeps, params: MaieuticParams) -> None:
        self.deps = deps
        self.p = params

    def analyst(self, state: MaieuticState) -> dict[str, Any]:
        text = str(state["messages"][-1].content)
        current = state.get("current_thesis", "")
        evolution = state.get("thesis_evolution", [])
        reading = read_learner(text, current or None)
        thesis, revised, circled = current, False, False
        if reading.thesis and not (current and same_thesis(reading.thesis, current)):
            circled = any(same_thesis(reading.thesis, earlier) for earlier in evolution[:-1])
            thesis, revised = reading.thesis, not circled
        circles = state.get("circle_count", 0) + circled
        frustration = min(10.0, max(0.0, state.get("frustration_level", 0.0) + reading.frustration_delta))
        move = moves.choose_move(reading, frustration, circles, revised, not evolution, self.p)
        return {
            "current_thesis": thesis,
            "thesis_evolution": [thesis] if thesis and thesis != current else [],
            "user_sentiment": reading.sentiment,
            "frustration_level": frustration,
            "socratic_move": move,
            "search_query": moves.search_query(reading, move, thesis, self.p),
            "circle_count": circles,
            "good_will_overrides": int(move == "CONCEDE"),
            "critic_failures": 0,
            "critic_feedback": "",
            "first_draft_failed": [],
            "turn_documents": [],
            "draft": "",
        }

    def route_after_analyst(self, state: MaieuticState) -> str:
        return moves.route_after_analyst(state["socratic_move"], state.get("search_query", ""))

    def librarian(self, state: MaieuticState) -> dict[str, Any]:
        hits, best = self.deps.library.search(state["search_query"], self.p.similarity_floor, self.p.top_k)
        known = {d["id"] for d in state.get("documents", [])}
        record = {"query": state["search_query"], "hits": len(hits), "best_similarity": best,
                  "hit_similarity_mean": sum(h["similarity"] for h in hits) / len(hits) if hits else None,
                  "passages": [{k: h.get(k) for k in ("id", "work", "similarity", "text")} for h in hits]}
        return {"turn_documents": hits, "documents": [h for h in hits if h["id"] not in known], "retrievals": [record]}

    def interlocutor(self, state: MaieuticState) -> dict[str, Any]:
        messages = interlocutor_prompt(
            move=state["socratic_move"], thesis=state.get("current_thesis", ""),
            documents=state.get("turn_documents", []), feedback=state.get("critic_feedback", ""),
            limit=self.p.interlocutor_max_sentences, history=state["messages"],
        )
        return {"draft": str(self.deps.interlocutor.invoke(messages).content).strip()}

    def critic(self, state: MaieuticState) -> dict[str, Any]:
        draft = state.get("draft", "")
        failed = critic.failed_checks(draft, bool(state.get("turn_documents")), self.p.critic_max_sentences)
        failures = state.get("critic_failures", 0)
        history = [*state.get("critic_history", []), *failed]
        first = state.get("first_draft_failed") if failures else failed
        if not failed:
            return self._close(state, draft, failures, first, history, cap=False)
        failures += 1
        if failures >= self.p.critic_cap:
            text = draft if self.p.at_cap == "release" else self._fallback(state)
            return self._close(state, text, failures, first, history, cap=True)
        return {"critic_failures": failures,
                "critic_feedback": critic.instruction(failed, self.p.interlocutor_max_sentences),
                "critic_verdict": "revise", "first_draft_failed": first, "critic_history": history}

    def _fallback(self, state: MaieuticState) -> str:
        return f"Let us slow down. What do you mean when you say that {state.get('current_thesis') or 'this'}?"

    def _close(self, state: MaieuticState, text: str, failures: int, first: list[str] | None, history: list[str],
               cap: bool) -> dict[str, Any]:
        delivered = critic.failed_checks(text, bool(state.get("turn_documents")), self.p.critic_max_sentences)
        retrieval = state["retrievals"][-1] if state.get("search_query") and state.get("retrievals") else {}
        entry = {
            "round": len(state.get("turn_log", [])) + 1, "move": state["socratic_move"], "critic_loops": failures,
            "first_draft_ok": not first, "delivered_ok": not delivered, "cap_reached": cap,
            "retrieved": bool(state.get("search_query")), "hits": len(state.get("turn_documents", [])),
            "frustration": state.get("frustration_level", 0.0),
            "best_similarity": retrieval.get("best_similarity"), "hit_similarity_mean": retrieval.get("hit_similarity_mean"),
            **{f"failed/{check}": history.count(check) for check in critic.CHECKS},
        }
        return {"messages": [AIMessage(text)], "critic_verdict": "cap" if cap else "pass", "critic_failures": failures,
                "turn_log": [entry], "critic_history": []}

    def route_after_critic(self, state: MaieuticState) -> str:
        return moves.route_after_critic(state["critic_verdict"])

    def synthesizer(self, state: MaieuticState) -> dict[str, Any]:
        thesis = state.get("current_thesis") or state.get("topic", "")
        analogies = self.deps.library.analogies(thesis, state.get("topic", ""))
        documents = state.get("documents", [])
        readings = list({d["work"]: d for d in documents}.values())[:3] or self.deps.library.readings(state.get("topic", ""))
        messages = synthesizer_prompt(evolution=state.get("thesis_evolution", []), analogies=analogies[:1],
                                      readings=readings[:3])
        text = str(self.deps.synthesizer.invoke(messages).content).strip()
        entry = {"round": len(state.get("turn_log", [])) + 1, "move": "SYNTHESIZE", "critic_loops": 0,
                 "first_draft_ok": True, "delivered_ok": not critic.ends_with_question(text), "cap_reached": False,
                 "retrieved": False, "hits": 0, "frustration": state.get("frustration_level", 0.0)}
        return {"messages": [AIMessage(text)], "synthesis": text, "finished": True, "turn_log": [entry]}
