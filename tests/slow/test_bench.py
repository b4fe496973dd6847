"""dialectica bench runs end to end on a tiny budget and writes every figure it prints."""

from __future__ import annotations

import json

from dialectica.sim.cli.bench import measure as main


def test_bench_writes_every_figure(tmp_path, capsys):
    figures = main(
        ["--episodes", "4", "--tracked-episodes", "6", "--rss-episodes", "20", "--startup-runs", "1", "--out", str(tmp_path)]
    )
    saved = json.loads((tmp_path / "latest.json").read_text())
    assert saved == json.loads(json.dumps(figures))
    for graph, values in saved["graphs"].items():
        assert values["episodes_per_second"] > 0 and values["direct_seconds"] > 0, graph
        assert values["harness_seconds"] > 0 and values["harness_overhead_ratio"] > 0, graph  # compiled once: no build
    assert saved["memory"]["episodes"] == 20 and saved["memory"]["peak_rss_mib"] > 0
    assert saved["embedding"]["throughput_ratio"] > 0
    assert 0 < saved["tracking"]["share_of_job"] < 1
    assert saved["startup_seconds"] > 0 and saved["startup_lean_seconds"] > 0
    out = capsys.readouterr().out
    assert "harness / direct invoke" in out and "start-up" in out and "peak RSS" in out


def test_bench_server_case_compares_one_at_a_time_with_several_in_flight(tmp_path, capsys):
    figures = main(["--server", "0.05", "--server-in-flight", "4", "--only-server", "--out", str(tmp_path)])["server"]
    assert figures["same_records"] is True
    assert figures["sequential_seconds"] > figures["parallel_seconds"] > 0  # waits overlap
    assert figures["throughput_ratio"] > 1
    assert figures["in_flight"] == figures["episodes"] == 4
    assert "4 in flight" in capsys.readouterr().out
