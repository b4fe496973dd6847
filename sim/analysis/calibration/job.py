"""``dialectica calibrate graph=NAME``: fit the scripted cast's personas to an LLM reference run.

``reference=DIR`` names a ``dialectica validity`` directory of the graph, ``reference=A,B,C`` several (the same
graph, grid and episodes, at different seeds); without it one is run first (the graph's grid or
``grid.<param>=a,b,c``, the reference model (``validity.REFERENCE_PRESET``) or any ``llm=`` backend; every other
argument is an override for that run). The fit pools the references of the seeds ``fit_seeds=s,t`` (every
reference's seed but the last one's by default) at the grid points ``fit=i,j`` (every other point by default)
over ``trials=N`` Optuna trials and reports the match at every point, the held-out ones apart, and per held-out
seed and point. It writes a report under ``results/calibration/<graph>-<time>/`` and, when the fit's loss is
lower than the authored personas' and the calibrated cast lies inside the LLM's interval in no smaller share of
the held-out seeds' cells than the authored cast, the calibrated set with its provenance to
``<graph's datasets>/calibrated.yaml`` (``out=PATH`` elsewhere).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dialectica.metrics import FullRecord
from dialectica.sim.analysis.calibration import seeds
from dialectica.sim.analysis.calibration.fit import (
    Fit,
    Reference,
    authored_mean,
    authored_personas,
    converged,
    offset_knobs,
    rate,
    search,
    shifted,
    split,
    statistics,
)
from dialectica.sim.authoring.params import ConfigError, closest
from dialectica.sim.authoring.plots import save, subplots
from dialectica.sim.config import calset as calsets
from dialectica.sim.config import discovery
from dialectica.sim.config.calset import CalibratedSet

if TYPE_CHECKING:
    from dialectica.sim.authoring.calibration import Calibration
    from dialectica.sim.authoring.spec import GraphSpec
    from dialectica.sim.config.typed import GraphRun

HEADER = (
    "# Calibrated persona values for the scripted cast, written by dialectica calibrate (see provenance).\n"
    "# participants=calibrated plays the scripted cast with them; rerun the command in provenance to refit.\n"
)

TRIALS = 30
MODES = ("shared", "offset")  # one value per knob for every persona | one shift per knob of each authored value
USAGE = (
    "usage: dialectica calibrate graph=NAME [reference=VALIDITY_DIR[,DIR...]] [fit_seeds=S,T] [fit=0,2,4] [trials=N] "
    "[mode=shared|offset] [out=PATH] "
    "[grid.PARAM=a,b,c] [overrides for the reference run]"
)


KEYS = ("graph", "reference", "fit", "fit_seeds", "trials", "mode", "out")


def _integers(given: dict[str, str], key: str, valid: str) -> list[int] | None:
    """``key``'s comma-separated whole numbers, or None when not given.

    Raises:
        ConfigError: naming ``key``, its value and what is valid.
    """
    if key not in given:
        return None
    try:
        values = [int(i) for i in given[key].split(",")]
    except ValueError:
        raise ConfigError(f"{key}={given[key]} is invalid; valid: {valid}") from None
    return values


@dataclass(frozen=True)
class Args:
    graph: str
    reference: list[Path] | None
    fit: list[int] | None
    fit_seeds: list[int] | None
    trials: int
    mode: str
    out: Path | None
    rest: list[str]
    tracking: list[str]


def parse(argv: Sequence[str]) -> Args:
    given: dict[str, str] = {}
    rest, tracking = [], []
    for arg in argv:
        key, sep, value = arg.partition("=")
        if not sep:
            raise ConfigError(f"{arg!r} is not key=value; {USAGE}")
        if key in KEYS:
            given[key] = value
        elif key.lstrip("+").split(".")[0] == "tracking":
            tracking.append(arg)
        else:
            rest.append(arg)
    for arg in rest:
        key = arg.partition("=")[0]
        meant = closest(key, KEYS) if "." not in key else None
        if meant is not None:
            raise ConfigError(f"unknown key {key} (did you mean {meant}?); calibrate's keys: {', '.join(KEYS)}")
    graph = given.get("graph")
    if graph not in discovery.names():
        raise ConfigError(f"graph={graph!r} is required and must be one of: {', '.join(discovery.names())}")
    if discovery.load(graph).calibration is None:
        raise ConfigError(
            f"graph {graph} declares no calibration (GraphSpec.calibration); calibratable graphs: "
            f"{', '.join(n for n in discovery.names() if discovery.load(n).calibration is not None)}"
        )
    fit = _integers(given, "fit", "grid indices, e.g. fit=0,2,4")
    fit_seeds = _integers(given, "fit_seeds", "the references' seeds, e.g. fit_seeds=0,1")
    trials = (_integers(given, "trials", "a whole number, e.g. trials=40") or [TRIALS])[0]
    if "trials" in given and "," in given["trials"]:
        raise ConfigError(f"trials={given['trials']} is invalid; valid: a whole number, e.g. trials=40")
    if trials < 1:
        raise ConfigError(f"trials={trials} must be at least 1")
    mode = given.get("mode", "shared")
    if mode not in MODES:
        raise ConfigError(f"mode={mode!r} is not a fit mode; valid modes: {', '.join(MODES)}")
    reference = [Path(p) for p in given["reference"].split(",") if p] if "reference" in given else None
    if reference == []:
        raise ConfigError(f"reference= names no directory; {USAGE}")
    if reference is None and fit_seeds is not None:
        raise ConfigError("fit_seeds= chooses among the seeds of the runs given as reference=A,B,C; give them")
    if reference is not None and rest:
        raise ConfigError(
            f"reference= reuses that run's overrides; drop {' '.join(rest)}, or drop reference= to "
            "run a new reference with them"
        )
    out = Path(given["out"]) if "out" in given else None
    return Args(graph, reference, fit, fit_seeds, trials, mode, out, rest, tracking)


def _package_version() -> str:
    try:
        return version("dialectica")
    except PackageNotFoundError:
        return "unknown"


def _label(point: dict[str, Any]) -> str:
    from dialectica.sim.analysis.validity import label  # lazy: start-up (numpy)

    return label(point)


def evaluate(
    reference: Reference,
    calibrated: list[list[FullRecord]],
    fit: list[int],
    stats: Callable[[list[FullRecord]], dict[str, float]],
) -> dict[str, Any]:
    """Per grid point the three casts' rates (the LLM's with its Wilson interval) and whether the calibrated and
    the authored rates lie inside it; Spearman of each scripted cast against the LLM; the behaviour statistics
    of all three over the whole grid."""
    import numpy as np

    from dialectica.metrics.stats import wilson_interval  # lazy: start-up (numpy)
    from dialectica.sim.analysis.validity import _correlations  # lazy: start-up (numpy)

    rows = []
    for i, point in enumerate(reference.points):
        k, n = converged(reference.llm[i])
        low, high = wilson_interval(k, n)
        row: dict[str, Any] = {
            "config": _label(point),
            "split": "fit" if i in fit else "held-out",
            "llm_rate": k / n,
            "llm_ci95_low": low,
            "llm_ci95_high": high,
            "scripted_rate": rate(reference.scripted[i]),
            "calibrated_rate": rate(calibrated[i]),
        }
        row |= {f"{c}_inside_llm_ci": bool(low <= row[f"{c}_rate"] <= high) for c in ("scripted", "calibrated")}
        rows.append(row)
    llm = np.array([r["llm_rate"] for r in rows])
    spearman = {c: _correlations(np.array([r[f"{c}_rate"] for r in rows]), llm)[0] for c in ("scripted", "calibrated")}
    held = [r for r in rows if r["split"] == "held-out"]

    def flat(groups: list[list[FullRecord]]) -> list[FullRecord]:
        return [r for rows in groups for r in rows]

    behaviour = {
        "llm": stats(flat(reference.llm)),
        "scripted": stats(flat(reference.scripted)),
        "calibrated": stats(flat(calibrated)),
    }
    return {
        "configs": rows,
        "spearman": spearman,
        "held_out_inside": {c: sum(r[f"{c}_inside_llm_ci"] for r in held) for c in ("scripted", "calibrated")},
        "held_out": len(held),
        "behaviour": behaviour,
    }


def _num(v: float | None) -> str:
    return "undefined" if v is None or v != v else f"{v:.2f}"


def markdown(graph: str, report: dict[str, Any], docs: dict[str, str]) -> str:
    ev = report["evaluation"]
    lines = [
        f"# Calibration: {graph} against {report['provenance']['model'].get('model', '?')} "
        f"({report['provenance']['episodes']} episodes per point and seed)",
        "",
        "| config | split | LLM rate (95% CI) | authored scripted | inside | calibrated | inside |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in ev["configs"]:
        inside = {c: "yes" if r[f"{c}_inside_llm_ci"] else "no" for c in ("scripted", "calibrated")}
        lines.append(
            f"| {r['config']} | {r['split']} | {r['llm_rate']:.2f} ({r['llm_ci95_low']:.2f}-"
            f"{r['llm_ci95_high']:.2f}) | {r['scripted_rate']:.2f} | {inside['scripted']}"
            f" | {r['calibrated_rate']:.2f} | {inside['calibrated']} |"
        )
    lines += [
        "",
        f"Held-out points inside the LLM's 95% interval: authored {ev['held_out_inside']['scripted']}/"
        f"{ev['held_out']}, calibrated {ev['held_out_inside']['calibrated']}/{ev['held_out']}. "
        f"Spearman with the LLM over the grid: authored {_num(ev['spearman']['scripted'])}, calibrated "
        f"{_num(ev['spearman']['calibrated'])}. Fit loss: authored {report['fit']['authored_loss']:.3f}, "
        f"calibrated {report['fit']['loss']:.3f}. Fitted on seeds "
        f"{', '.join(map(str, report['provenance']['fit_seeds']))}.",
        *seeds.markdown(ev["held_out_seeds"]),
        "",
        "| statistic | LLM | authored scripted | calibrated | meaning |",
        "|---|---|---|---|---|",
    ]
    b = ev["behaviour"]
    for name in b["llm"]:
        lines.append(
            f"| {name} | {_num(b['llm'][name])} | {_num(b['scripted'].get(name))} | "
            f"{_num(b['calibrated'].get(name))} | {docs.get(name, '')} |"
        )
    offset = report["mode"] == "offset"
    values = ", ".join(f"{k}={v:+.3g}" if offset else f"{k}={v:.3g}" for k, v in report["values"].items())
    if offset:
        lines += ["", f"Offsets added to each persona's authored value (within each knob's range): {values}"]
        lines += [f"- {pid}: " + ", ".join(f"{k}={v:.3g}" for k, v in vs.items()) for pid, vs in report["personas"].items()]
    else:
        lines += ["", f"Calibrated values (every persona): {values}"]
    return "\n".join(lines) + "\n"


def plot(graph: str, report: dict[str, Any], path: Path) -> Path:
    import numpy as np

    rows = report["evaluation"]["configs"]
    fig, ax = subplots(figsize=(max(5.0, 1.2 * len(rows)), 3.6))
    x = np.arange(len(rows))
    llm = np.array([r["llm_rate"] for r in rows])
    ax.fill_between(
        x,
        [r["llm_ci95_low"] for r in rows],
        [r["llm_ci95_high"] for r in rows],
        color="#dd8452",
        alpha=0.2,
        label="LLM 95% CI",
    )
    ax.plot(x, llm, "o-", color="#dd8452", label="LLM cast")
    ax.plot(x, [r["scripted_rate"] for r in rows], "s--", color="#4c72b0", label="authored scripted")
    ax.plot(x, [r["calibrated_rate"] for r in rows], "^-", color="#55a868", label="calibrated scripted")
    for i, r in enumerate(rows):
        if r["split"] == "held-out":
            ax.axvspan(i - 0.4, i + 0.4, color="#999999", alpha=0.12, lw=0)
    ax.set_xticks(x, [r["config"] + ("\n(held out)" if r["split"] == "held-out" else "") for r in rows], fontsize=8)
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("convergence rate")
    ax.set_title(f"{graph}: calibrated scripted cast against the LLM", fontsize=10)
    ax.legend(fontsize=7)
    return save(fig, path)


def _log(args: Args, cwd: Path, report: dict[str, Any], files: list[Path]) -> None:
    """An MLflow run ``calibrate <graph>``: the fitted values as params, the match as metrics, the report and set."""
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, sqlite3)
    from dialectica.sim.tracking.runs import Tracker  # lazy: start-up (omegaconf, sqlite3)

    with tempfile.TemporaryDirectory() as tmp:
        tracking = load([f"graph={args.graph}", *args.tracking], out_dir=Path(tmp), cwd=cwd).tracking
    ev = report["evaluation"]
    with Tracker(tracking).run(
        f"calibrate {args.graph}",
        {"calibration": "true", "graph": args.graph},
        f"dialectica calibrate: {report['provenance']['command']}",
    ) as log:
        log.params(
            {
                "graph": args.graph,
                "reference": report["provenance"]["reference"],
                "fit_seeds": ",".join(map(str, report["provenance"]["fit_seeds"])),
                "validation_seeds": ",".join(map(str, report["provenance"]["validation_seeds"])) or "none",
                "trials": args.trials,
                "mode": report["mode"],
                **{f"{'offset' if report['mode'] == 'offset' else 'value'}.{k}": v for k, v in report["values"].items()},
            }
        )
        log.metrics(
            {
                "loss": report["fit"]["loss"],
                "authored_loss": report["fit"]["authored_loss"],
                "held_out_inside_llm_ci": ev["held_out_inside"]["calibrated"] / max(1, ev["held_out"]),
                **{
                    f"held_out_seed_inside.{'authored' if c == 'scripted' else c}": share
                    for c, share in ev["held_out_seeds"]["share"].items()
                    if share is not None
                },
                **({"spearman_with_llm": ev["spearman"]["calibrated"]} if ev["spearman"]["calibrated"] is not None else {}),
            }
        )
        for path in files:
            log.artifact(path)


@dataclass(frozen=True)
class _Cast:
    """The reference's graph run with its scripted cast, as a fit trial plays it (each trial's values set)."""

    graph: str
    calibration: Calibration
    offset: bool  # a trial's values shift each persona's authored ones (mode=offset) instead of replacing them
    authored: dict[str, dict[str, float]]
    graph_run: GraphRun
    episodes: int  # per point and seed
    seeds: tuple[int, ...]  # the fit seeds: a trial plays each one's episodes, side by side per point
    embed: Callable[[list[str]], Any] | None
    fit_points: list[dict[str, Any]]

    def calibrated(self, values: dict[str, float]) -> CalibratedSet:
        """The set a trial's values make: one value per knob for every persona, or each persona's authored values
        shifted by the knob's offset."""
        if self.offset:
            return CalibratedSet(self.graph, {}, shifted(self.calibration, self.authored, values))
        return CalibratedSet(self.graph, values)

    def play(
        self,
        values: dict[str, float] | None,
        points: list[dict[str, Any]] | None = None,
        seeds: Sequence[int] | None = None,
    ) -> list[list[FullRecord]]:
        """The scripted records per point (the fit points unless given), the personas set to ``values`` (None: as
        authored), on each of ``seeds`` (the fit seeds unless given) in turn, pooled per point."""
        from dialectica.sim.analysis.calibration.simulate import simulate  # lazy: start-up (omegaconf, langgraph)

        cast = None if values is None else self.calibrated(values)
        points = self.fit_points if points is None else points
        played = [simulate(self.graph_run, points, self.episodes, s, cast, self.embed) for s in seeds or self.seeds]
        return [[r for rows in played for r in rows[i]] for i in range(len(points))]

    def stats(self, records: list[FullRecord]) -> dict[str, float]:
        return statistics(self.calibration, records)


