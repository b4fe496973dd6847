"""The wheel as a user gets it: one import name, its config and data inside, runnable from an empty folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dialectica.sim.config.discovery import builtin_names

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
    )
    return next(out.glob("dialectica-*.whl"))


def test_the_wheel_installs_one_import_name_with_conf_and_datasets(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"dialectica", f"{wheel.name.split('-py3')[0]}.dist-info"}
    for graph in builtin_names():
        assert f"dialectica/conf/graph/{graph}.yaml" in names
        assert any(n.startswith(f"dialectica/datasets/{graph}/scenarios/") for n in names)
        assert f"dialectica/graphs/{graph}/__init__.py" in names
    assert "dialectica/datasets/interview/schemas/job_shop.yaml" in names


def test_the_installed_wheel_runs_from_an_empty_folder(wheel: Path, tmp_path: Path):
    target, empty = tmp_path / "site", tmp_path / "empty"
    empty.mkdir()
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(target)}  # ahead of the editable install of the source tree
    where = subprocess.run(
        [sys.executable, "-c", "import dialectica.sim.config.resources as r; print(r.conf_dir())"],
        capture_output=True,
        text=True,
        cwd=empty,
        env=env,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(target)
    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", "graph=interview", "episodes=3", "tracking=none", "progress=false"],
        capture_output=True,
        text=True,
        cwd=empty,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(next((empty / "results" / "runs").glob("*/summary.json")).read_text())
    assert summary["graphs"]["interview"]["metrics"]["episodes"] == 3
