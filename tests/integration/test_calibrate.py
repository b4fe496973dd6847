"""``dialectica calibrate`` end to end against an OpenAI-compatible server on loopback: a reference validity run,
a fit on part of its grid, a calibrated set with its provenance, ``participants=calibrated`` playing it exactly
as the fit measured it, the validity report's calibrated column, and ``dialectica behaviour``."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
import yaml
from mlflow.tracking import MlflowClient

from dialectica.sim.analysis.calibration import behaviour
from dialectica.sim.analysis.calibration import job as cli
from dialectica.sim.analysis.calibration.fit import load_reference
from dialectica.sim.analysis.validity import run as validity
from dialectica.sim.authoring.data import builtin_graph
from dialectica.sim.authoring.params import ConfigError
from dialectica.sim.cli.main import dispatch
from dialectica.sim.config.discovery import load
from dialectica.sim.config.loader import load as load_config
from dialectica.sim.dev.latency_server import serving
from dialectica.sim.engine.batch import run_experiment

GRAPH = "interview"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A validity run of the interview graph (LLM interviewee on the loopback server) over a copy of its datasets."""
    root = tmp_path_factory.mktemp("calibrate")
    data = root / "datasets"
    shutil.copytree(builtin_graph(GRAPH)[1], data / GRAPH)
    (data / GRAPH / "calibrated.yaml").unlink(missing_ok=True)
    with serving(latency_s=0.0) as url:
        args = [
            f"graph={GRAPH}",
            "grid.budget=3,6,10",
            "episodes=4",
            "seed=2",
            "llm=openai",
            f"llm.base_url={url}",
            "llm.model=latency",
            "max_concurrency=4",
            "tracking=none",
            "view.enabled=false",
            f"datasets_dir={data}",
        ]
        report = validity(args, cwd=root, echo=lambda _: None)
        yield root, data, Path(report["out_dir"]), args


def test_calibrate_writes_a_set_with_provenance_that_participants_calibrated_plays(reference):
    root, data, ref, args = reference
    lines: list[str] = []
    store = f"sqlite:///{root / 'ml.db'}"
    report = cli.run(
        [f"graph={GRAPH}", f"reference={ref}", "trials=4", f"tracking.uri={store}"], cwd=root, echo=lines.append
    )

    written = data / GRAPH / "calibrated.yaml"
    assert report["calibrated_set"] == str(written)
    saved = yaml.safe_load(written.read_text())
    prov = saved["provenance"]
    assert prov["model"]["backend"] == "openai" and prov["model"]["model"] == "latency"
    assert prov["seed"] == 2 and prov["episodes"] == 4 and prov["grid"] == {"budget": [3, 6, 10]}
    assert prov["fit_points"] == ["budget=3", "budget=10"] and prov["held_out_points"] == ["budget=6"]
    assert prov["command"].startswith(f"dialectica calibrate graph={GRAPH} reference=") and prov["date"]
    if ref.is_relative_to(root):  # a reference under the working directory is recorded relative to it
        assert prov["reference"] == str(ref.relative_to(root)) and str(root) not in prov["command"]
    knobs = {k.name: k for k in load(GRAPH).calibration.knobs}
    assert set(saved["shared"]) == set(knobs)
    assert all(knobs[k].low <= v <= knobs[k].high for k, v in saved["shared"].items())
    assert [r["split"] for r in report["evaluation"]["configs"]] == ["fit", "held-out", "fit"]
    assert len(report["fit"]["trials"]) == 4 and report["fit"]["loss"] <= min(t["loss"] for t in report["fit"]["trials"])
    out = Path(lines[-1].split("report: ")[1])
    assert {p.name for p in out.iterdir()} == {"calibration.json", "calibration.md", "calibration.png"}
    client = MlflowClient(store)
    logged = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])
    assert [r.info.run_name for r in logged] == [f"calibrate {GRAPH}"]
    assert {k[6:]: float(v) for k, v in logged[0].data.params.items() if k.startswith("value.")} == pytest.approx(
        saved["shared"]
    )
    assert {a.path for a in client.list_artifacts(logged[0].info.run_id)} == {
        "calibration.json",
        "calibration.md",
        "calibration.png",
        "calibrated.yaml",
    }

    # the rates the fit reports are those of a real run with participants=calibrated, on the same seeds
    for point, row in zip((3, 6, 10), report["evaluation"]["configs"], strict=True):
        cfg = load_config(
            [
                f"graph={GRAPH}",
                "participants=calibrated",
                "episodes=4",
                "seed=2",
                "tracking=none",
                "view.enabled=false",
                "progress=false",
                f"graph.budget={point}",
                f"datasets_dir={data}",
            ],
            out_dir=root / f"run-{point}",
            cwd=root,
        )
        summary = run_experiment(cfg, echo=lambda _: None)
        assert summary["graphs"][GRAPH]["metrics"]["convergence_rate"] == row["calibrated_rate"]
        records = [json.loads(line) for line in (root / f"run-{point}" / "episodes.jsonl").read_text().splitlines()]
        assert {r["participants"] for r in records} == {"calibrated"}

    # with a calibrated set in place, the validity report gains its column
    again = validity(args, cwd=root, echo=lambda _: None)
    fitted = report["evaluation"]["configs"]
    assert [r["calibrated_rate"] for r in again["configs"]] == [r["calibrated_rate"] for r in fitted]
    assert [r["llm_rate"] for r in again["configs"]] == [r["llm_rate"] for r in fitted]
    assert all(
        r["calibrated_inside_llm_ci"] == (r["llm_ci95_low"] <= r["calibrated_rate"] <= r["llm_ci95_high"])
        for r in again["configs"]
    )
    assert "calibrated inside LLM CI" in (Path(again["out_dir"]) / "validity.md").read_text()