def _reference_dirs(args: Args, cwd: Path, echo: Callable[[str], None]) -> list[Path]:
    """The ``dialectica validity`` directories given as ``reference=``, or one run now with the other arguments."""
    if args.reference is not None:
        return [path if path.is_absolute() else cwd / path for path in args.reference]
    from dialectica.sim.analysis import validity  # lazy: start-up (numpy)

    echo(f"no reference= given: running one (dialectica validity graph={args.graph} {' '.join(args.rest)})")
    return [Path(validity.run([f"graph={args.graph}", *args.rest, *args.tracking], cwd=cwd, echo=echo)["out_dir"])]


def _cast(
    args: Args, spec: GraphSpec, calibration: Calibration, references: list[Reference], fit: list[int], cwd: Path
) -> _Cast:
    """The graph run under the (first fit) reference's overrides with the scripted cast (and the embedder, where it
    embeds), playing the fit references' seeds."""
    reference = references[0]
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, sqlite3)

    with tempfile.TemporaryDirectory() as tmp:
        given = [f"graph={args.graph}", *reference.overrides, "participants=scripted", "tracking=none"]
        cfg = load(given, out_dir=Path(tmp), cwd=cwd)
    graph_run = cfg.graphs[0]
    embed = None
    if spec.embeds and cfg.embedding_cache is not None:
        from dialectica.sim.engine.embedding import Embedder  # lazy: start-up (numpy, sqlite3)

        embed = Embedder(cfg.embedding_cache)
    fit_points = [reference.points[i] for i in fit]
    authored = authored_personas(calibration, graph_run.scenarios)
    offset = args.mode == "offset"
    fit_seeds = tuple(r.seed for r in references)
    return _Cast(args.graph, calibration, offset, authored, graph_run, reference.episodes, fit_seeds, embed, fit_points)


