"""Episodes as MLflow traces with their verdicts as assessments; people's labels from MLflow and from a file read
back by ``dialectica agreement`` to the same figures; ``dialectica label`` queues episodes, tracing those that
were not traced while they ran."""

from __future__ import annotations

import json
from pathlib import Path

import mlflow
import pytest
from mlflow.entities import AssessmentSource
from mlflow.tracing.client import TracingClient

import dialectica
from tests.integration.test_support_bot_example import ARGS as SUPPORT_BOT
from tests.integration.test_support_bot_example import NAME, _dialectica

ARGS = (*(a for a in SUPPORT_BOT if a not in ("episodes=8", "tracking=none")), "episodes=10", "seed=0")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A 10-episode run of the support bot with its scripted customer and rule judge, the first 4 traced."""
    tmp = tmp_path_factory.mktemp("traced")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    proc = _dialectica(tmp, *ARGS, "traces=4", f"tracking.uri={uri}", f"hydra.run.dir={tmp / 'run'}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / "run", uri


def _traces(uri: str, run_id: str) -> dict[int, object]:
    experiment = mlflow.MlflowClient(uri).get_run(run_id).info.experiment_id
    found = TracingClient(uri).search_traces(locations=[experiment], run_id=run_id, max_results=100)
    return {int(t.info.tags["dialectica.episode"]): t for t in found}


def test_each_picked_episode_is_one_trace_with_its_verdicts(run):
    run_dir, uri = run
    summary = json.loads((run_dir / "summary.json").read_text())["graphs"][NAME]
    traces = _traces(uri, summary["mlflow_run_id"])
    assert sorted(traces) == [0, 1, 2, 3]
    assert summary["traces"] == {"logged": 4, "failed": 0}
    records = {r["episode"]: r for r in map(json.loads, (run_dir / "episodes.jsonl").read_text().splitlines())}
    for episode, trace in traces.items():
        record, info = records[episode], trace.info
        assert info.tags["dialectica.scenario"] == record["scenario"] and info.tags["dialectica.seed"] == str(record["seed"])
        assert len(info.tags["dialectica.config"]) == 12
        assert info.trace_metadata["mlflow.trace.session"].endswith(f"/{NAME}/{episode}")
        root = trace.data.spans[0]
        assert root.name == f"episode {episode}" and root.parent_id is None
        assert root.outputs["termination_reason"] == record["termination_reason"]
        # the graph's own spans under the episode: one LangGraph run per user turn, each with its nodes
        assert sum(s.name == "LangGraph" for s in trace.data.spans) == record["metrics"]["rounds"]
        assert {s.name for s in trace.data.spans} >= set(record["timings"]["node_path"])
        verdicts = {a.name: a for a in info.assessments}
        assert verdicts["dialectica/converged"].value is record["converged"]
        assert verdicts["dialectica/ending"].value == record["termination_reason"]
        assert verdicts["dialectica/judge"].value is bool(record["metrics"]["judge_passed"])
        assert verdicts["dialectica/judge"].source.source_type == "CODE"  # a rule, not a model
    trace_file = json.loads((run_dir / NAME / "traces.json").read_text())
    assert {int(k) for k in trace_file["traces"]} == {0, 1, 2, 3}
    page = (run_dir / NAME / "view" / "episode_0.html").read_text()
    assert f"selectedEvaluationId={trace_file['traces']['0']}" in page


def test_labels_from_mlflow_and_from_a_file_give_the_same_agreement(run, tmp_path):
    run_dir, uri = run
    summary = json.loads((run_dir / "summary.json").read_text())["graphs"][NAME]
    traces = _traces(uri, summary["mlflow_run_id"])
    records = {r["episode"]: r for r in map(json.loads, (run_dir / "episodes.jsonl").read_text().splitlines())}
    # a person who disagrees with the judge on episode 1 and agrees elsewhere
    mine = {e: (not records[e]["converged"]) if e == 1 else records[e]["converged"] for e in traces}
    mlflow.set_tracking_uri(uri)
    for episode, trace in traces.items():
        mlflow.log_feedback(
            trace_id=trace.info.trace_id,
            name="human/converged",
            value=mine[episode],
            source=AssessmentSource(source_type="HUMAN", source_id="ann"),
            rationale="read it" if episode == 1 else None,
        )
    proc = _dialectica(tmp_path, "agreement", str(run_dir))
    assert proc.returncode == 0, proc.stderr[-3000:]
    from_mlflow = json.loads((run_dir / NAME / "agreement.json").read_text())
    assert from_mlflow["labels"] == 4 and from_mlflow["labelers"] == ["ann"]
    assert sum(from_mlflow["confusion"].values()) == 4 and from_mlflow["accuracy"] == 0.75
    assert [d["episode"] for d in from_mlflow["verdicts"]["converged"]["disagreements"]] == [1]
    assert "episode 1" in proc.stdout and "ann: read it" in proc.stdout
    logged = mlflow.MlflowClient(uri).get_run(summary["mlflow_run_id"]).data.metrics
    assert logged["agreement/labels"] == 4.0
    history = mlflow.MlflowClient(uri).get_metric_history(summary["mlflow_run_id"], "agreement/kappa")
    assert [m.step for m in history] == [4]  # at the number of labels: a later check adds a point
    assert _dialectica(tmp_path, "agreement", str(run_dir)).returncode == 0  # the same labels again: no new point
    assert len(mlflow.MlflowClient(uri).get_metric_history(summary["mlflow_run_id"], "agreement/kappa")) == 1
    # from Python, the same figures, with nothing written
    in_python = dialectica.agreement_with_labels(run_dir)[NAME]
    assert json.loads(json.dumps(in_python)) == {k: v for k, v in from_mlflow.items() if k != "graph"}
    assert from_mlflow["sources"] == ["mlflow"]

    # the same labels in a file, read without MLflow: the same figures
    labels = tmp_path / "labels.csv"
    labels.write_text("episode,label,labeler,note\n" + "".join(f"{e},{v},ann,\n" for e, v in mine.items()))
    offline = tmp_path / "offline"
    proc = _dialectica(tmp_path, *ARGS, "tracking=none", f"hydra.run.dir={offline}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = _dialectica(tmp_path, "agreement", str(offline), f"labels={labels}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    from_file = json.loads((offline / NAME / "agreement.json").read_text())
    for key in ("labels", "kappa", "kappa_ci95", "confusion", "corrected_convergence_rate", "convergence_rate"):
        assert from_file[key] == from_mlflow[key], key
    assert from_file["sources"] == [str(labels)]


def test_the_label_queue_traces_tags_and_writes_a_template(run, tmp_path):
    run_dir, uri = run
    proc = _dialectica(tmp_path, "label", str(run_dir), "--n", "3", "--name", "first-look")
    assert proc.returncode == 0, proc.stderr[-3000:]
    queued = json.loads((run_dir / NAME / "label_queue.json").read_text())["episodes"]
    assert len(queued) == 3 and set(queued.values()) == {"random"}
    summary = json.loads((run_dir / "summary.json").read_text())["graphs"][NAME]
    traces = _traces(uri, summary["mlflow_run_id"])
    for episode in map(int, queued):
        trace = traces[episode]  # made from the record: it was not traced while it ran
        assert trace.info.tags["dialectica.queue"] == "first-look"
        assert {a.name for a in trace.info.assessments} >= {"dialectica/converged", "dialectica/ending"}
        assert any(s.name.startswith("turn ") for s in trace.data.spans)
    assert "review-queue" in proc.stdout and "tags.`dialectica.queue` = 'first-look'" in proc.stdout
    template = (run_dir / NAME / "labels_first-look.csv").read_text().splitlines()
    assert template[0] == "episode,label,note,labeler,page" and len(template) == 4
    assert all(Path(line.split(",")[-1]).is_file() for line in template[1:])  # each episode got its page


def test_a_sweeps_labels_pool_per_configuration_over_seeds(tmp_path):
    sweep = tmp_path / "sweep"
    args = [a for a in ARGS if not a.startswith(("episodes=", "seed="))]
    proc = _dialectica(
        tmp_path, "-m", *args, "episodes=6", "seed=0,1", "graph.refund_window_days=7,30", "tracking=none",
        f"hydra.sweep.dir={sweep}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    truth = {}  # job -> episode -> the label a person gave: the verdict, except on the first queued episode
    for job in sorted(p for p in sweep.iterdir() if (p / "summary.json").is_file()):
        proc = _dialectica(tmp_path, "label", str(job), "--n", "3")
        assert proc.returncode == 0, proc.stderr[-3000:]
        template = job / NAME / f"labels_sweep-{job.name}.csv"  # the default queue: the sweep and its job
        records = {r["episode"]: r for r in map(json.loads, (job / "episodes.jsonl").read_text().splitlines())}
        rows = template.read_text().splitlines()
        episodes = [int(line.split(",")[0]) for line in rows[1:]]
        truth[job.name] = {e: records[e]["converged"] != (k == 0) for k, e in enumerate(episodes)}
        template.write_text(rows[0] + "\n" + "".join(f"{e},{v},,,\n" for e, v in truth[job.name].items()))
    proc = _dialectica(tmp_path, "agreement", str(sweep))
    assert proc.returncode == 0, proc.stderr[-3000:]
    pooled = json.loads((sweep / "agreement.json").read_text())[NAME]
    assert len(pooled) == 2 and all(row["jobs"] == 2 and row["episodes"] == 12 for row in pooled.values())
    assert set(pooled) == {"graph.refund_window_days=7", "graph.refund_window_days=30"}  # what tells them apart
    for name, row in pooled.items():
        assert "seed" not in name and row["labels"] == 6  # 3 labels a job, two seeds
        assert row["confusion"]["fp"] + row["confusion"]["fn"] == 2  # one disagreement a job
    assert "corrected (95% CI)" in (sweep / "agreement.md").read_text()


def test_live_and_afterwards_traces_carry_the_same_config_digest(run, tmp_path):
    run_dir, uri = run
    summary = json.loads((run_dir / "summary.json").read_text())["graphs"][NAME]
    proc = _dialectica(tmp_path, "label", str(run_dir), "--n", "2", "--name", "digest")
    assert proc.returncode == 0, proc.stderr[-3000:]
    traces = _traces(uri, summary["mlflow_run_id"])
    live = {t.info.tags["dialectica.config"] for e, t in traces.items() if e < 4}
    made = {t.info.tags["dialectica.config"] for e, t in traces.items() if e >= 4}
    assert len(live) == 1 and live == made


def test_a_native_graphs_convergence_is_a_verdict_people_label_the_same_way(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    run_dir = tmp_path / "run"
    args = ["graph=interview", "episodes=6", "seed=1", "traces=2", "progress=false", f"tracking.uri={uri}"]
    proc = _dialectica(tmp_path, *args, f"hydra.run.dir={run_dir}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())["graphs"]["interview"]
    traces = _traces(uri, summary["mlflow_run_id"])
    records = {r["episode"]: r for r in map(json.loads, (run_dir / "episodes.jsonl").read_text().splitlines())}
    assert sorted(traces) == [0, 1]
    for episode, trace in traces.items():
        names = {s.name for s in trace.data.spans}
        assert set(records[episode]["timings"]["node_path"]) <= names  # the graph's own nodes, as spans
        verdict = next(a for a in trace.info.assessments if a.name == "dialectica/converged")
        assert verdict.value is records[episode]["converged"] and verdict.source.source_type == "CODE"
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"episode": e, "label": not r["converged"]}) + "\n" for e, r in records.items()))
    proc = _dialectica(tmp_path, "agreement", str(run_dir), f"labels={labels}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((run_dir / "interview" / "agreement.json").read_text())
    assert result["labels"] == 6 and result["accuracy"] == 0.0  # people disagreed with every verdict
    raw, corrected = result["convergence_rate"]["estimate"], result["corrected_convergence_rate"]
    assert abs(corrected["estimate"] - (1 - raw)) < abs(corrected["estimate"] - raw)  # on the people's side
    assert not corrected["ci95_low"] <= raw <= corrected["ci95_high"]

    # the file's labels now sit on the two traces, beside the verdicts; the untraced episodes are named
    assert "2 labels from files posted" in proc.stdout and "episodes 2, 3, 4, 5 have no trace" in proc.stdout
    client = TracingClient(uri)

    def human(episode: int) -> list:
        found = client.get_trace_info(traces[episode].info.trace_id).assessments
        return [a for a in found if a.name == "human/converged"]

    for episode in (0, 1):
        (label,) = human(episode)
        assert label.value is (not records[episode]["converged"]) and label.source.source_type == "HUMAN"
        assert label.source.source_id == "labels"  # no labeler column: the file's name
    proc = _dialectica(tmp_path, "agreement", str(run_dir), f"labels={labels}")
    assert "0 labels from files posted" in proc.stdout and [len(human(e)) for e in (0, 1)] == [1, 1]
    # a label changed in the file overrides the trace's: the old one stays, marked invalid
    labels.write_text(json.dumps({"episode": 0, "label": records[0]["converged"]}) + "\n")
    proc = _dialectica(tmp_path, "agreement", str(run_dir), f"labels={labels}")
    assert proc.returncode == 0 and "1 label from files posted" in proc.stdout, proc.stderr[-3000:]
    assert sorted((a.valid is not False, a.value) for a in human(0)) == sorted(
        [(False, not records[0]["converged"]), (True, records[0]["converged"])]
    )
    result = json.loads((run_dir / "interview" / "agreement.json").read_text())
    assert result["labels"] == 2  # the file's episode 0 (changed) and the trace's episode 1 (posted before)


def test_a_resumed_runs_traces_and_labels_include_those_made_before_it_stopped(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    run_dir = tmp_path / "run"
    base = (*ARGS, "traces=all", f"tracking.uri={uri}", f"hydra.run.dir={run_dir}")
    assert _dialectica(tmp_path, *base, "budget.episodes=3").returncode == 0  # stopped by its budget after 3
    first = json.loads((run_dir / "summary.json").read_text())["graphs"][NAME]["mlflow_run_id"]
    mlflow.set_tracking_uri(uri)
    for trace in _traces(uri, first).values():  # a person labels the first run's traces
        mlflow.log_feedback(
            trace_id=trace.info.trace_id,
            name="human/converged",
            value=True,
            source=AssessmentSource(source_type="HUMAN", source_id="ann"),
        )
    proc = _dialectica(tmp_path, *base, "resume=true")
    assert proc.returncode == 0, proc.stderr[-3000:]
    listed = json.loads((run_dir / NAME / "traces.json").read_text())["traces"]
    assert sorted(map(int, listed)) == list(range(10))  # the first run's three and the resumed run's seven
    assert _dialectica(tmp_path, "agreement", str(run_dir)).returncode == 0
    assert json.loads((run_dir / NAME / "agreement.json").read_text())["labels"] == 3
