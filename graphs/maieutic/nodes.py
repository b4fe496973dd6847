"""Sophia's five nodes: Analyst, Librarian, Interlocutor, Critic, Synthesizer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage

from dialectica.graph import Library, attempt, retry
from dialectica.graphs.maieutic import critic, moves
from dialectica.graphs.maieutic.params import MaieuticParams
from dialectica.graphs.maieutic.prompts import interlocutor_prompt, synthesizer_prompt
from dialectica.graphs.maieutic.reading import read_learner, same_thesis
from dialectica.graphs.maieutic.state import MaieuticState


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
        turns = state.get("turn_log", [])
        depth = sum(bool(t.get("revised")) for t in turns) + (revised and bool(current))
        move = moves.choose_move(reading, frustration, circles, revised, not evolution, self.p, len(turns), depth)
        return {
            "ending": moves.ending(reading, circles, len(turns), depth, self.p) or "",
            "current_thesis": thesis,
            "thesis_evolution": [thesis] if thesis and thesis != current else [],
            "user_sentiment": reading.sentiment,
            "frustration_level": frustration,
            "socratic_move": move,
            "search_query": moves.search_query(reading, move, thesis, self.p),
            "circle_count": circles,
            "good_will_overrides": int(move == "CONCEDE"),
            "circled": circled,
            "revised": revised and bool(current),
            "critic_failures": 0,
            "critic_feedback": "",
            "critic_drafts": [],
            "turn_documents": [],
            "draft": "",
        }

    def route_after_analyst(self, state: MaieuticState) -> str:
        return moves.route_after_analyst(state["socratic_move"], state.get("search_query", ""))

    def librarian(self, state: MaieuticState) -> dict[str, Any]:
        hits, best = self.deps.library.search(state["search_query"], self.p.similarity_floor, self.p.top_k)
        known = {d["id"] for d in state.get("documents", [])}
        record = {
            "round": len(state.get("turn_log", [])) + 1,
            "query": state["search_query"],
            "hits": len(hits),
            "best_similarity": best,
            "hit_similarity_mean": sum(h["similarity"] for h in hits) / len(hits) if hits else None,
            "passages": [{k: h.get(k) for k in ("id", "work", "similarity", "text")} for h in hits],
        }
        return {"turn_documents": hits, "documents": [h for h in hits if h["id"] not in known], "retrievals": [record]}

    def interlocutor(self, state: MaieuticState) -> dict[str, Any]:
        messages = interlocutor_prompt(
            move=state["socratic_move"],
            thesis=state.get("current_thesis", ""),
            documents=state.get("turn_documents", []),
            feedback=state.get("critic_feedback", ""),
            limit=self.p.interlocutor_max_sentences,
            history=state["messages"],
        )
        # One retry; when the Interlocutor still does not answer, the Critic delivers the plain safe question.
        draft, _, error = attempt(lambda: str(self.deps.interlocutor.invoke(messages).content).strip())
        return {"draft": draft or "", "interlocutor_error": error or ""}

    def critic(self, state: MaieuticState) -> dict[str, Any]:
        """Checks the draft; sends it back with an instruction, or delivers it (at the cap, as ``at_cap`` says).

        Every verdict is kept (``critic_drafts``) and the turn's are logged when the turn closes, so that
        the record holds what the Critic decided about each draft.
        """
        if state.get("interlocutor_error"):  # no draft came: Sophia asks the plain safe question (a fallback)
            return self._close(
                state, self._fallback(state), state.get("critic_drafts", []), True, unavailable=state["interlocutor_error"]
            )
        draft = state.get("draft", "")
        checks = critic.verdict(draft, bool(state.get("turn_documents")), self.p.critic_max_sentences)
        failed = [name for name, result in checks.items() if result == critic.FAILED]
        failures = state.get("critic_failures", 0) + bool(failed)
        decision = "pass" if not failed else "cap" if failures >= self.p.critic_cap else "revise"
        drafts = [
            *state.get("critic_drafts", []),
            {
                "draft": len(state.get("critic_drafts", [])) + 1,
                "text": draft,
                "checks": checks,
                "sent_back": decision == "revise",
                "loops": failures,
                "verdict": decision,
            },
        ]
        if decision == "revise":
            return {
                "critic_failures": failures,
                "critic_feedback": critic.instruction(failed),
                "critic_verdict": "revise",
                "critic_drafts": drafts,
            }
        fallback = decision == "cap" and self.p.at_cap == "fallback"
        return self._close(state, self._fallback(state) if fallback else draft, drafts, fallback)

    def _fallback(self, state: MaieuticState) -> str:
        return f"Let us slow down. What do you mean when you say that {state.get('current_thesis') or 'this'}?"

    def _close(
        self, state: MaieuticState, text: str, drafts: list[dict[str, Any]], fallback: bool, unavailable: str = ""
    ) -> dict[str, Any]:
        """Ends the tutor's turn with ``text``; ``unavailable`` is why the Interlocutor gave no draft, if so (the
        turn's verdict is then ``unavailable``, and its first draft, if it had none, did not pass)."""
        documents = state.get("turn_documents", [])
        delivered = critic.verdict(text, bool(documents), self.p.critic_max_sentences)
        retrieval = state["retrievals"][-1] if state.get("search_query") and state.get("retrievals") else {}
        turn = len(state.get("turn_log", [])) + 1
        last = drafts[-1] if drafts else {"loops": state.get("critic_failures", 0), "verdict": "unavailable"}
        verdict = "unavailable" if unavailable else last["verdict"]
        entry = {
            "round": turn,
            "move": state["socratic_move"],
            "critic_loops": last["loops"],
            "drafts": len(drafts),
            "first_draft_ok": bool(drafts) and critic.FAILED not in drafts[0]["checks"].values(),
            "delivered_ok": critic.FAILED not in delivered.values(),
            "cap_reached": last["verdict"] == "cap",
            "fallback": fallback,
            "circled": state.get("circled", False),
            "revised": state.get("revised", False),
            "retrieved": bool(state.get("search_query")),
            "hits": len(documents),
            "frustration": state.get("frustration_level", 0.0),
            "best_similarity": retrieval.get("best_similarity"),
            "hit_similarity_mean": retrieval.get("hit_similarity_mean"),
            **{f"failed/{check}": sum(d["checks"][check] == critic.FAILED for d in drafts) for check in critic.CHECKS},
        }
        shipped: dict[str, Any] = {"checks": delivered, "fallback": fallback}
        if unavailable:
            shipped["unavailable"] = unavailable
        log = {
            "turn": turn,
            "move": state["socratic_move"],
            "documents": [d["id"] for d in documents],
            "drafts": drafts,
            "delivered": shipped,
        }
        return {
            "messages": [AIMessage(text)],
            "critic_verdict": verdict,
            "critic_failures": last["loops"],
            "turn_log": [entry],
            "critic_log": [log],
            "critic_drafts": [],
        }

    def route_after_critic(self, state: MaieuticState) -> str:
        return moves.route_after_critic(state["critic_verdict"])

    def synthesizer(self, state: MaieuticState) -> dict[str, Any]:
        thesis = state.get("current_thesis") or state.get("topic", "")
        analogies = self.deps.library.analogies(thesis, state.get("topic", ""))
        documents = state.get("documents", [])
        readings = list({d["work"]: d for d in documents}.values())[:3] or self.deps.library.readings(state.get("topic", ""))
        messages = synthesizer_prompt(
            evolution=state.get("thesis_evolution", []), analogies=analogies[:1], readings=readings[:3]
        )
        # One retry; a Synthesizer who still does not answer ends the episode (an error record).
        text = retry(lambda: str(self.deps.synthesizer.invoke(messages).content).strip())
        # The synthesis is not the Critic's: no drafts; "delivered_ok" here means it ends without a question.
        entry = {
            "round": len(state.get("turn_log", [])) + 1,
            "move": "SYNTHESIZE",
            "critic_loops": 0,
            "drafts": 0,
            "first_draft_ok": True,
            "delivered_ok": not critic.ends_with_question(text),
            "cap_reached": False,
            "fallback": False,
            "circled": state.get("circled", False),
            "revised": state.get("revised", False),
            "retrieved": False,
            "hits": 0,
            "frustration": state.get("frustration_level", 0.0),
        }
        return {"messages": [AIMessage(text)], "synthesis": text, "finished": True, "turn_log": [entry]}
