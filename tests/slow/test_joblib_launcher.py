"""The joblib launcher gives the same sweep results as the sequential one."""

from __future__ import annotations

import pandas as pd

from tests.integration.test_sweep import _sweep


def test_joblib_launcher_matches_sequential_results(tmp_path):
    _sweep(tmp_path, "seq")
    _sweep(tmp_path, "par", "hydra/launcher=joblib", "hydra.launcher.n_jobs=2")
    columns = ["graph", "config", "episodes", "converged"]
    assert pd.read_csv(tmp_path / "seq" / "comparison.csv")[columns].equals(
        pd.read_csv(tmp_path / "par" / "comparison.csv")[columns]
    )
