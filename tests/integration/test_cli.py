"""The console script end to end: outputs on disk, the run read back from MLflow (bad input: test_bad_input.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent / "dialectica"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MLFLOW_API_KEY": "do-not-log-me"}
    return subprocess.run(
        [
            str(BIN),
            f"hydra.run.dir={tmp_path / 'run'}",
            f"tracking.uri=sqlite:///{tmp_path / 'ml.db'}",
            "progress=false",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=600,
    )


@pytest.fixture(scope="module")
def panel_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    # a secret in the config (credentials in a URL; a key named like a secret is refused as unknown) and one in the
    # environment (MLFLOW_API_KEY, set by _run)
    proc = _run(tmp, "graph=socratic_panel", "episodes=6", "seed=3", "+llm.base_url=http://alice:sk-secret-value@h/v1")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp, proc


def test_outputs_and_mlflow_run(panel_run):
    from mlflow.tracking import MlflowClient

    tmp, proc = panel_run
    summary = json.loads((tmp / "run" / "summary.json").read_text())
    entry = summary["graphs"]["socratic_panel"]
    assert f"pages:   {tmp / 'run' / 'socratic_panel' / 'view' / 'index.html'}" in proc.stdout
    assert f"mlflow:  mlflow ui --backend-store-uri sqlite:///{tmp / 'ml.db'}" in proc.stdout
    metrics = entry["metrics"]
    for name in (
        "episodes",
        "convergence_rate",
        "convergence_rate_ci95_low",
        "convergence_rate_ci95_high",
        "error_rate",
        "rounds_mean",
        "depth_mean",
        "jaccard_agreement_mean",
        "embedding_agreement_mean",
        "episode_seconds_p50",
        "episode_seconds_p95",
        "llm_calls_mean",
        "tokens_total_mean",
        "termination/converged",
        "termination/max_rounds",
        "termination/error",
    ):
        assert name in metrics, name
    assert metrics["episodes"] == 6
    assert any(k.startswith("node_seconds_p50/") for k in metrics)
    assert metrics["convergence_rate_ci95_low"] <= metrics["convergence_rate"] <= metrics["convergence_rate_ci95_high"]

    lines = (tmp / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 6
    record = json.loads(lines[0])
    for key in ("schema_version", "graph", "episode", "seed", "termination_reason", "metrics", "timings", "transcript"):
        assert key in record
    assert not (tmp / "run" / "socratic_panel" / "episodes.jsonl").exists()  # the run-level file is the only one

    client = MlflowClient(f"sqlite:///{tmp / 'ml.db'}")
    run = client.get_run(entry["mlflow_run_id"])
    assert run.info.status == "FINISHED"
    assert run.data.tags["graph"] == "socratic_panel" and run.data.tags["seed"] == "3"
    assert run.data.metrics["convergence_rate"] == pytest.approx(metrics["convergence_rate"])
    assert run.data.params["graph.convergence_threshold"] == "0.8"
    assert run.data.params["llm.base_url"] == "http://***@h/v1"
    history = client.get_metric_history(run.info.run_id, "by_round/jaccard_agreement")
    assert [m.step for m in history][:3] == [1, 2, 3]
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert {"episodes.jsonl", "summary.json", "config.json", "by_round.png"} <= artifacts


def test_secrets_never_reach_outputs(panel_run):
    tmp, _ = panel_run
    for path in (tmp / "run").rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".yaml", ".log"):
            text = path.read_text()
            assert "sk-secret-value" not in text and "do-not-log-me" not in text, path


@pytest.mark.parametrize("form", ["scenario=[edtech_tutoring,saas_pricing]", "scenario='edtech_tutoring,saas_pricing'"])
def test_a_list_of_scenarios_runs_those_scenarios(tmp_path, form):
    proc = _run(tmp_path, "graph=socratic_panel", "episodes=4", "tracking=none", "embeddings=false", form)
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert [r["scenario"] for r in records] == ["edtech_tutoring", "saas_pricing"] * 2


# The real CLI with one injected fault: every episode's cast raises (on scenario "saas_pricing" only when asked).
_FAULTY = """
import sys
import dialectica.sim.engine.episode as episode
from dialectica.sim.cli.main import main
real = episode.build_deps
def build_deps(spec, kind, request):
    if request.scenario["name"] in FAULTY:
        raise RuntimeError("the cast exploded")
    return real(spec, kind, request)
