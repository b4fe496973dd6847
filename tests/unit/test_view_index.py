"""A graph's index over all its episodes, and ``dialectica view --episode``: every episode listed, exactly those
with a page linked, sort and filter controls, escaping, and a bad episode refused in one line."""

from __future__ import annotations

import copy
import json
import re

import pytest

from dialectica.sim.cli.main import dispatch
from dialectica.sim.config.view import ViewOptions
from dialectica.sim.records import SlimRecords, slim
from dialectica.sim.view.write import write_graph_pages

SCENARIOS = ("bakery", "brewery", "bakery", "mill", "brewery")


def _episodes(record: dict, n: int = 5) -> list[dict]:
    out = []
    for i in range(n):
        r = copy.deepcopy(record)
        r["episode"], r["scenario"] = i, SCENARIOS[i % len(SCENARIOS)]
        r["termination_reason"] = "converged" if i % 2 else "budget_exhausted"
        r["metrics"] = {**r["metrics"], "ascr_recall": i / 10, "depth": i}
        out.append(r)
    return out


def _rows(html: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(0) for m in re.finditer(r'<tr id="e-(\d+)".*?</tr>', html)}


def test_the_index_lists_every_episode_and_links_exactly_those_with_pages(interview_record, tmp_path):
    records = _episodes(interview_record)
    slims = SlimRecords()
    for r in reversed(records):  # completion order need not be episode order
        slims.add(slim(r))
    fetched = []

    def full(episodes: set[int]) -> dict[int, dict]:
        fetched.append(episodes)
        return {r["episode"]: r for r in records if r["episode"] in episodes}

    view = tmp_path / "interview" / "view"
    files = write_graph_pages(slims, view, ViewOptions(first=0, errors=0), full=full, episodes={1, 3})
    assert [f.name for f in files] == ["index.html", "episode_1.html", "episode_3.html"] and fetched == [{1, 3}]
    html = files[0].read_text()
    rows = _rows(html)
    assert list(rows) == [0, 1, 2, 3, 4]  # every episode, in episode order
    assert 'data-episodes="5"' in html and 'data-pages="2"' in html
    linked = {e for e, row in rows.items() if f'href="episode_{e}.html"' in row}
    assert linked == {1, 3} and "asked for" in rows[1]
    for e in (0, 2, 4):  # the run is the folder above <graph>/view
        assert f"<code>dialectica view {tmp_path} --graph interview --episode {e}</code>" in rows[e]
    # the graph's page metric, its headline metrics and convergence, each cell with its exact value to sort by
    assert '<td class="num" data-v="0.4">0.4</td>' in rows[4] and '<td class="num" data-v="1.0">yes</td>' in rows[3]
    for column in ("ascr_recall", "depth", "converged", "rounds", "seconds", "scenario", "ended"):
        assert re.search(rf'<th data-sort="\w+"[^>]*>{column}</th>', html)


def test_pages_written_before_stay_linked_and_the_default_metric_is_not_ranked_for_asked_episodes(
    interview_record, tmp_path
):
    records = _episodes(interview_record)
    write_graph_pages(records, tmp_path / "view", ViewOptions(first=1, errors=0))  # episode 0, best 4, worst 0
    files = write_graph_pages(records, tmp_path / "view", ViewOptions(first=0, errors=0), episodes={2})
    assert [f.name for f in files] == ["index.html", "episode_2.html"]
    rows = _rows(files[0].read_text())
    assert {e for e, row in rows.items() if f'href="episode_{e}.html"' in row} == {0, 2, 4}
    assert "best by" not in rows[4] and "asked for" in rows[2]


def test_sort_and_filter_controls_are_there_and_the_table_reads_without_them(interview_record, tmp_path):
    html = write_graph_pages(_episodes(interview_record), tmp_path / "view", ViewOptions())[0].read_text()
    scenario = re.search(r'<select id="f-scenario">.*?</select>', html).group(0)
    assert re.findall(r"<option[^>]*>([^<]*)</option>", scenario) == ["all (5)", "bakery (2)", "brewery (2)", "mill (1)"]
    assert re.findall(r"<option[^>]*>([^<]*)</option>", re.search(r'<select id="f-reason">.*?</select>', html).group(0)) == [
        "all (5)",
        "budget_exhausted (3)",
        "converged (2)",
    ]
    # filtering is CSS, one rule per choice, so it works with scripts blocked; rows carry the choices' classes
    assert "#index:has(#f-scenario option.fs-2:checked) #episodes tbody tr:not(.fs-2) { display: none; }" in html
    assert 'class="fs-2 fr-0"' in _rows(html)[3] or 'class="fs-2 fr-1"' in _rows(html)[3]
    # sorting is the one inline script; without it the headings are text and the episode column says the order
    assert html.count("<script>") == 1 and '<th data-sort="num" aria-sort="ascending">episode</th>' in html
    assert "<noscript>" in html and "http://" not in html and "https://" not in html