def _fit(cast: _Cast, args: Args, reference: Reference, fit: list[int], shown: str, echo: Callable[[str], None]) -> Fit:
    """Optuna's search for the values whose scripted cast matches the LLM's statistics and rates at the fit points."""
    from dialectica.sim.engine.progress import bar  # lazy: start-up (tqdm, langchain-core)

    calibration = cast.calibration
    target = cast.stats([r for i in fit for r in reference.llm[i]])
    target_rates = [rate(reference.llm[i]) for i in fit]
    echo(
        f"fitting {len(calibration.knobs)} knobs of {args.graph} ({args.mode}) on {len(fit)} of "
        f"{len(reference.points)} grid points ({cast.episodes} episodes each on seeds "
        f"{', '.join(map(str, cast.seeds))}), {args.trials} trials; reference {shown}"
    )
    space = offset_knobs(calibration) if cast.offset else calibration.knobs
    trials = bar(f"calibrate {args.graph}", args.trials, "trial")

    def progress(i: int, best: float) -> None:
        trials.update(1)
        trials.set_postfix(best_loss=f"{best:.3f}")

    result = search(
        calibration,
        cast.play,
        target,
        target_rates,
        args.trials,
        seed=reference.seed,
        progress=progress,
        start={k.name: 0.0 for k in space} if cast.offset else authored_mean(calibration, cast.graph_run.scenarios),
        knobs=space,
        local=cast.offset,
    )
    trials.close()
    return result