episode.build_deps = build_deps
FAULTY = {faulty}
sys.argv = ["dialectica", *sys.argv[1:]]
main()
"""


def _run_faulty(tmp_path: Path, faulty: set[str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            _FAULTY.format(faulty=sorted(faulty)),
            f"hydra.run.dir={tmp_path / 'run'}",
            "tracking=none",
            "progress=false",
            "embeddings=false",
            "graph=socratic_panel",
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_a_run_whose_every_episode_raised_exits_1_and_says_so(tmp_path):
    proc = _run_faulty(
        tmp_path, {"edtech_tutoring", "saas_pricing"}, "episodes=4", "scenario=[edtech_tutoring,saas_pricing]"
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    (line,) = [line for line in proc.stderr.splitlines() if line.startswith("dialectica: error:")]
    assert "graph socratic_panel: every episode raised (error_rate 1.00 > max_error_rate 0.5)" in line
    assert "Traceback" not in proc.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())  # written all the same
    assert summary["graphs"]["socratic_panel"]["metrics"]["error_rate"] == 1.0


@pytest.mark.parametrize(("max_error_rate", "code"), [("0.4", 1), ("0.5", 0)])
def test_max_error_rate_decides_the_exit_code(tmp_path, max_error_rate, code):
    proc = _run_faulty(
        tmp_path,
        {"saas_pricing"},
        "episodes=4",
        "scenario=[edtech_tutoring,saas_pricing]",
        f"max_error_rate={max_error_rate}",
    )
    assert proc.returncode == code, proc.stderr[-2000:]
    assert ("2 of 4 episodes raised (error_rate 0.50 > max_error_rate 0.4)" in proc.stderr) == (code == 1)
    within = "dialectica: warning: graph socratic_panel: 2 of 4 episodes raised (error_rate 0.50 <= max_error_rate 0.5)"
    assert (within in proc.stderr) == (code == 0)  # a run that stands still says which raised, and where
    assert (tmp_path / "run" / "summary.json").exists()


def test_list_and_help_answer_without_a_run(tmp_path):
    from dialectica.sim.config.discovery import names

    proc = subprocess.run(
        [sys.executable, "-m", "dialectica", "list"], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    headers = [line.split()[0] for line in proc.stdout.splitlines() if line and not line.startswith(" ")]
    assert headers == names() == ["committee", "interview", "maieutic", "socratic_panel", "tribunal"]
    assert "graph.cast.hang_s = 1.5" in proc.stdout and "graph.cast.discipline = 0.8" in proc.stdout
    casts = [line.split(";")[0].split(": ")[1] for line in proc.stdout.splitlines() if line.startswith("  participants: ")]
    assert casts[:2] == ["calibrated, scripted, surrogate"] * 2  # a calibratable graph offers participants=calibrated
    proc = subprocess.run([str(BIN), "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: dialectica")
    assert "graph=all|committee|interview|maieutic|socratic_panel|tribunal" in proc.stdout
    assert not any(tmp_path.iterdir())  # neither wrote a run directory


def test_every_subcommand_answers_help_without_a_run(tmp_path):
    from dialectica.sim.cli.main import SUBCOMMANDS

    for name in SUBCOMMANDS:
        proc = subprocess.run([str(BIN), name, "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert proc.returncode == 0 and proc.stdout.startswith(("usage: dialectica", f"usage: dialectica {name}")), name
        assert proc.stderr == "", (name, proc.stderr[-500:])
    assert not any(tmp_path.iterdir())


def test_an_old_console_script_is_its_subcommand(tmp_path):
    alias = subprocess.run(
        [str(BIN.parent / "dialectica-view"), str(tmp_path / "nowhere")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    new = subprocess.run(
        [str(BIN), "view", str(tmp_path / "nowhere")], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert alias.returncode == new.returncode == 2 and alias.stderr == new.stderr
    assert new.stderr.startswith("dialectica: error: ") and new.stderr.count("\n") == 1


_COUNT_COMPOSES = """
import json, sys
from hydra._internal.hydra import Hydra
from dialectica.sim.cli import run
modes, compose = [], Hydra.compose_config
def counted(self, *args, **kwargs):
    modes.append(str(kwargs.get("run_mode")))
    return compose(self, *args, **kwargs)
Hydra.compose_config = counted
run._exit_now = lambda code=0: sys.exit(code)
try:
    run.main(sys.argv[1:])
finally:
    print(json.dumps(modes))
"""


@pytest.mark.parametrize("mode", ["single", "hydra.mode=MULTIRUN"])
def test_a_single_run_composes_its_config_once(tmp_path, mode):
    """Start-up: ``@hydra.main`` composes once to read ``hydra.mode``, then again to run; a single run skips the
    first, and an explicit ``hydra.mode=`` still reaches Hydra's own reading of it (a sweep here)."""
    args = ["graph=interview", "episodes=1", "tracking=none", "embeddings=false", "view.enabled=false"]
    args += [f"hydra.run.dir={tmp_path / 'run'}", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    args += [] if mode == "single" else [mode]
    proc = subprocess.run(
        [sys.executable, "-c", _COUNT_COMPOSES, *args], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    modes = json.loads(proc.stdout.strip().splitlines()[-1])
    if mode == "single":
        assert modes == ["RunMode.RUN"]
        assert (tmp_path / "run" / "summary.json").is_file()
    else:
        assert modes[0] == "RunMode.MULTIRUN" and len(modes) > 1  # Hydra's get_mode, then the sweep's own
        assert (tmp_path / "sweep" / "0" / "summary.json").is_file() and not (tmp_path / "run").exists()
