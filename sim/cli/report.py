"""``dialectica report SWEEP``: a sweep's notebook executed into one HTML page (``dialectica.sim.analysis.report``),
logged to the sweep's MLflow parent run."""

from __future__ import annotations

from pathlib import Path

from dialectica.sim.analysis.report import render
from dialectica.sim.cli.errors import Parser
from dialectica.sim.tracking.sweep_data import load_sweep

DESCRIPTION = "a sweep's notebook as one HTML page (SWEEP: a sweep directory or its MLflow parent run id)"


def main(argv: list[str]) -> int:
    parser = Parser(prog="dialectica report", description=DESCRIPTION)
    parser.add_argument("sweep", help="a sweep directory (hydra.sweep.dir), or its MLflow parent run id")
    parser.add_argument("--tracking-uri", help="the MLflow store holding the parent run (for a run id)")
    parser.add_argument("--out", type=Path, help="the HTML file (default: <sweep>/report.html)")
    args = parser.parse_args(argv)
    sweep = load_sweep(args.sweep, args.tracking_uri)
    out = render(sweep, args.out or sweep.directory / "report.html")
    print(f"report: {out}")
    if sweep.parent_run_id and sweep.tracking_uri:
        from mlflow.tracking import MlflowClient

        from dialectica.sim.tracking.store import RetryingClient  # lazy: start-up (ssl, http)

        RetryingClient(MlflowClient(sweep.tracking_uri)).log_artifact(sweep.parent_run_id, str(out))
        print(f"logged to MLflow run {sweep.parent_run_id} ({sweep.tracking_uri})")
    return 0
