"""Tribunal nodes: detective and judicial layers, ChiefJustice, ErrorHandler, ReportGenerator."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from dialectica.graph import response_format, retry
from dialectica.graphs.tribunal import rules
from dialectica.graphs.tribunal.bench import judge_prompt, opinions_schema, read_opinions, reply_tokens
from dialectica.graphs.tribunal.deadline import run_with_deadline
from dialectica.graphs.tribunal.params import TribunalParams
from dialectica.graphs.tribunal.report import render_report
from dialectica.graphs.tribunal.state import Evidence, Finding, TribunalState

Collector = Callable[[], list[Finding]]
COLLECTORS = ("repo_investigator", "doc_analyst", "runtime_prober")  # the seed's detective layer


@dataclass
class TribunalDeps:
    """Evidence collectors (tools) by name and a chat model per judge."""

    collectors: dict[str, Collector]
    judges: dict[str, BaseChatModel]


class TribunalNodes:
    def __init__(self, deps: TribunalDeps, params: TribunalParams) -> None:
        self.deps = deps
        self.p = params

    # --- detective layer -----------------------------------------------------
    def detective_dispatch(self, state: TribunalState) -> dict[str, Any]:
        return {"detective_started": time.perf_counter()}

    def collect(self, name: str, state: TribunalState) -> dict[str, Any]:
        """Collector ``name``'s branch of the detective layer, held to the layer's deadline."""
        status, value, seconds = run_with_deadline(self.deps.collectors[name], self.p.layer_timeout_s)
        timing = {"layer": "detective", "branch": name, "seconds": seconds, "timed_out": status == "timeout"}
        if status == "error":
            return {
                "errors": [{"layer": "detective", "branch": name, "error": f"{type(value).__name__}: {value}"}],
                "branch_timings": [timing],
            }
        if status == "timeout":
            missing = Evidence(
                id=f"{name}-timeout",
                collector=name,
                criterion="",
                goal="collect evidence",
                found=False,
                content=f"{name} ran past its {self.p.layer_timeout_s} s deadline",
                location="",
                confidence=0.0,
                tags=["timeout"],
            )
            return {"evidence": [missing], "branch_timings": [timing]}
        findings: list[Finding] = value  # status "ok": what the collector returned
        return {"evidence": [Evidence(collector=name, **item) for item in findings], "branch_timings": [timing]}

    def evidence_aggregator(self, state: TribunalState) -> dict[str, Any]:
        wall = time.perf_counter() - state["detective_started"]
        return {"layer_timings": [{"layer": "detective", "round": 0, "wall_seconds": wall}]}

    def route_after_detectives(self, state: TribunalState) -> str:
        return "error" if state.get("errors") else "judge"

    # --- judicial layer --------------------------------------------------------
    def judicial_dispatch(self, state: TribunalState) -> dict[str, Any]:
        return {"judicial_started": time.perf_counter(), "evaluation_round": state.get("evaluation_round", 0) + 1}

    def deliberate(self, name: str, state: TribunalState) -> dict[str, Any]:
        """Judge ``name``'s branch of the judicial layer, held to the layer's deadline."""
        round_num = state["evaluation_round"]
        messages = judge_prompt(
            name,
            state["subject"],
            state["criteria"],
            [e for e in state.get("evidence", []) if e["criterion"]],
            state.get("chief_feedback", ""),
        )
        schema, cap = response_format(opinions_schema(state["criteria"])), reply_tokens(state["criteria"])
        # One retry within the layer's deadline; a judge whose calls both fail sends the case to the ErrorHandler.
        judge = self.deps.judges[name]
        status, value, seconds = run_with_deadline(
            lambda: retry(lambda: judge.invoke(messages, response_format=schema, max_tokens=cap)), self.p.layer_timeout_s
        )
        timing = {
            "layer": "judicial",
            "branch": name,
            "seconds": seconds,
            "timed_out": status == "timeout",
            "round": round_num,
        }
        if status == "error":
            return {
                "errors": [{"layer": "judicial", "branch": name, "error": f"{type(value).__name__}: {value}"}],
                "branch_timings": [timing],
            }
        text = str(value.content) if status == "ok" else ""
        return {"opinions": read_opinions(text, name, round_num, state["criteria"]), "branch_timings": [timing]}

    def chief_justice(self, state: TribunalState) -> dict[str, Any]:
        round_num = state["evaluation_round"]
        timing = {"layer": "judicial", "round": round_num, "wall_seconds": time.perf_counter() - state["judicial_started"]}
        if state.get("errors"):
            return {"layer_timings": [timing], "route": "error"}
        evidence = {e["id"]: e for e in state.get("evidence", [])}
        current = [o for o in state.get("opinions", []) if o["round"] == round_num]
        verdicts, trace = [], []
        for criterion in state["criteria"]:
            verdict, applied = rules.judge_criterion(
                criterion, [o for o in current if o["criterion"] == criterion["id"]], evidence, self.p
            )
            verdicts.append(verdict)
            trace += [t | {"round": round_num} for t in applied]
        decision = rules.decide(verdicts, state.get("reevaluations", 0), self.p)
        unsettled = rules.contested(verdicts)
        ruling = {"round": round_num, "decision": decision, "contested": unsettled, "verdicts": verdicts}
        update = {
            "layer_timings": [timing],
            "verdicts": verdicts,
            "applied_rules": trace,
            "rulings": [ruling],
            "converged": not unsettled,
        }
        if decision == "reevaluate":
            feedback = (
                f"re-examine {', '.join(unsettled)}: the bench disagreed by more than "
                f"{self.p.dispersion_threshold} points or too few of you scored them; "
                "weigh the cited evidence, not your brief."
            )
            return update | {
                "route": "reevaluate",
                "reevaluations": state.get("reevaluations", 0) + 1,
                "chief_feedback": feedback,
            }
        return update | {"route": "report"}

    def route_after_chief(self, state: TribunalState) -> str:
        return state["route"]

    # --- endings -------------------------------------------------------------
    def error_handler(self, state: TribunalState) -> dict[str, Any]:
        return {"report": render_report(state, partial=True), "partial": True}

    def report_generator(self, state: TribunalState) -> dict[str, Any]:
        return {"report": render_report(state, partial=False), "partial": False}