def test_hostile_text_in_scenarios_reasons_and_metrics_is_escaped(interview_record, tmp_path):
    records = _episodes(interview_record, 2)
    records[0]["scenario"] = '"><script>alert(1)</script>'
    records[1]["termination_reason"] = "<img src=x onerror=alert(1)>"
    records[1]["metrics"]["ascr_recall"] = "<b>bold</b>"
    html = write_graph_pages(
        records, tmp_path / "view", ViewOptions(first=0, errors=0), remake="dialectica view '<i>run</i>' --graph interview"
    )[0].read_text()
    assert html.count("<script") == 1 and "<img src=x" not in html and "<b>bold" not in html and "<i>run" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'data-scenario="&quot;&gt;&lt;script&gt;' in html


@pytest.fixture
def run_dir(tmp_path, interview_record, panel_record):
    run = tmp_path / "run"
    for graph in ("interview", "socratic_panel"):  # a run's graph folders
        (run / graph).mkdir(parents=True)
    lines = [json.dumps(r) for r in (*_episodes(interview_record, 4), *_episodes(panel_record, 4))]
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    return run


def _pages(folder) -> set[str]:
    return {p.name for p in folder.glob("episode_*.html")}


def test_episode_writes_exactly_those_pages_for_every_graph_or_one(run_dir, capsys):
    assert dispatch("view", [str(run_dir), "--episode", "1,3", "--episode", "2"]) == 0
    for graph in ("interview", "socratic_panel"):
        assert _pages(run_dir / graph / "view") == {"episode_1.html", "episode_2.html", "episode_3.html"}
        assert 'data-episodes="4"' in (run_dir / graph / "view" / "index.html").read_text()
    assert "interview: 3 episode pages in" in capsys.readouterr().out
    assert dispatch("view", [str(run_dir), "--episode", "0", "--graph", "interview", "--first", "1"]) == 0
    assert _pages(run_dir / "interview" / "view") == {f"episode_{i}.html" for i in range(4)}
    assert _pages(run_dir / "socratic_panel" / "view") == {"episode_1.html", "episode_2.html", "episode_3.html"}
    run_index = (run_dir / "view.html").read_text()  # still links the graph left alone
    assert 'href="interview/view/index.html"' in run_index and 'href="socratic_panel/view/index.html"' in run_index


@pytest.mark.parametrize(
    "args, words",
    [
        (["--episode", "4"], "no episode 4 in interview of RUN; valid episodes: 0-3"),
        (["--episode", "1,9,-1"], "no episodes -1, 9 in interview of RUN; valid episodes: 0-3"),
        (["--episode", "x"], "--episode 'x': 'x' is not an episode index"),
        (["--graph", "nope"], "--graph nope: RUN has no such graph; its graphs: interview, socratic_panel"),
        (["--metric=-nosuch"], "--metric -nosuch: no episode has metric 'nosuch'; valid: "),
    ],
)
def test_a_bad_episode_or_graph_is_one_line_exit_2_and_writes_nothing(run_dir, capsys, args, words):
    code = dispatch("view", [str(run_dir), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("dialectica: error: ") and err.count("\n") == 1
    assert words.replace("RUN", str(run_dir)) in err
    assert not (run_dir / "interview" / "view").exists() and not (run_dir / "view.html").exists()


def test_a_native_graph_the_run_named_by_import_string_is_loaded_for_its_pages(tmp_path, monkeypatch):
    from pathlib import Path

    from dialectica.sim.config import discovery
    from dialectica.sim.view.source import _load_named_graphs

    monkeypatch.setattr(discovery, "_REGISTERED", {})  # this process has not loaded it yet
    package = Path(__file__).resolve().parents[2] / "examples" / "custom_graph" / "src" / "haggle"
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"overrides": [f"graph={package}:SPEC", "episodes=2"]}))
    _load_named_graphs(summary)
    assert discovery.load("haggle").name == "haggle"  # its view and endings found by the name its records carry
    summary.write_text(json.dumps({"overrides": ["graph=no_such_module:SPEC"]}))
    _load_named_graphs(summary)  # one that no longer imports: the generic view, no error


def test_a_page_metric_no_episode_has_is_warned_of_with_the_valid_names(interview_record, tmp_path, caplog):
    write_graph_pages(_episodes(interview_record), tmp_path / "view", ViewOptions(first=1, metric="dpeth"))
    (warning,) = [r.getMessage() for r in caplog.records if "view.metric" in r.getMessage()]
    assert "view.metric=dpeth: no episode of interview has that metric" in warning and "depth" in warning
