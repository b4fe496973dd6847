"""dialectica compare against the committed baselines: the code as it is passes; an injected
change of a default threshold fails with a readable table."""

from __future__ import annotations

from dialectica.sim.cli.main import dispatch


def main(argv: list[str]) -> int:
    return dispatch("compare", argv)


def test_suite_matches_committed_baselines(capsys):
    assert main([]) == 0, capsys.readouterr().out
    assert "no regression" in capsys.readouterr().out


def test_injected_regression_fails_with_a_table(capsys):
    assert main(["--graphs", "socratic_panel", "graph.convergence_threshold=0.95"]) == 1
    out = capsys.readouterr().out
    assert "REGRESSION" in out.splitlines()[-1]
    line = next(line for line in out.splitlines() if line.startswith("convergence_rate "))
    assert line.split()[-1] == "REGRESSION" and float(line.split()[2]) < float(line.split()[1])


def test_unknown_graph_is_exit_2(capsys):
    assert main(["--graphs", "nope"]) == 2
    assert "valid choices" in capsys.readouterr().err
