"""examples/regression-check.yml for real: its shell steps run in order, under bash, in a copy of the
example plugin project (examples/custom_graph) with Dialectica installed from this checkout; the
committed baseline passes, and a change to the plugin's default then fails the check.

The GitHub actions (checkout, setup-python, cache, upload-artifact) are not run: the copy stands for
the checkout, a ``python`` on PATH for setup-python. The project's ``.venv`` is made before the steps,
with a ``.pth`` line that adds this environment's site-packages, so torch and the other heavy
dependencies count as installed and nothing large is downloaded; the workflow's own
``python -m venv .venv`` keeps it, and its pip commands still install Dialectica and the plugin into it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

from dialectica.sim.analysis.compare import compare

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "regression-check.yml"
EXAMPLE = ROOT / "examples" / "custom_graph"
SITE = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"


def _copy_checkout(dest: Path) -> Path:
    """This checkout's files as git sees them (tracked, and untracked but not ignored). pip builds a local
    folder in place: a copy keeps build/ and egg-info out of the shared tree, and an old build/lib out of the wheel."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _prepare_venv(project: Path) -> Path:
    """``project/.venv`` from the base interpreter, seeing this environment's packages through a ``.pth`` line."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(project / ".venv")], check=True, capture_output=True)
    site = project / ".venv" / SITE
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "test_environment_packages.pth").write_text("".join(f"import site; site.addsitedir({p!r})\n" for p in ours))
    return site


def _run_steps(steps: list[dict[str, Any]], cwd: Path, env: dict[str, str]) -> dict[str, tuple[int, str, float]]:
    """Each step with ``run:`` as GitHub runs it (``bash -e``), skipped after a failure unless ``if: always()``;
    returns (exit code, output, seconds) by step name."""
    done: dict[str, tuple[int, str, float]] = {}
    failed = False
    for step in steps:
        if "run" not in step:
            continue
        if failed and step.get("if", "").replace("${{", "").replace("}}", "").strip() != "always()":
            continue
        start = time.monotonic()
        proc = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=cwd,
            capture_output=True,
            text=True,
            env={**env, **{k: str(v) for k, v in step.get("env", {}).items()}},
            check=False,
        )
        done[step.get("name", step["run"].splitlines()[0])] = (
            proc.returncode,
            proc.stdout + proc.stderr,
            time.monotonic() - start,
        )
        failed |= proc.returncode != 0
    return done


def _junit(path: Path) -> tuple[list[str], list[str]]:
    """(test case names, failed test case names) of the haggle suite."""
    suite = ET.parse(path).getroot().find("testsuite[@name='haggle']")
    assert suite is not None
    cases = suite.findall("testcase")
    return [c.get("name", "") for c in cases], [c.get("name", "") for c in cases if c.find("failure") is not None]


def test_the_example_workflow_passes_in_a_plugin_project_then_catches_a_regression(tmp_path: Path):
    workflow = yaml.safe_load(WORKFLOW.read_text())
    job = workflow["jobs"]["regression"]
    steps = job["steps"]
    assert [s["uses"].split("@")[0] for s in steps if "uses" in s] == [
        "actions/checkout",
        "actions/setup-python",
        "actions/cache",
        "actions/upload-artifact",
    ]
    assert next(s for s in steps if "upload-artifact" in s.get("uses", ""))["with"]["path"].rstrip("/") == "regression"

    project = tmp_path / "project"
    shutil.copytree(
        EXAMPLE,
        project,
        ignore=shutil.ignore_patterns(
            "build", "*.egg-info", "__pycache__", ".venv", "results", "regression", ".pytest_cache"
        ),
    )
    assert (project / "baselines" / "haggle.json").exists()
    site = _prepare_venv(project)
    bin_dir = tmp_path / "setup-python"  # what actions/setup-python does: a Python 3.11 first on PATH
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(getattr(sys, "_base_executable", sys.executable))
    summary = tmp_path / "step-summary.md"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env |= {k: str(v) for k, v in {**workflow.get("env", {}), **job.get("env", {})}.items()}
    env |= {
        "DIALECTICA": str(_copy_checkout(tmp_path / "dialectica")),
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }

    done = _run_steps(steps, project, env)
    timings = {name: round(seconds, 1) for name, (_, _, seconds) in done.items()}
    print(f"step seconds: {timings}")
    assert len(done) == sum("run" in s for s in steps)
    for name, (code, output, _) in done.items():
        assert code == 0, f"{name}: exit {code}\n{output[-4000:]}"

    # Installed from this checkout and the project into the project's .venv; the heavy rest was already there.
    install = next(output for name, (_, output, _) in done.items() if name.startswith("Install"))
    assert f"Requirement already satisfied: torch==2.13.0 in {sysconfig.get_paths()['purelib']}" in install, install
    installed = {
        pkg.rsplit("-", 1)[0] for line in re.findall(r"^Successfully installed (.+)$", install, re.M) for pkg in line.split()
    }
    # torch 2.13 wants setuptools>=77.0.3 and a new venv has 65.5: pip takes it from the torch index (here a local mirror)
    assert {"dialectica", "dialectica-haggle"} <= installed <= {"dialectica", "dialectica-haggle", "setuptools", "wheel"}
    downloads = re.findall(r"Downloading (\S+)", install)
    assert all(re.match(r"(https?://\S+/)?(setuptools|wheel)-", d) for d in downloads), downloads
    assert not (site / "torch").exists()
    for script in ("dialectica", "dialectica-compare"):
        assert (project / ".venv" / "bin" / script).exists()
    where = subprocess.run(
        [
            str(project / ".venv" / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, dialectica.sim.analysis.compare as c, haggle; "
            "print(c.__file__); "
            "print(haggle.__file__); print(m.distribution('dialectica').locate_file(''))",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where == [
        str(site / "dialectica" / "sim" / "analysis" / "compare.py"),
        str(project / "src" / "haggle" / "__init__.py"),
        str(site),
    ]

    # The reports, the job summary, and a test case per metric of haggle.
    out = project / "regression"
    assert sorted(p.name for p in out.iterdir()) == ["comparison.json", "comparison.md", "junit.xml"]
    assert json.loads((out / "comparison.json").read_text())["regression"] is False
    names, failures = _junit(out / "junit.xml")
    baseline = json.loads((project / "baselines" / "haggle.json").read_text())
    rows = [row[0] for row in compare("haggle", baseline, baseline, {}, 0.05)]  # one per metric; intervals judge rates
    assert sorted(names) == sorted(rows) and not failures
    assert summary.read_text() == (out / "comparison.md").read_text() and "No regression." in summary.read_text()

    # A change in the plugin (its default max_rounds) without new baselines: the check fails, and says so.
    config = project / "src" / "haggle" / "graph.yaml"
    config.write_text(re.sub(r"^max_rounds: 8\b", "max_rounds: 6", config.read_text(), count=1, flags=re.M))
    assert "max_rounds: 6" in config.read_text()
    summary.unlink()
    first = next(i for i, s in enumerate(steps) if "dialectica compare" in s.get("run", ""))
    again = _run_steps(steps[first:], project, env)
    codes = {name: code for name, (code, _, _) in again.items()}
    print(f"step seconds, again: { {name: round(seconds, 1) for name, (_, _, seconds) in again.items()} }")
    assert list(codes.values()) == [1, 0], codes  # compare fails; the job summary (if: always()) still runs
    names, failures = _junit(out / "junit.xml")
    assert "convergence_rate" in failures and "rounds_mean" in failures and len(names) == len(rows)
    assert json.loads((out / "comparison.json").read_text())["regression"] is True
    assert "**Regression.**" in summary.read_text() and "`convergence_rate`" in summary.read_text()
