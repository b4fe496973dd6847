"""``dialectica compare`` for any graph the main command takes (an import string, a plugin), with baselines in a
folder of the user's project; and ``dialectica compare RUN_A RUN_B`` on two runs of ``dialectica.evaluate``."""

from __future__ import annotations

import json
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from dialectica.sim.cli.main import dispatch
from tests.integration.test_as_is import GRAPH, SCENARIOS

SUITE = ("graph.scenarios=scenarios.yaml", "graph.user=desk:visitor", "graph.judge=desk:served", "episodes=6")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "desk.py").write_text(GRAPH)
    (tmp_path / "scenarios.yaml").write_text(SCENARIOS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("target", ["desk:graph", "desk.py:graph"])
def test_an_import_string_graph_gets_a_baseline_and_is_checked_against_it(project: Path, capsys, target: str):
    assert dispatch("compare", ["--graphs", target, "--baselines", "baselines", "--update", *SUITE]) == 0
    baseline = json.loads((project / "baselines" / "desk.graph.json").read_text())
    assert baseline["graph"] == target and baseline["episodes"] == 6
    capsys.readouterr()
    assert dispatch("compare", ["--graphs", target, "--baselines", "baselines", *SUITE]) == 0
    assert dispatch("compare", ["--baselines", "baselines", *SUITE]) == 0  # the baseline names its graph
    assert capsys.readouterr().out.count("== desk.graph: 0 regression(s)") == 2
    # a more patient clerk keeps visitors talking longer: the check sees it
    assert dispatch("compare", ["--baselines", "baselines", *SUITE, "graph.patience=5"]) == 1
    assert "rounds_mean" in capsys.readouterr().out


def test_a_plugin_graph_gets_a_baseline_in_the_project(project: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    from dialectica.sim.config import discovery

    (project / "deskplug.py").write_text(
        "from dialectica.sim.adapter.app import App\nfrom desk import graph, served, visitor\n\n"
        "SPEC = App(graph, name='deskplug', user=visitor, judge=served).spec()\n"
    )
    plugin = EntryPoint(name="deskplug", value="deskplug:SPEC", group=discovery.GROUP)
    monkeypatch.setattr(discovery, "plugins", lambda: {"deskplug": plugin})
    args = ["--baselines", "baselines", "graph.scenarios=scenarios.yaml", "episodes=6"]
    assert dispatch("compare", ["--graphs", "deskplug", "--update", *args]) == 0
    assert "graph" not in json.loads((project / "baselines" / "deskplug.json").read_text())  # its name finds it
    assert dispatch("compare", args) == 0
    assert "== deskplug: 0 regression(s)" in capsys.readouterr().out


def test_two_evaluate_runs_are_compared_paired_over_their_shared_episodes(project: Path, capsys):
    from desk import graph, served, visitor  # type: ignore[import-not-found]

    import dialectica

    def run(out: str, patience: int) -> None:
        dialectica.evaluate(
            graph,
            scenarios="scenarios.yaml",
            user=visitor,
            judge=served,
            episodes=8,
            seed=3,
            params={"patience": patience},
            tracking="none",
            out_dir=out,
            progress=False,
        )

    run("a", 1)
    run("b", 3)
    assert dispatch("compare", ["a", "b"]) == 0
    out = capsys.readouterr().out
    assert "8 episodes matched by seed and scenario" in out
    converged = next(line.split() for line in out.splitlines() if line.startswith("converged "))
    assert converged[-1] == "mcnemar"
    (entry_a,), (entry_b,) = (json.loads((project / r / "summary.json").read_text())["graphs"].values() for r in "ab")
    rates = {"a": entry_a["metrics"]["convergence_rate"], "b": entry_b["metrics"]["convergence_rate"]}
    assert rates["a"] != rates["b"]  # the knob changed something to compare
    assert float(converged[3]) == pytest.approx(rates["b"] - rates["a"], abs=1e-3)
