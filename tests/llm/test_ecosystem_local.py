"""An openevals LLM-as-judge evaluator on the real local model (``dialectica.chat_model()``), as the judge of a
graph used as it is. Bounded by work: 2 episodes, 2 judge calls."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "support_bot"
MODELS = f"llm.model_dir={ROOT / 'results' / 'cache' / 'models'}"


def test_an_openevals_llm_judge_on_the_local_model(tmp_path: Path, monkeypatch):
    from openevals.llm import create_llm_as_judge

    import dialectica

    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    from support_bot.evaluation import customer
    from support_bot.graph import graph

    judge = create_llm_as_judge(
        prompt="Did the assistant resolve the customer's request?\n<conversation>\n{outputs}\n</conversation>",
        judge=dialectica.chat_model([MODELS, "llm.max_tokens=64", f"llm.cache={tmp_path / 'llm.sqlite'}"]),
        feedback_key="resolved",
    )
    dialectica.evaluate(
        graph, scenarios=str(EXAMPLE / "scenarios.yaml"), user=customer, judge=judge, episodes=2, max_turns=3,
        tracking="none", progress=False, out_dir=tmp_path / "run",
    )  # fmt: skip
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert [r["termination_reason"] != "error" for r in records] == [True, True], records[0].get("error")
    for record in records:
        assert isinstance(record["converged"], bool) and record["artifacts"].get("judge")  # openevals' reasoning
