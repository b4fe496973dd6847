"""The viewer's HTML helpers and inline SVG charts: escaping, markdown without raw HTML, chart geometry."""

from __future__ import annotations

import math
import re

from dialectica.sim.view.charts import line_chart, strip, swimlane, y_range
from dialectica.sim.view.markup import Markup, esc, fmt, markdown, md_section, table, tag


def test_everything_but_markup_is_escaped_including_attributes():
    assert esc("<b>") == "&lt;b&gt;" and esc(Markup("<b>")) == "<b>"
    html = tag("p", "<script>x</script>", title='" onmouseover="evil()')
    assert "<script>" not in html and 'title="&quot; onmouseover=&quot;evil()"' in html
    assert tag("i", "", data_turn=3, class_="t") == '<i data-turn="3" class="t"></i>'


def test_table_formats_numbers_and_escapes_cells():
    html = table(["a", "b"], [[0.123456, "<x>"], [float("nan"), Markup("<em>ok</em>")]])
    assert "0.123" in html and "&lt;x&gt;" in html and "–" in html and "<em>ok</em>" in html
    assert fmt(True) == "yes" and fmt(None) == "–" and fmt([1, 0.5]) == "1, 0.5"
    assert fmt(3781.4) == "3781" and fmt(999.7) == "1000"  # a price reads as a price
    assert fmt(0.1234) == "0.123" and fmt(2.5e7) == "2.5e+07"


def test_markdown_renders_tables_but_never_raw_html():
    html = markdown("## T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script> **bold**")
    assert "<table>" in html and "<strong>bold</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_md_section_stops_at_the_next_heading_of_the_same_level():
    text = "# R\n## 1. Summary\nline a\n### sub\nline b\n## 2. Next\nline c"
    assert md_section(text, "1. Summary") == "line a\n### sub\nline b"
    assert md_section(text, "2. Next") == "line c" and md_section(text, "Missing") is None


def test_line_chart_draws_a_dot_per_value_and_breaks_the_line_at_gaps():
    svg = line_chart("x", [0.1, None, 0.5, 0.7, float("nan")])
    assert svg.count("<circle") == 3
    assert svg.count("<polyline") == 1  # the single point before the gap draws no line
    assert "nan" not in svg.lower()
    assert "no values" in line_chart("x", [None, None])


def test_constant_and_large_series_get_a_real_axis():
    assert y_range([0.2, 0.9]) == (0.0, 1.0) and y_range([5, 5]) == (0.0, 5) and y_range([3.0]) == (0.0, 3.0)
    assert y_range([-2, 4]) == (-2, 4) and y_range([0, 0]) == (0.0, 1.0)
    coords = [float(v) for v in re.findall(r'c[xy]="([-\d.]+)"', line_chart("c", [7, 7, 7]))]
    assert coords and all(math.isfinite(v) for v in coords)


def test_strip_counts_true_values_and_marks_missing_ones():
    svg = strip("flag", [True, False, None, True])
    assert "<b>2/4</b>" in svg and svg.count("cell-yes") == 2 and svg.count("cell-na") == 1


def test_swimlane_has_one_dot_per_turn_on_its_speakers_lane():
    turns = [
        {"round": 1, "speaker": "a", "text": "x"},
        {"round": 1, "speaker": "b", "text": "y"},
        {"round": 2, "speaker": "a", "text": "<z>"},
    ]
    svg = swimlane(turns)
    assert svg.count("<circle") == 3 and svg.count('class="lane"') == 2 and svg.count('class="round-sep"') == 2
    assert "&lt;z&gt;" in svg and 'href="#turn-2"' in svg
