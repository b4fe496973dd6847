"""A graph's summary holds what applies to it: its own endings, the table columns some graph has, and models of
a graph used as it is named by the node that called them."""

from __future__ import annotations

from uuid import uuid4

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult

from dialectica.metrics.summary import termination
from dialectica.sim.engine.batch import format_table
from dialectica.sim.engine.meter import EpisodeMeter


def test_a_graph_that_declares_its_endings_counts_those_and_errors_only():
    records = [{"termination_reason": r} for r in ("served", "served", "user_stopped", "error", "strange")]
    shares = termination(["served", "user_stopped", "max_turns"])(records)
    assert shares == {
        "termination/served": 0.4,
        "termination/user_stopped": 0.2,
        "termination/max_turns": 0.0,  # declared: a column even when no episode ended so
        "termination/error": 0.2,
        "termination/strange": 0.2,  # undeclared but found: counted, never lost
    }
    assert "termination/partial_report" in termination()(records)  # no declaration: the harness's whole vocabulary


def test_the_run_table_leaves_out_metrics_no_graph_has():
    summary = {"graphs": {"desk.graph": {"metrics": {"episodes": 10, "convergence_rate": 0.5, "rounds_mean": 2.5}}}}
    header = format_table(summary).splitlines()[0].split()
    assert header == ["graph", "episodes", "convergence_rate", "rounds_mean"]
    summary["graphs"]["socratic_panel"] = {"metrics": {"episodes": 4, "depth_mean": 3.0}}
    header = format_table(summary).splitlines()[0].split()
    assert "depth_mean" in header and "rounds_mean" in header


def test_a_model_without_a_role_of_ours_is_named_by_its_node():
    meter = EpisodeMeter()
    reply = LLMResult(
        generations=[
            [
                ChatGeneration(
                    message=AIMessage("ok", usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
                )
            ]
        ]
    )
    for metadata in ({"langgraph_node": "clerk"}, {"langgraph_node": "clerk", "dialectica_role": "judge"}, {}):
        run = uuid4()
        meter.on_chat_model_start({}, [], run_id=run, metadata=metadata)
        meter.on_llm_end(reply, run_id=run)
    assert meter.summary()["calls_by_role"] == {"clerk": 1, "judge": 1, "outside": 1}
    assert meter.summary()["tokens_by_role"] == {"clerk": 5, "judge": 5, "outside": 5}
