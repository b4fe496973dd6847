"""``dialectica compare RUN_A RUN_B`` on hand-made run directories: metrics side by side, verdicts paired over
the episodes both runs played, and one line for what is not a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dialectica.metrics.paired import compare
from dialectica.sim.analysis.compare_runs import compare_runs
from dialectica.sim.cli.main import dispatch


def _run(path: Path, outcomes: dict[int, bool], graph: str = "g", metrics: dict | None = None) -> Path:
    """A run directory of ``graph`` whose episode of seed s converged as ``outcomes[s]`` (scenario ``s``)."""
    path.mkdir()
    records = [
        {
            "graph": graph,
            "episode": i,
            "seed": seed,
            "scenario": "s",
            "converged": ok,
            "termination_reason": "converged" if ok else "user_stopped",
            "metrics": {"judge_passed": float(ok)},
        }
        for i, (seed, ok) in enumerate(outcomes.items())
    ]
    (path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    rate = sum(outcomes.values()) / len(outcomes)
    given = {"episodes": len(outcomes), "convergence_rate": rate, "convergence_rate_ci95_low": 0.0} | (metrics or {})
    (path / "summary.json").write_text(json.dumps({"graphs": {graph: {"metrics": given}}}))
    return path


A = {seed: seed % 2 == 0 for seed in range(12)}
B = {seed: seed % 3 != 2 for seed in range(4, 16)}  # seeds 4..11 are A's too


def test_verdicts_are_paired_over_the_episodes_both_runs_played(tmp_path: Path):
    (c,), alone = compare_runs(_run(tmp_path / "a", A), _run(tmp_path / "b", B))
    shared = sorted(A.keys() & B.keys())
    assert alone == [] and c.matched == len(shared) and (c.episodes_a, c.episodes_b) == (len(A), len(B))
    expected = compare({(s, "s"): B[s] for s in shared}, {(s, "s"): A[s] for s in shared})
    row = next(v for v in c.verdicts if v.verdict == "converged")
    assert row.test == "mcnemar" and (row.diff, row.low, row.high, row.p) == (
        expected.diff,
        expected.low,
        expected.high,
        expected.p,
    )
    assert row.rate_a == sum(A[s] for s in shared) / len(shared) and row.rate_b == sum(B[s] for s in shared) / len(shared)
    assert {v.verdict for v in c.verdicts} == {"converged", "judge"}


def test_runs_of_other_seeds_are_compared_unpaired(tmp_path: Path, capsys):
    other = {seed + 100: ok for seed, ok in A.items()}
    (c,), _ = compare_runs(_run(tmp_path / "a", A), _run(tmp_path / "b", other))
    assert c.matched == 0 and {v.test for v in c.verdicts} == {"fisher"}
    assert dispatch("compare", [str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert "no episodes matched by seed and scenario" in capsys.readouterr().out


def test_every_metric_side_by_side_with_its_difference(tmp_path: Path, capsys):
    a = _run(tmp_path / "a", A, metrics={"rounds_mean": 2.0, "only_a": 1.0})
    b = _run(tmp_path / "b", B, metrics={"rounds_mean": 3.5})
    assert dispatch("compare", [str(a), str(b)]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert rows["rounds_mean"] == ["2", "3.5", "1.5"]
    assert rows["only_a"] == ["1", "-", "-"]
    assert "convergence_rate_ci95_low" not in rows  # an interval is not a metric of its own


def test_one_graph_each_under_other_names_is_compared_with_each_other(tmp_path: Path, capsys):
    a, b = _run(tmp_path / "a", A, graph="bot.v1"), _run(tmp_path / "b", B, graph="bot.v2")
    assert dispatch("compare", [str(a), str(b)]) == 0
    assert "== bot.v1 (A) vs bot.v2 (B)" in capsys.readouterr().out


def test_graphs_in_one_run_only_are_named(tmp_path: Path):
    a = _run(tmp_path / "a", A)
    b = _run(tmp_path / "b", B)
    summary = json.loads((b / "summary.json").read_text())
    summary["graphs"]["h"] = summary["graphs"]["g"]
    (b / "summary.json").write_text(json.dumps(summary))
    comparisons, alone = compare_runs(a, b)
    assert [c.graph_a for c in comparisons] == ["g"] and alone == [f"== h: only in {b}"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["{a}", "{tmp}/empty"], "empty: not a finished run directory"),
        (["{a}", "{tmp}/nowhere"], "nowhere: no such run directory"),
        (["{a}"], "takes two run directories and nothing else"),
        (["{a}", "{a}", "episodes=3"], "takes two run directories and nothing else"),
        (["{a}", "{a}", "--update"], "--update is for the suite against its baselines"),
        (["{a}", "{a}", "--graphs", "nope"], "--graphs nope: in neither run; valid choices: g"),
        (["interview"], "'interview' is neither a run directory nor a key=value override; to run the suite for it: "),
        (["--graphs", "nowhere:graph"], "cannot import nowhere (for nowhere:graph)"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys, args: list[str], fragment: str):
    (tmp_path / "empty").mkdir()
    a = _run(tmp_path / "a", A)
    assert dispatch("compare", [arg.format(a=a, tmp=tmp_path) for arg in args]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err, err


def test_a_baseline_of_no_graph_found_here_says_how_to_name_it(tmp_path: Path, capsys):
    (tmp_path / "mybot.graph.json").write_text(json.dumps({"episodes": 1}))
    assert dispatch("compare", ["--baselines", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no graph named 'mybot.graph' here" in err and "--graphs package.module:attr" in err


def test_decided_at_counts_pairs_in_the_order_the_episodes_were_played(tmp_path: Path):
    import numpy as np

    from dialectica.metrics.sequential import first_decided

    seeds = [1000 - 7 * i for i in range(60)]  # episode i's seed, here falling with i
    a = {s: True for s in seeds}
    b = {s: i < 30 for i, s in enumerate(seeds)}  # the runs differ only on the episodes played last
    (c,), _ = compare_runs(_run(tmp_path / "a", a), _run(tmp_path / "b", b))
    row = next(v for v in c.verdicts if v.verdict == "converged")
    played = first_decided(np.array(list(b.values())), np.array(list(a.values())), 0.05)
    assert played is not None and row.decided_at == played
    assert played != first_decided(np.array(list(b.values()))[::-1], np.array(list(a.values()))[::-1], 0.05)