def test_a_fit_no_better_than_the_authored_cast_writes_no_set(reference, tmp_path, monkeypatch):
    root, _, ref, _ = reference
    found = cli.search

    def no_better(*args, **kwargs):
        fit = found(*args, **kwargs)
        return dataclasses.replace(fit, loss=fit.authored_loss)

    monkeypatch.setattr(cli, "search", no_better)
    lines: list[str] = []
    target = tmp_path / "calibrated.yaml"
    report = cli.run(
        [f"graph={GRAPH}", f"reference={ref}", "trials=2", f"out={target}", "tracking=none"], cwd=root, echo=lines.append
    )
    assert report["calibrated_set"] is None and not target.exists()
    assert any(line.startswith("calibrated set not written") and str(target) in line for line in lines)
    assert (Path(lines[-1].split("report: ")[1]) / "calibration.json").exists()


def test_behaviour_side_by_side_names_both_runs_and_every_statistic(reference, capsys):
    _, _, ref, _ = reference
    assert dispatch("behaviour", [str(ref / "0-scripted"), str(ref / "0-llm")]) == 0
    text = capsys.readouterr().out
    stats = behaviour.run_statistics(ref / "0-llm")[GRAPH]
    assert f"## {GRAPH}" in text and all(f"| {name} |" in text for name in stats)
    assert dispatch("behaviour", [str(ref / "0-llm"), str(ref / "nowhere")]) == 2


def test_an_offset_fit_writes_each_persona_shifted_from_its_authored_values(reference, tmp_path):
    root, _, ref, _ = reference
    target = tmp_path / "not" / "made" / "yet" / "calibrated.yaml"  # out= in a folder that does not exist yet
    report = cli.run(
        [f"graph={GRAPH}", f"reference={ref}", "trials=10", "mode=offset", f"out={target}", "tracking=none"],
        cwd=root,
        echo=lambda _: None,
    )
    trials = report["fit"]["trials"]
    calibration = load(GRAPH).calibration
    assert all(trials[0][k.name] == 0 for k in calibration.knobs)  # trial 0: the personas as written
    assert trials[0]["loss"] == pytest.approx(report["fit"]["authored_loss"])
    assert report["provenance"]["mode"] == "offset" and report["provenance"]["command"].endswith(f"mode=offset out={target}")
    assert report["calibrated_set"] == str(target) and report["fit"]["loss"] < report["fit"]["authored_loss"]
    saved = yaml.safe_load(target.read_text())
    cfg = load_config([f"graph={GRAPH}", "tracking=none"], out_dir=root / "cfg", cwd=root)
    authored = cli.authored_personas(calibration, cfg.graphs[0].scenarios)
    assert saved["shared"] == {} and set(saved["personas"]) == set(authored)
    knobs = {k.name: k for k in calibration.knobs}
    for pid, values in saved["personas"].items():
        for name, value in values.items():
            assert value == pytest.approx(knobs[name].clip(authored[pid][name] + report["values"][name]))