def _command(args: Args, shown: Path | str) -> str:
    """The command that reruns this fit against the same reference."""
    return " ".join(
        [
            "dialectica calibrate",
            f"graph={args.graph}",
            f"reference={shown}",
            *([f"fit_seeds={','.join(map(str, args.fit_seeds))}"] if args.fit_seeds else []),
            *([f"fit={','.join(map(str, args.fit))}"] if args.fit else []),
            f"trials={args.trials}",
            *([f"mode={args.mode}"] if args.mode != "shared" else []),
            *([f"out={args.out}"] if args.out else []),
        ]
    )


def _provenance(
    args: Args,
    references: list[Reference],
    split_seeds: tuple[list[int], list[int]],
    fit: list[int],
    shown: str,
    now: datetime,
) -> dict[str, Any]:
    """Where the calibrated set comes from: the references' model, seeds, grid and overrides, the splits (seeds
    and grid points), the fit."""
    reference = references[0]
    fit_seeds, held_seeds = split_seeds
    held = [i for i in range(len(reference.points)) if i not in fit]
    n = reference.episodes
    return {
        "model": reference.model,
        "reference": shown,
        "seed": fit_seeds[0] if len(fit_seeds) == 1 else fit_seeds,
        "fit_seeds": fit_seeds,
        "validation_seeds": held_seeds,
        "episodes": n,
        "episode_indices": [0, n - 1],
        "grid": {k: [p[k] for p in reference.points] for k in reference.points[0]},
        "fit_points": [_label(reference.points[i]) for i in fit],
        "held_out_points": [_label(reference.points[i]) for i in held],
        "overrides": [o for o in reference.overrides if not o.startswith("seed=")],  # seeds: fit_/validation_seeds
        "trials": args.trials,
        "sampler": "optuna CmaEsSampler" if args.mode == "offset" else "optuna TPESampler",
        "mode": args.mode,
        "date": now.isoformat(timespec="seconds"),
        "dialectica_version": _package_version(),
        "command": _command(args, shown),
    }


