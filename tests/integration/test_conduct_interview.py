"""conduct_interview: the seed's tool as a Python function, against the shipped schemas and personas."""

from __future__ import annotations

from dialectica.graphs.interview.schema import DiscoverySchema
from dialectica.graphs.interview.tools import conduct_interview


def test_conduct_interview_fills_the_schema_and_reports_like_the_tool():
    result = conduct_interview("warm_up_with_challenges", budget=10.0, persona="pharma_packaging", seed=1)
    assert set(result) == {"ascr", "complete", "messages", "budget_left", "summary"}
    assert result["complete"] and "criteria met" in result["summary"]
    assert result["budget_left"] == 10.0 - len(result["messages"]) / 2
    assert {m["from"] for m in result["messages"]} == {"interviewer", "expert"}


def test_starting_ascr_is_kept_and_a_tiny_budget_ends_incomplete():
    seeded = {"scheduling_challenges": ["bottleneck-processes"]}
    result = conduct_interview("warm_up_with_challenges", budget=1.0, ascr=seeded, persona="bakery", seed=0)
    assert result["budget_left"] == 0.0 and len(result["messages"]) == 2
    assert not result["complete"] and "budget exhausted" in result["summary"]
    assert result["ascr"]["scheduling_challenges"][0] == "bottleneck-processes"


def test_every_persona_answers_every_schema_precisely_without_noise(tmp_path):
    import yaml

    from dialectica.sim.authoring.data import datasets_dir

    root = datasets_dir() / "interview"
    for path in (root / "personas").glob("*.yaml"):
        quiet = yaml.safe_load(path.read_text()) | {"vagueness": 0.0, "off_topic": 0.0, "contradiction": 0.0}
        (tmp_path / "interview" / "personas").mkdir(parents=True, exist_ok=True)
        (tmp_path / "interview" / "personas" / path.name).write_text(yaml.safe_dump(quiet))
    (tmp_path / "interview" / "schemas").symlink_to(root / "schemas")
    for schema_path in (root / "schemas").glob("*.yaml"):
        schema = DiscoverySchema.from_dict(yaml.safe_load(schema_path.read_text()))
        for persona in ("craft_brewery", "bakery", "machine_shop", "pharma_packaging"):
            result = conduct_interview(schema.id, budget=20.0, persona=persona, datasets=tmp_path / "interview")
            assert result["complete"], (schema.id, persona)
            truth = yaml.safe_load((root / "personas" / f"{persona}.yaml").read_text())["truth"][schema.id]
            for name, value in result["ascr"].items():
                if schema.field(name).kind in ("choice", "number"):
                    assert value == truth[name], (schema.id, persona, name)
