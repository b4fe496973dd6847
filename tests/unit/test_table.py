"""The run's closing table prints whole numbers as they are."""

from __future__ import annotations

from dialectica.sim.engine.batch import format_table


def test_whole_numbers_print_whole_and_fractions_to_three_digits():
    summary = {"graphs": {"g": {"metrics": {"episodes": 2000.0, "convergence_rate": 0.12345, "rounds_mean": 4.0}}}}
    header, row = format_table(summary).splitlines()
    cells = dict(zip(header.split(), row.split(), strict=True))
    assert cells["episodes"] == "2000" and cells["convergence_rate"] == "0.123" and cells["rounds_mean"] == "4"
    assert "depth_mean" not in cells  # no graph has it
