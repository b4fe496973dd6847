"""The support bot evaluated as it is, through ``dialectica.evaluate``: outcomes, a knob, seeds, records."""

import json
from pathlib import Path

from support_bot.evaluation import customer, refunded
from support_bot.graph import graph

import dialectica

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios.yaml"


def run(tmp_path: Path, folder: str, **kwargs) -> dialectica.Evaluation:
    kwargs = {"episodes": 12, **kwargs}
    return dialectica.evaluate(
        graph,
        name="support_bot",
        scenarios=SCENARIOS,
        user=customer,
        judge=refunded,
        tracking="none",
        progress=False,
        out_dir=tmp_path / folder,
        **kwargs,
    )


def records(evaluation: dialectica.Evaluation) -> list[dict]:
    lines = (evaluation.run_dir / "episodes.jsonl").read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda r: r["episode"])


def test_a_recent_flight_is_refunded_and_an_old_one_refused_as_expected(tmp_path: Path):
    evaluation = run(tmp_path, "run")
    assert evaluation.metrics["episodes"] == 12
    assert evaluation.metrics["scenario/recent_flight/convergence_rate"] == 1.0
    assert evaluation.metrics["scenario/old_flight/convergence_rate"] == 1.0
    old = [r for r in records(evaluation) if r["scenario"] == "old_flight"]
    assert old and all(r["termination_reason"] == "converged" for r in old)
    assert all(r["artifacts"]["judge"] == "expected a refusal, the customer got a refusal" for r in old)
    assert all("not eligible" in r["transcript"][-1]["text"] for r in old)


def test_a_narrower_refund_window_refunds_fewer_customers(tmp_path: Path):
    default = run(tmp_path, "default").metrics
    narrow = run(tmp_path, "narrow", params={"refund_window_days": 1}).metrics
    key = "scenario/recent_flight/convergence_rate"
    assert narrow[key] < default[key]
    assert narrow["convergence_rate"] < default["convergence_rate"]
    assert narrow["scenario/old_flight/convergence_rate"] == default["scenario/old_flight/convergence_rate"]


def test_the_same_seed_repeats_the_run_and_another_changes_a_forgetful_customers_ending(tmp_path: Path):
    def without_timings(evaluation: dialectica.Evaluation) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "timings"} for r in records(evaluation)]

    def forgetful_endings(evaluation: dialectica.Evaluation) -> list[str]:
        return [r["termination_reason"] for r in records(evaluation) if r["scenario"] == "forgetful"]

    first, again, other = run(tmp_path, "a", seed=0), run(tmp_path, "b", seed=0), run(tmp_path, "c", seed=1)
    assert without_timings(first) == without_timings(again)
    assert forgetful_endings(first) != forgetful_endings(other)


def test_the_graphs_tool_calls_and_node_times_are_on_the_record(tmp_path: Path):
    record = next(r for r in records(run(tmp_path, "run", episodes=4)) if r["scenario"] == "recent_flight")
    calls = [t["text"] for t in record["transcript"] if t["role"] == "tool_call"]
    assert calls == ['lookup_booking({"booking": "AB1234"})', 'issue_refund({"booking": "AB1234"})']
    assert record["metrics"]["tool_calls"] == 2
    seconds = record["timings"]["node_seconds"]
    assert set(seconds) == {"assistant", "tools"} and len(seconds["tools"]) == 2