def _summary(result: Fit, evaluation: dict[str, Any]) -> dict[str, Any]:
    """The fit's losses and the calibrated cast's match, as the calibrated set records them."""
    return {
        "loss": result.loss,
        "authored_loss": result.authored_loss,
        "held_out_inside_llm_ci": f"{evaluation['held_out_inside']['calibrated']}/{evaluation['held_out']}",
        **(
            {
                "held_out_seed_inside_llm_ci": f"{seeded['inside']['calibrated']}/{seeded['total']}",
                "authored_held_out_seed_inside_llm_ci": f"{seeded['inside']['scripted']}/{seeded['total']}",
            }
            if (seeded := evaluation["held_out_seeds"])["total"]
            else {}
        ),
        "spearman_with_llm": evaluation["spearman"]["calibrated"],
        "statistics": {
            name: {
                "llm": evaluation["behaviour"]["llm"][name],
                "calibrated": evaluation["behaviour"]["calibrated"].get(name),
            }
            for name in evaluation["behaviour"]["llm"]
        },
    }


def write_set(path: Path, calset: CalibratedSet) -> Path:
    """Writes the calibrated set whole or not at all (a temporary file renamed into place), its folder made first."""
    from dialectica.sim.records import json_safe  # lazy: start-up (pydantic)

    text = HEADER + yaml.safe_dump(json_safe(calset.to_dict()), sort_keys=False, allow_unicode=True, width=110)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(text)
    tmp.replace(path)
    return path


