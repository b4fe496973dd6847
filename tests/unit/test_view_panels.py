"""Each graph's own section of the episode page, from small hand-made records."""

from __future__ import annotations

import json
import re

import pytest

from dialectica.graphs.committee import panel as committee
from dialectica.graphs.interview import panel as interview
from dialectica.graphs.maieutic import panel as maieutic
from dialectica.graphs.socratic_panel import panel as socratic_panel
from dialectica.graphs.tribunal import panel as tribunal
from dialectica.sim.config.discovery import names
from dialectica.sim.view.explain import explain
from dialectica.sim.view.page import render_page
from dialectica.sim.view.registry import GENERIC, view_for


def test_every_graph_has_a_view_and_an_unknown_graph_gets_the_generic_one():
    assert all(view_for(name).panel is not None and view_for(name).title for name in names())
    assert view_for("no_such_graph") is GENERIC and GENERIC.panel is None


def test_committee_argument_graph_has_a_dot_per_statement_and_coloured_relations(committee_record):
    html = committee.panel(committee_record)
    assert html.count("<circle") == 3
    assert html.count('<path class="opposes"') == 1 and html.count('<path class="supports"') == 1
    assert "3 statements, 2 relations, 2 members" in html and "oppose → nuanced" in html
    notes = view_for("committee").notes(committee_record)[1]
    assert "rebuttals held" in notes[0] and "no consensus" in notes[1]
    assert "no consensus after 1 rounds: consensus score 0.55" in explain(committee_record, committee._explain)


def test_tribunal_rules_trace_and_branch_timings(tribunal_record):
    assert tribunal.applied_rules(tribunal_record["artifacts"]["report.md"]) == [
        (1, "c1: security_override: a confirmed vulnerability caps the score at 1"),
        (2, "c2: fact_supremacy: the evidence outranks the defense"),
    ]
    html = tribunal.panel(tribunal_record)
    assert "Applied rules (2)" in html and "<table>" in html  # the verdicts table from the report
    assert html.count('class="bar bad"') == 1 and "speed-up 1.40×" in html
    notes = view_for("tribunal").notes(tribunal_record)
    assert any("security_override" in n for n in notes[1]) and any("fact_supremacy" in n for n in notes[2])
    assert "1 branch timeouts" in explain(tribunal_record, tribunal._explain)


def test_interview_grid_without_truth_shows_asked_fields_and_says_what_is_missing(interview_record):
    html = interview.panel(interview_record)
    assert "asked, filled" in html and "asked, wasted" in html and "truth.json" in html and "ascr_turns.json" in html
    assert 'class="match"' in html and 'class="mismatch"' not in html


def test_interview_grid_checks_each_turn_against_the_hidden_truth(interview_record):
    interview_record["artifacts"]["truth.json"] = json.dumps({"mode": "batch", "steps": ["mix", "bake"]})
    interview_record["artifacts"]["ascr_turns.json"] = json.dumps(
        [{"round": 1, "field": "mode", "scr": {"mode": "flow"}}, {"round": 2, "field": "steps", "scr": {"steps": ["mix"]}}]
    )
    html = interview.panel(interview_record)
    rows = dict(re.findall(r"<tr><th>(\w+)</th>(.*?)</tr>", html))
    assert '<td class="mismatch">flow</td>' in rows["mode"] and '<td class="match">batch</td>' in rows["mode"]
    assert '<td class="match">[&quot;mix&quot;]</td>' in rows["steps"]
    assert "[&quot;mix&quot;, &quot;bake&quot;]" in rows["steps"]
    assert "truth.json" not in html
    assert interview.agrees({"a": [1]}, {"a": [1, 2]}) and not interview.agrees(["x"], ["y"])


def test_maieutic_turns_critic_and_passages(maieutic_record):
    assert maieutic.failed_checks(maieutic_record["per_round"][1]) == {"too_long": 2}
    html = maieutic.panel(maieutic_record)
    assert "retrievals.json" in html and "friendship is goodwill" in html and "too_long ×2" in html
    maieutic_record["artifacts"]["retrievals.json"] = json.dumps(
        [
            {
                "round": 1,
                "query": "friendship",
                "best_similarity": 0.8,
                "hits": [{"id": "p1", "work": "Lysis", "similarity": 0.8, "text": "friends share"}],
            }
        ]
    )
    html = maieutic.panel(maieutic_record)
    assert "Lysis: friends share" in html and "retrievals.json" not in html
    notes = view_for("maieutic").notes(maieutic_record)
    assert "1 passage(s) above the floor" in notes[1][0] and "no passage above the floor" in notes[2][1]


def test_panel_criteria_by_round_and_the_assumption_tree_from_the_report(panel_record):
    grid = socratic_panel.criteria_grid(panel_record["per_round"])
    rows = dict(re.findall(r"<tr><td>([\w ]+)</td>(.*?)</tr>", grid))
    assert rows["depth"].count("✗") == 1 and rows["evidence"].count("✗") == 2
    html = socratic_panel.panel(panel_record)
    assert "status-validated" in html and html.count("<li>staff accept weekend shifts</li>") == 1
    assert "No evidence for staff" in html
    assert "Not converged: Depth: 1/5, Evidence: 0.20/0.85." in explain(panel_record, socratic_panel._explain)


def test_panel_assumption_tree_nests_refinements_under_what_they_refine(panel_record):
    assumptions = [
        {"id": "A1", "text": "root", "validation_status": "validated", "related_assumptions": []},
        {"id": "A2", "text": "child", "validation_status": "unproven", "related_assumptions": ["A1"]},
        {"id": "A3", "text": "grandchild", "validation_status": "invalidated", "related_assumptions": ["A2"]},
    ]
    panel_record["artifacts"]["assumptions.json"] = json.dumps(assumptions)
    html = socratic_panel.panel(panel_record)
    tree = re.search(r'<ul class="tree">.*', html, re.DOTALL).group(0)
    assert re.search(r"root.*?<ul><li>.*?child.*?<ul><li>.*?grandchild", tree, re.DOTALL)
    assert "assumptions.json" not in html


@pytest.mark.parametrize(
    "name", ["committee_record", "tribunal_record", "interview_record", "maieutic_record", "panel_record"]
)
def test_each_graph_page_renders_its_panel_without_section_errors(name, request):
    record = request.getfixturevalue(name)
    html = render_page(record)
    assert 'id="graph-panel"' in html and 'class="section-error"' not in html