def test_an_offset_fit_that_finds_no_shift_writes_the_personas_as_written(reference, tmp_path, monkeypatch):
    root, _, ref, _ = reference
    found = cli.search

    def nothing_better(*args, **kwargs):
        fit = found(*args, **kwargs)
        return dataclasses.replace(fit, values={k: 0.0 for k in fit.values}, loss=fit.authored_loss)

    monkeypatch.setattr(cli, "search", nothing_better)
    lines: list[str] = []
    target = tmp_path / "calibrated.yaml"
    report = cli.run(
        [f"graph={GRAPH}", f"reference={ref}", "trials=2", "mode=offset", f"out={target}", "tracking=none"],
        cwd=root,
        echo=lines.append,
    )
    cfg = load_config([f"graph={GRAPH}", "tracking=none"], out_dir=root / "cfg-as-written", cwd=root)
    assert report["calibrated_set"] == str(target)
    assert yaml.safe_load(target.read_text())["personas"] == cli.authored_personas(
        load(GRAPH).calibration, cfg.graphs[0].scenarios
    )
    assert any(line.startswith("no shift fitted better") for line in lines)
    configs = report["evaluation"]["configs"]
    assert [r["calibrated_rate"] for r in configs] == [r["scripted_rate"] for r in configs]  # it plays as authored


@pytest.fixture(scope="module")
def seeded(reference):
    """The reference at seed 2 and two more of the same graph, grid and episodes at seeds 5 and 7."""
    root, _, ref, args = reference
    refs = [ref]
    for seed in (5, 7):
        cwd = root / f"seed-{seed}"  # a folder each: validity names its run by the second it started
        cwd.mkdir()
        given = [a if not a.startswith("seed=") else f"seed={seed}" for a in args]
        refs.append(Path(validity(given, cwd=cwd, echo=lambda _: None)["out_dir"]))
    return root, refs


def test_references_at_several_seeds_pool_the_fit_seeds_and_judge_the_others(seeded, tmp_path):
    root, refs = seeded
    lines: list[str] = []
    store = f"sqlite:///{tmp_path / 'ml.db'}"
    target = tmp_path / "calibrated.yaml"
    given = [f"graph={GRAPH}", f"reference={','.join(map(str, refs))}", "trials=3", f"out={target}"]
    report = cli.run([*given, f"tracking.uri={store}"], cwd=root, echo=lines.append)

    prov = report["provenance"]
    assert prov["fit_seeds"] == [2, 5] and prov["validation_seeds"] == [7] and prov["seed"] == [2, 5]
    assert not any(o.startswith("seed=") for o in prov["overrides"])  # not the first reference's seed alone
    assert prov["reference"] == ",".join(str(r.relative_to(root)) for r in refs) and prov["episodes"] == 4
    # the grid-point report pools the fit seeds: 8 LLM episodes a point
    pooled = [cli.rate(a + b) for a, b in zip(*(load_reference(r, GRAPH).llm for r in refs[:2]), strict=True)]
    assert [r["llm_rate"] for r in report["evaluation"]["configs"]] == pooled
    section = report["evaluation"]["held_out_seeds"]
    held = load_reference(refs[2], GRAPH)
    assert [(c["seed"], c["config"]) for c in section["cells"]] == [(7, "budget=3"), (7, "budget=6"), (7, "budget=10")]
    assert [c["llm_rate"] for c in section["cells"]] == [cli.rate(rows) for rows in held.llm]
    assert [c["scripted_rate"] for c in section["cells"]] == [cli.rate(rows) for rows in held.scripted]
    for cast in ("scripted", "calibrated"):
        inside = [c["llm_ci95_low"] <= c[f"{cast}_rate"] <= c["llm_ci95_high"] for c in section["cells"]]
        assert [c[f"{cast}_inside_llm_ci"] for c in section["cells"]] == inside
        assert report["held_out_seed_inside"][cast] == pytest.approx(sum(inside) / 3)
    shares = report["held_out_seed_inside"]
    assert (report["calibrated_set"] is not None) == (
        shares["calibrated"] >= shares["scripted"] and report["fit"]["loss"] < report["fit"]["authored_loss"]
    )
    out = Path(lines[-1].split("report: ")[1])
    text = (out / "calibration.md").read_text()
    assert "Held-out seeds (7)" in text and "| 7 | budget=10 |" in text and "Fitted on seeds 2, 5." in text
    assert "Held-out-seed cells inside the LLM's 95% interval: authored" in text
    client = MlflowClient(store)
    logged = client.search_runs([client.get_experiment_by_name("dialectica").experiment_id])[0]
    assert logged.data.params["fit_seeds"] == "2,5" and logged.data.params["validation_seeds"] == "7"
    assert logged.data.metrics["held_out_seed_inside.calibrated"] == pytest.approx(shares["calibrated"])
    assert logged.data.metrics["held_out_seed_inside.authored"] == pytest.approx(shares["scripted"])

    # fit_seeds= chooses: one seed fitted, two held out, six cells; the rerun command names it
    again = cli.run([*given, "fit_seeds=5", "tracking=none"], cwd=root, echo=lambda _: None)
    assert again["provenance"]["fit_seeds"] == [5] and again["provenance"]["validation_seeds"] == [2, 7]
    assert [c["seed"] for c in again["evaluation"]["held_out_seeds"]["cells"]] == [2, 2, 2, 7, 7, 7]
    assert "fit_seeds=5" in again["provenance"]["command"]