def _write_report(
    args: Args, cwd: Path, report: dict[str, Any], now: datetime, calibration: Calibration
) -> tuple[Path, str]:
    """Writes ``calibration.json``, ``.md`` and ``.png`` under ``results/calibration/<graph>-<time>/``; returns
    that folder and the markdown."""
    out = cwd / "results" / "calibration" / f"{discovery.folder_name(args.graph)}-{now:%Y-%m-%d_%H-%M-%S}"
    out.mkdir(parents=True, exist_ok=True)
    (out / "calibration.json").write_text(json.dumps(report, indent=2))
    text = markdown(args.graph, report, dict(calibration.docs))
    (out / "calibration.md").write_text(text)
    plot(args.graph, report, out / "calibration.png")
    return out, text


def _echo_outcome(echo: Callable[[str], None], result: Fit, target_path: Path, report: dict[str, Any], out: Path) -> None:
    """Says whether the calibrated set was written, and why not where it was not."""
    as_written, written = report["fit"]["as_written"], report["calibrated_set"] is not None
    seeded = report["evaluation"]["held_out_seeds"]
    kept = f"{target_path} is left as it was" if target_path.exists() else f"nothing is written to {target_path}"
    held = f"seed{'s' * (len(seeded['seeds']) != 1)} {','.join(map(str, seeded['seeds']))}"
    if as_written:
        echo(f"no shift fitted better than the personas as written: {target_path} holds them as written")
    if not (result.loss < result.authored_loss or as_written):
        echo(
            f"calibrated set not written: the fit's loss {result.loss:.3f} is no lower than the authored cast's "
            f"{result.authored_loss:.3f}, so {kept} (try more trials= or other fit= points)"
        )
    elif not written:
        k, n = seeded["inside"], seeded["total"]
        echo(
            f"calibrated set not written: on the held-out {held} the calibrated "
            f"cast lies inside the LLM's 95% interval in {k['calibrated']}/{n} cells, fewer than the authored cast's "
            f"{k['scripted']}/{n}, so {kept} (try more trials=, fit seeds or fit= points)"
        )
    echo(f"calibrated set: {target_path if written else 'not written'}\nreport: {out}")


