"""A whole episode page from a record: turn count, escaping, errors in place, nothing fetched."""

from __future__ import annotations

import re
import traceback

from dialectica.sim.view.page import render_page


def _turns(html: str) -> int:
    return len(re.findall(r'<article id="turn-\d+" class="turn ', html))


def test_the_page_shows_every_turn_and_says_how_many(panel_record):
    html = render_page(panel_record, ("first",))
    assert _turns(html) == len(panel_record["transcript"]) == 2
    assert 'data-turns="2"' in html and "2 turns" in html and 'class="why">first<' in html


def test_the_page_is_self_contained(maieutic_record):
    html = render_page(maieutic_record)
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert '<link rel="stylesheet"' not in html
    assert '<link rel="icon" href="data:,">' in html  # no favicon request either


def test_model_text_is_escaped_everywhere(interview_record):
    interview_record["transcript"][0]["text"] = "<script>alert(1)</script>"
    interview_record["transcript"][0]["speaker"] = '"><img src=x onerror=alert(1)>'
    interview_record["artifacts"]["notes.md"] = "<iframe src=evil></iframe>"
    html = render_page(interview_record)
    assert "<script>alert" not in html and "<img src=x" not in html and "<iframe" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_error_record_shows_its_traceback_and_exception_line():
    try:
        {}["missing"]
    except KeyError:
        tb = traceback.format_exc()
    record = {
        "graph": "interview",
        "episode": 4,
        "termination_reason": "error",
        "metrics": {},
        "per_round": [],
        "transcript": [],
        "artifacts": {},
        "error": tb,
        "timings": {"episode_seconds": 0.1, "node_seconds": {}},
    }
    html = render_page(record)
    section = re.search(r'<section id="error">.*?</section>', html, re.DOTALL).group(0)
    assert "Traceback (most recent call last)" in section and "KeyError: &#x27;missing&#x27;" in section
    assert 'badge reason-error">error<' in html and "The episode raised an exception: KeyError" in html
    assert 'data-turns="0"' in html and "No turns." in html and 'id="graph-panel"' not in html


def test_a_section_that_cannot_be_drawn_shows_why_and_the_rest_still_renders(committee_record):
    committee_record["artifacts"]["argument_graph.json"] = "{not json"
    html = render_page(committee_record)
    assert html.count('class="section-error"') == 1 and "JSONDecodeError" in html
    assert _turns(html) == 3 and '<section id="state">' in html and '<section id="path">' in html


def test_notes_appear_inside_their_round(maieutic_record):
    html = render_page(maieutic_record)
    round2 = re.search(
        r'<div class="round" data-round="2">.*?</div>(?=<div class="round"|</section>)', html, re.DOTALL
    ).group(0)
    assert "Critic rejected 2 draft(s) before this reply: failed too_long ×2" in round2
    assert "Critic rejected" not in html.split('data-round="2"')[0]
    maieutic_record["per_round"][1]["cap_reached"] = True  # the reply shown is the last draft the Critic failed
    assert "Critic rejected 2 draft(s), this reply the last of them, released at the cap" in render_page(maieutic_record)
    maieutic_record["per_round"][1]["fallback"] = True  # at_cap=fallback: the plain question was asked instead
    assert "the cap was reached, so Sophia asked the fallback question instead" in render_page(maieutic_record)


def test_a_graph_without_a_view_gets_the_common_sections_only(panel_record):
    panel_record["graph"] = "unknown_graph"
    html = render_page(panel_record)
    assert 'id="graph-panel"' not in html and _turns(html) == 2
    assert "The round limit was reached before the criteria were met." in html


def test_a_graph_used_as_it_is_shows_its_context_and_final_state_and_a_native_graph_does_not(panel_record):
    assert 'id="final-state"' not in render_page(panel_record)  # a built-in record holds neither
    panel_record["graph"] = "shop:graph"
    panel_record["context"] = {"tone": "warm", "limit": 2}
    panel_record["final_state"] = {"paid": True, "note": "<b>x</b>" * 30, "cart": ["tea"]}
    html = render_page(panel_record)
    section = re.search(r'<section id="final-state">.*?</section>', html, re.DOTALL).group(0)
    assert '<tr><td>tone</td><td><span class="value">warm</span></td></tr>' in section
    assert '<tr><td>paid</td><td><span class="value">true</span></td></tr>' in section
    assert "<tr><td>note</td><td><details" in section and "(240 characters)" in section  # long: folded, escaped
    assert "<b>x" not in section and "&lt;b&gt;x" in section
    del panel_record["context"], panel_record["final_state"]["note"]
    assert "The graph takes no context and has no knobs." in render_page(panel_record)
