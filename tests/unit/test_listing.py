"""``dialectica list``: a graph named that does not load is bad input (exit 2), as it is for a run."""

from __future__ import annotations

from dialectica.sim.cli.listing import main


def test_listing_a_graph_that_does_not_load_exits_2_and_says_why(capsys):
    assert main(["socratic_pannel"]) == 2
    out = capsys.readouterr().out
    assert "socratic_pannel  (failed to load: unknown graph='socratic_pannel'" in out
    assert "did you mean graph=socratic_panel?" in out


def test_listing_a_graph_that_loads_exits_0(capsys):
    assert main(["graph=committee"]) == 0
    assert "failed to load" not in capsys.readouterr().out
