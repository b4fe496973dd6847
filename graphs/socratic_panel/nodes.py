"""The seven nodes of the Socratic panel. Each returns a partial update."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from dialectica.graph import attempt, response_format, retry
from dialectica.graphs.socratic_panel import report, scoring
from dialectica.graphs.socratic_panel.answer import ANSWER_SCHEMA, ANSWER_TOKENS, answer_text
from dialectica.graphs.socratic_panel.params import PanelParams
from dialectica.graphs.socratic_panel.prompts import (
    EXPERT_SYSTEM,
    MODERATOR_SYSTEM,
    asked,
    dialogue,
    expert_message,
    moderator_message,
)
from dialectica.graphs.socratic_panel.reading import Reading, confidence, quality, read_answer
from dialectica.graphs.socratic_panel.state import Assumption, AssumptionKind, ExpertResponse, PanelState, QuestionRecord
from dialectica.metrics.agreement import majority, pairwise_jaccard
from dialectica.metrics.text import canonical_claim


@dataclass
class Expert:
    id: str
    name: str
    role: str


@dataclass
class PanelDeps:
    """What the panel is given: its moderator, its experts and how to wait between retries."""

    moderator: BaseChatModel
    experts: dict[str, BaseChatModel]
    roster: list[Expert]
    sleep: Callable[[float], None] = field(default=time.sleep)


def _id(prefix: str, text: str) -> str:
    return prefix + hashlib.sha1(canonical_claim(text).encode(), usedforsecurity=False).hexdigest()[:10]


def _round_responses(state: PanelState) -> list[ExpertResponse]:
    return [r for r in state.get("response_history", []) if r["round"] == state["current_round"]]


def _find(tracked: dict[str, Assumption], text: str) -> Assumption | None:
    return tracked.get(_id("A", text))


class PanelNodes:
    """Node functions closed over the panel's dependencies and thresholds."""

    def __init__(self, deps: PanelDeps, params: PanelParams) -> None:
        self.deps = deps
        self.p = params
        self.quorum = params.quorum or majority(len(deps.roster))

    # 1. formulate_question
    def formulate_question(self, state: PanelState) -> dict[str, Any]:
        round_num = state.get("current_round", 0) + 1
        qtype = scoring.select_question_type(
            round_num,
            state.get("round_quality", 0.0),
            state.get("depth_layers", 0),
            state.get("evidence_completeness", 0.0),
            state.get("agreement_level", 0.0),
            self.p,
        )
        assumptions = state.get("assumptions_identified", [])
        evidence_map = state.get("evidence_map", {})
        gaps = [a["text"] for a in assumptions if not evidence_map.get(a["id"])]
        target = report.choose_target(qtype, assumptions, evidence_map)
        message = moderator_message(
            query=state["query"],
            round_num=round_num,
            question_type=qtype,
            target=target,
            depth=state.get("depth_layers", 0),
            agreement=state.get("agreement_level", 0.0),
            evidence_gaps=gaps[:5],
        )
        turns = [(q.get("asked") or asked(q["round"], q["type"]), q["text"]) for q in state.get("question_history", [])]
        messages = dialogue(MODERATOR_SYSTEM, turns, message)
        # The moderator gets one retry; a moderator who still does not answer ends the episode (an error record).
        text = retry(
            lambda: str(self.deps.moderator.invoke(messages).content).strip(), 2, self.p.retry_backoff_s, self.deps.sleep
        )
        lowered = text.lower()
        named = next((a["id"] for a in assumptions if a["text"].lower() in lowered), None)
        record = QuestionRecord(
            round=round_num,
            type=qtype,
            text=text,
            moderator_id=state["moderator_id"],
            target_assumption=named,
            depth_level=scoring.question_depth(qtype, round_num),
            asked=message,
        )
        return {"current_round": 1, "question_history": [record]}

    # 2. collect_responses
    def _ask(self, expert: Expert, messages: list[Any]) -> tuple[str, int, str | None]:
        """One expert call with exponential backoff; returns (the text the moderator reads, attempts, last error)."""
        model, shape = self.deps.experts[expert.id], response_format(ANSWER_SCHEMA)
        text, attempts, error = attempt(
            lambda: answer_text(str(model.invoke(messages, response_format=shape, max_tokens=ANSWER_TOKENS).content)),
            self.p.expert_retries,
            self.p.retry_backoff_s,
            self.deps.sleep,
        )
        if text is None:
            return f"[Expert {expert.name} was unable to respond due to technical issues]", attempts, error
        return text, attempts, None

    def _message(self, query: str, expert: Expert, question: QuestionRecord, before: list[ExpertResponse]) -> str:
        """What ``expert`` is sent in ``question``'s round, given every response ``before`` its turn."""
        return expert_message(
            query=query,
            round_num=question["round"],
            question=question["text"],
            previous=[
                (r["expert_name"], r["response_text"])
                for r in before
                if r["round"] == question["round"] - 1 and not r["fallback"] and r["expert_name"] != expert.name
            ],
            earlier=[(r["expert_name"], r["response_text"]) for r in before if r["round"] == question["round"]],
        )

    def _turns(self, state: PanelState, expert: Expert) -> list[tuple[str, str]]:
        """``expert``'s earlier rounds as it saw them: each message it was sent and its answer (a round it did not
        answer is left out)."""
        history = state.get("response_history", [])
        questions = {q["round"]: q for q in state.get("question_history", [])}
        return [
            (self._message(state["query"], expert, questions[r["round"]], history[:i]), r["response_text"])
            for i, r in enumerate(history)
            if r["expert_id"] == expert.id and not r["fallback"] and r["round"] in questions
        ]

    def collect_responses(self, state: PanelState) -> dict[str, Any]:
        question = state["question_history"][-1]
        history = list(state.get("response_history", []))
        responses: list[ExpertResponse] = []
        errors: list[dict[str, Any]] = []
        for expert in self.deps.roster:
            messages = dialogue(
                EXPERT_SYSTEM.format(name=expert.name, role=expert.role),
                self._turns(state, expert),
                self._message(state["query"], expert, question, history + responses),
            )
            text, attempts, error = self._ask(expert, messages)
            if error:
                errors.append({"node": "collect_responses", "expert_id": expert.id, "error": error})
            reading = read_answer(text)
            responses.append(
                ExpertResponse(
                    round=question["round"],
                    expert_id=expert.id,
                    expert_name=expert.name,
                    response_text=text,
                    confidence_score=confidence(text),
                    quality_score=quality(reading),
                    claims=reading.claims,
                    assumptions_revealed=[a.text for a in reading.assumptions],
                    evidence_cited=[vars(e) for e in reading.evidence],
                    attempts=attempts,
                    fallback=error is not None,
                )
            )
        retries = sum(r["attempts"] - 1 for r in responses)
        return {"response_history": responses, "errors": errors, "retry_count": retries}

    # 3. analyze_responses
    def analyze_responses(self, state: PanelState) -> dict[str, Any]:
        current = [r for r in _round_responses(state) if not r["fallback"]]  # a fallback is not a voice
        rejections = sum(len(read_answer(r["response_text"]).rejected) for r in current)
        return {
            "round_quality": sum(r["quality_score"] for r in current) / len(current) if current else 0.0,
            "agreement_level": pairwise_jaccard([set(r["claims"]) for r in current], self.quorum),
            "voices": len(current),
            "contradictions_found": rejections,
        }

    # 4. test_assumptions
    def _track(
        self, tracked: dict[str, Assumption], changed: set[str], text: str, kind: AssumptionKind, round_num: int
    ) -> Assumption:
        found = _find(tracked, text)
        if found is None:
            found = Assumption(
                id=_id("A", text),
                text=text,
                type=kind,
                depth_layer=round_num,
                validation_status="unproven",
                evidence_strength="none",
                impact_score=0.0,
                raised_by=[],
                related_assumptions=[],
                contradictions=[],
                resolved_by=[],
                contradiction_resolved=False,
            )
        else:
            found = {
                **found,
                "raised_by": list(found["raised_by"]),
                "contradictions": list(found["contradictions"]),
                "resolved_by": list(found["resolved_by"]),
            }
        tracked[found["id"]] = found
        changed.add(found["id"])
        return found

    def _absorb(
        self,
        tracked: dict[str, Any],
        changed: set[str],
        evidence: dict[str, Any],
        expert_id: str,
        reading: Reading,
        round_num: int,
    ) -> None:
        for mention in reading.assumptions:
            item = self._track(tracked, changed, mention.text, mention.kind, round_num)
            if expert_id not in item["raised_by"]:
                item["raised_by"].append(expert_id)
            if mention.parent:
                parent = self._track(tracked, changed, mention.parent, "explicit", round_num)
                if parent["id"] not in item["related_assumptions"]:
                    item["related_assumptions"] = [*item["related_assumptions"], parent["id"]]
        for cited in reading.evidence:
            item = self._track(tracked, changed, cited.assumption, "explicit", round_num)
            evidence.setdefault(item["id"], []).append({**vars(cited), "id": _id("E", cited.text), "expert_id": expert_id})
        for text in reading.rejected:
            item = self._track(tracked, changed, text, "explicit", round_num)
            if expert_id not in item["contradictions"]:
                item["contradictions"].append(expert_id)
        for text in reading.accepted:
            item = self._track(tracked, changed, text, "explicit", round_num)
            if expert_id in item["contradictions"] and expert_id not in item["resolved_by"]:
                item["resolved_by"].append(expert_id)

    def test_assumptions(self, state: PanelState) -> dict[str, Any]:
        round_num = state["current_round"]
        tracked = {a["id"]: a for a in state.get("assumptions_identified", [])}
        changed: set[str] = set()
        new_evidence: dict[str, list[dict[str, Any]]] = {}
        for response in _round_responses(state):
            self._absorb(
                tracked, changed, new_evidence, response["expert_id"], read_answer(response["response_text"]), round_num
            )
        old_evidence = state.get("evidence_map", {})
        seen = {e["id"] for items in old_evidence.values() for e in items}
        for key, items in new_evidence.items():  # an item cited twice, in any round, counts once
            fresh = []
            for e in items:
                if e["id"] not in seen:
                    seen.add(e["id"])
                    fresh.append(e)
            new_evidence[key] = fresh
        evidence_map = {
            k: old_evidence.get(k, []) + new_evidence.get(k, []) for k in old_evidence.keys() | new_evidence.keys()
        }
        status: dict[str, list[str]] = {"validated": [], "invalidated": [], "unproven": []}
        for key, item in tracked.items():
            verdict, strength = scoring.assess_validation(evidence_map.get(key, []), self.p)
            voices = len(set(item["raised_by"]) | set(item["contradictions"]))
            impact = round(min(1.0, 0.4 + 0.15 * voices), 3)
            updated: Assumption = {
                **item,
                "validation_status": verdict,
                "evidence_strength": strength,
                "impact_score": impact,
                "contradiction_resolved": (
                    bool(item["contradictions"]) and set(item["contradictions"]) <= set(item["resolved_by"])
                ),
            }
            if updated != item:
                tracked[key] = updated
                changed.add(key)
            status[verdict].append(key)
        assumptions = list(tracked.values())
        return {
            "assumptions_identified": [tracked[key] for key in tracked if key in changed],
            "evidence_map": {k: v for k, v in new_evidence.items() if v},
            "assumptions_validated": status["validated"],
            "assumptions_invalidated": status["invalidated"],
            "assumptions_unproven": status["unproven"],
            "depth_layers": scoring.depth_layers(assumptions),
            "evidence_completeness": scoring.evidence_completeness(assumptions, evidence_map),
        }

    # 5. check_convergence
    def check_convergence(self, state: PanelState) -> dict[str, Any]:
        unresolved = len(scoring.unresolved_contradictions(state.get("assumptions_identified", [])))
        voices = state.get("voices", 0)
        converged, reason, unmet = scoring.check_convergence(
            current_round=state["current_round"],
            depth=state.get("depth_layers", 0),
            agreement=state.get("agreement_level", float("nan")),
            completeness=state.get("evidence_completeness", 0.0),
            unresolved=unresolved,
            voices=voices,
            quorum=self.quorum,
            p=self.p,
        )
        entry = {
            "round": state["current_round"],
            "question_type": state["question_history"][-1]["type"],
            "voices": voices,
            "quorum": self.quorum,
            "depth": state.get("depth_layers", 0),
            "jaccard_agreement": state.get("agreement_level", float("nan")),
            "evidence_completeness": state.get("evidence_completeness", 0.0),
            "unresolved_contradictions": unresolved,
            "assumptions": len(state.get("assumptions_identified", [])),
            "converged": converged,
            "unmet": unmet,
        }
        return {
            "convergence_achieved": converged,
            "convergence_reason": reason,
            "unmet_criteria": unmet,
            "contradictions_resolved": unresolved == 0,
            "round_log": [entry],
        }

    def should_continue(self, state: PanelState) -> str:
        return scoring.route_after_check(state["convergence_achieved"], state["current_round"], self.p.max_rounds)

    # 6. extract_insights
    def extract_insights(self, state: PanelState) -> dict[str, Any]:
        assumptions = state.get("assumptions_identified", [])
        evidence_map = state.get("evidence_map", {})
        return {
            "core_insights": report.core_insights(assumptions, evidence_map, self.p),
            "blind_spots": report.blind_spots(assumptions, evidence_map),
            "recommendations": report.recommendations(assumptions, evidence_map, self.p),
        }

    # 7. generate_report
    def generate_report(self, state: PanelState) -> dict[str, Any]:
        status = "converged" if state.get("convergence_achieved") else "max_rounds_reached"
        return {"final_report": report.render_markdown(state), "status": status}