def test_a_set_that_holds_less_often_on_held_out_seeds_than_the_authored_cast_is_not_written(seeded, tmp_path, monkeypatch):
    root, refs = seeded
    # a held-out reference at seed 7 whose LLM episodes are the authored cast's: the authored cast is inside everywhere
    held = tmp_path / "seed-7"
    shutil.copytree(refs[2], held)
    for i in range(3):
        shutil.copyfile(held / f"{i}-scripted" / "episodes.jsonl", held / f"{i}-llm" / "episodes.jsonl")
    found = cli.search

    def never_converges(*args, **kwargs):  # a fit that claims a lower loss with values that break the interview
        fit = found(*args, **kwargs)
        values = {"vagueness": 0.95, "off_topic": 0.95, "contradiction": 0.6, "items_per_answer": 1}
        return dataclasses.replace(fit, values=values, loss=fit.authored_loss - 1)

    monkeypatch.setattr(cli, "search", never_converges)
    lines: list[str] = []
    target = tmp_path / "calibrated.yaml"
    report = cli.run(
        [f"graph={GRAPH}", f"reference={refs[0]},{held}", "trials=1", f"out={target}", "tracking=none"],
        cwd=root,
        echo=lines.append,
    )
    shares = report["held_out_seed_inside"]
    assert shares["scripted"] == 1.0 and shares["calibrated"] < 1.0
    assert report["calibrated_set"] is None and not target.exists()
    [line] = [line for line in lines if line.startswith("calibrated set not written")]
    assert "on the held-out seed 7 " in line and "fewer than the authored cast's 3/3" in line
    assert f"nothing is written to {target}" in line  # no file was there to be left as it was


def test_references_that_disagree_are_refused_in_one_line(seeded, tmp_path):
    root, refs = seeded
    other = tmp_path / "other-grid"
    shutil.copytree(refs[1], other)
    data = json.loads((other / "validity.json").read_text())
    data["grid"] = {"budget": [3, 6, 11]}
    (other / "validity.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError) as err:
        cli.run([f"graph={GRAPH}", f"reference={refs[0]},{other}", "tracking=none"], cwd=root, echo=lambda _: None)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"reference={other} does not agree with reference={refs[0]}")
    assert "grid budget=3, budget=6, budget=11 against budget=3, budget=6, budget=10" in message
    with pytest.raises(ConfigError, match="is given twice; give each reference once"):
        cli.run([f"graph={GRAPH}", f"reference={refs[0]},{refs[0]}", "tracking=none"], cwd=root, echo=lambda _: None)
    twin = tmp_path / "twin"  # a copy of a reference: the same seed, the same episodes twice
    shutil.copytree(refs[0], twin)
    with pytest.raises(ConfigError, match="seed 2 like reference="):
        cli.run([f"graph={GRAPH}", f"reference={refs[0]},{twin}", "tracking=none"], cwd=root, echo=lambda _: None)
    reduced = tmp_path / "reduced"  # the same grid and seeds at another configuration of the graph
    shutil.copytree(refs[1], reduced)
    played = reduced / "0-llm" / GRAPH / "config.json"
    config = json.loads(played.read_text())
    config["graph"]["question_cost"] = 2.0
    played.write_text(json.dumps(config))
    with pytest.raises(ConfigError, match=r"graph.question_cost 2.0 against 1.0; give references of one configuration"):
        cli.run([f"graph={GRAPH}", f"reference={refs[0]},{reduced}", "tracking=none"], cwd=root, echo=lambda _: None)
    with pytest.raises(ConfigError, match="fit_seeds=3 must name seeds of the references: 2,5"):
        cli.run(
            [f"graph={GRAPH}", f"reference={refs[0]},{refs[1]}", "fit_seeds=3", "tracking=none"],
            cwd=root,
            echo=lambda _: None,
        )