def _shown(paths: list[Path], cwd: Path) -> str:
    """The references as the provenance names them: relative to where it ran (results/validity/...) when under
    it, so that a set committed to the repository names no machine's paths; comma-separated."""
    return ",".join(
        os.path.relpath(path, cwd) if path.resolve().is_relative_to(cwd.resolve()) else str(path) for path in paths
    )


def _evaluate(
    cast: _Cast, values: dict[str, float], pooled: Reference, fit: list[int], held: list[Reference]
) -> dict[str, Any]:
    """The calibrated cast against the pooled fit references at every grid point, and against each held-out
    seed's reference at every point (``held_out_seeds``)."""
    evaluation = evaluate(pooled, cast.play(values, pooled.points), fit, cast.stats)
    played = {ref.seed: cast.play(values, ref.points, [ref.seed]) for ref in held}
    evaluation["held_out_seeds"] = seeds.held_out_seeds(held, played)
    return evaluation


def run(argv: Sequence[str], cwd: Path | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    cwd = cwd or Path.cwd()
    args = parse(argv)
    spec = discovery.load(args.graph)
    calibration = spec.calibration
    assert calibration is not None  # parse checked
    dirs = _reference_dirs(args, cwd, echo)
    shown = _shown(dirs, cwd)
    references = seeds.load_references(dirs, args.graph)
    fit_seeds, held_seeds = seeds.choose_seeds([r.seed for r in references], args.fit_seeds)
    fitted_on = [r for r in references if r.seed in fit_seeds]
    reference = seeds.pool(fitted_on)
    fit, _ = split(len(reference.points), args.fit)
    cast = _cast(args, spec, calibration, fitted_on, fit, cwd)
    result = _fit(cast, args, reference, fit, shown, echo)
    evaluation = _evaluate(cast, result.values, reference, fit, [r for r in references if r.seed in held_seeds])
    now = datetime.now(UTC)
    provenance = _provenance(args, references, (fit_seeds, held_seeds), fit, shown, now)
    report = _conclude(args, cast, result, evaluation, provenance)
    out, text = _write_report(args, cwd, report, now, calibration)
    written = [Path(report["calibrated_set"])] if report["calibrated_set"] else []
    _log(args, cwd, report, [out / "calibration.json", out / "calibration.md", out / "calibration.png", *written])
    echo(text)
    _echo_outcome(echo, result, args.out or calsets.path_for(cast.graph_run.datasets), report, out)
    return dict(report)


def _conclude(
    args: Args, cast: _Cast, result: Fit, evaluation: dict[str, Any], provenance: dict[str, Any]
) -> dict[str, Any]:
    """Writes the calibrated set where it fits better than the personas as written and holds on the held-out seeds
    at least as often as they do; the report saying so."""
    from dialectica.sim.records import json_safe  # lazy: start-up (pydantic)

    fitted = cast.calibrated(result.values)
    chosen = CalibratedSet(args.graph, fitted.shared, fitted.personas, provenance, _summary(result, evaluation))
    target_path = args.out or calsets.path_for(cast.graph_run.datasets)
    # a set that fits the reference worse than the personas as written, or that lies inside the LLM's interval on
    # seeds the fit never saw less often than they do, would only mislead whoever plays it; an offset fit whose best
    # is no shift at all writes the personas as written, now with this reference's provenance
    as_written = cast.offset and not any(result.values.values())
    better = (result.loss < result.authored_loss or as_written) and not seeds.worse(evaluation["held_out_seeds"])
    if better:
        write_set(target_path, chosen)
    report: dict[str, Any] = json_safe(
        {
            "graph": args.graph,
            "mode": args.mode,
            "values": result.values,
            "personas": fitted.personas,
            "provenance": provenance,
            "fit": {
                "loss": result.loss,
                "authored_loss": result.authored_loss,
                "as_written": as_written,
                "trials": result.trials,
            },
            "evaluation": evaluation,
            "held_out_seed_inside": evaluation["held_out_seeds"]["share"],
            "calibrated_set": str(target_path) if better else None,
        }
    )
    return report
