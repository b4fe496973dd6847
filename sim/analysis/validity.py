"""``dialectica validity``: does the ranking of configurations found with scripted casts hold with LLM casts?

One grid of the graph's thresholds (its spec's ``grid``, or ``grid.<param>=a,b,c``) runs twice on the same
seeds and scenarios: once with every role scripted, once with an LLM playing the graph's participants
(``participants=surrogate``; a graph without participant roles has its own roles played by the LLM instead),
on the local reference model (``REFERENCE_PRESET``) unless another is given. Per configuration the headline
rate (episodes ending ``converged``) of each cast, with Wilson intervals; across configurations the Spearman
and Kendall coefficients between the two casts' rates, with a bootstrap 95% interval that resamples episodes
(the same episode indices for every configuration and both casts, since they share seeds). Where the graph has
a calibrated set (``dialectica calibrate``), a third cast, ``participants=calibrated``, runs too: its rate per
configuration, whether it lies inside the LLM's interval, and its own rank agreement with the LLM. Writes
``validity.json``, ``validity.md`` and ``validity.png`` under ``results/validity/<graph>-<time>/`` and logs
them to an MLflow parent run whose children are the grid's runs. Other arguments are config overrides for
every cast (``episodes=``, ``seed=``, ``llm=openai llm.base_url=...``, ``max_concurrency=``,
``tracking=none``...).
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from dialectica.metrics import converged
from dialectica.metrics.stats import wilson_interval
from dialectica.sim.authoring.params import ConfigError, closest, did_you_mean
from dialectica.sim.authoring.plots import save, subplots
from dialectica.sim.config import calset, discovery
from dialectica.sim.engine.embedding import Embedder

DEFAULT_EPISODES = 8
# The reference a scripted cast is judged and calibrated against: the strongest instruct model the package
# registries ship (README "Choosing the local model"); SmolLM2-135M, the llamacpp default, fails the tasks.
REFERENCE_PRESET = "qwen2.5-coder-1.5b"
BOOTSTRAP = 2000


def grid_points(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, in the grid's order."""
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*(grid[k] for k in keys))]


def label(point: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items())


def _correlations(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Spearman and Kendall between two vectors of rates; NaN where either is constant (no ranking)."""
    from scipy.stats import kendalltau, spearmanr

    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan"), float("nan")
    return float(spearmanr(a, b).statistic), float(kendalltau(a, b).statistic)


@dataclass(frozen=True)
class Agreement:
    """Rank agreement between two casts over the same configurations and episodes.

    Attributes:
        scripted, llm: 0/1 outcomes, one row per configuration, one column per episode index.
    """

    scripted: np.ndarray
    llm: np.ndarray

    def point(self) -> tuple[float, float]:
        return _correlations(self.scripted.mean(axis=1), self.llm.mean(axis=1))

    def bootstrap(self, samples: int = BOOTSTRAP, seed: int = 0) -> dict[str, Any]:
        """Percentile 95% intervals of both coefficients over episode resamples, and the share of resamples
        in which a coefficient is undefined (a cast's rates all equal)."""
        rng = np.random.default_rng(seed)
        n = self.scripted.shape[1]
        draws = np.array(
            [
                _correlations(self.scripted[:, idx].mean(axis=1), self.llm[:, idx].mean(axis=1))
                for idx in rng.integers(0, n, size=(samples, n))
            ]
        )
        out: dict[str, Any] = {}
        for column, name in enumerate(("spearman", "kendall")):
            values = draws[:, column][~np.isnan(draws[:, column])]
            low, high = np.percentile(values, [2.5, 97.5]) if len(values) else (float("nan"), float("nan"))
            out[name] = {
                "ci95_low": float(low),
                "ci95_high": float(high),
                "undefined_share": float(1 - len(values) / samples),
            }
        return out


def outcomes(episodes: Path, graph: str, n: int) -> np.ndarray:
    """1 for each episode of ``graph`` that converged, 0 otherwise, in episode order."""
    from dialectica.sim.records import read  # lazy: start-up (pydantic)

    rows = sorted(read(episodes, graph, keep=False), key=lambda r: r["episode"])
    if len(rows) != n:
        raise RuntimeError(f"{episodes}: {len(rows)} episodes of {graph}, expected {n}")
    return np.array([converged(r) for r in rows], dtype=float)


def unread(episodes: Path, graph: str) -> dict[str, int]:
    """What the harness could not read of a cast's replies over one run: its model calls, the replies that
    stayed empty or never parsed after retries, and the episodes that ended in an error. A gap between the
    casts that these explain is the harness's, not the model's."""
    from dialectica.sim.records import read  # lazy: start-up (pydantic)

    rows = list(read(episodes, graph, keep=False))
    usage = [r.get("usage") or {} for r in rows]
    return {
        "calls": sum(int(u.get("llm_calls", 0)) for u in usage),
        "unread_replies": sum(int(u.get("parse_failures", 0)) + int(u.get("empty_replies", 0)) for u in usage),
        "errors": sum(r["termination_reason"] == "error" for r in rows),
    }


def summarise(points: list[dict[str, Any]], agreement: Agreement, calibrated: np.ndarray | None = None) -> dict[str, Any]:
    """Per configuration each cast's rate with its Wilson interval; the rank agreement of the scripted cast with
    the LLM's and, given the calibrated cast's outcomes, whether its rate lies inside the LLM's interval and
    its own rank agreement."""
    casts = {"scripted": agreement.scripted, "llm": agreement.llm}
    if calibrated is not None:
        casts["calibrated"] = calibrated
    rows = []
    for i, point in enumerate(points):
        row: dict[str, Any] = {"config": label(point), **{f"graph.{k}": v for k, v in point.items()}}
        for cast, matrix in casts.items():
            k, n = int(matrix[i].sum()), matrix.shape[1]
            low, high = wilson_interval(k, n)
            row |= {f"{cast}_rate": k / n, f"{cast}_ci95_low": low, f"{cast}_ci95_high": high}
        for cast in casts.keys() - {"llm"}:  # one test for every cast, as calibrate's: inside the LLM's interval
            row[f"{cast}_inside_llm_ci"] = row["llm_ci95_low"] <= row[f"{cast}_rate"] <= row["llm_ci95_high"]
        rows.append(row)
    spearman, kendall = agreement.point()
    intervals = agreement.bootstrap()
    report = {
        "episodes": int(agreement.scripted.shape[1]),
        "configs": rows,
        "spearman": spearman,
        "kendall": kendall,
        **{f"{k}_bootstrap": v for k, v in intervals.items()},
    }
    if calibrated is not None:
        tuned = Agreement(calibrated, agreement.llm)
        spearman, kendall = tuned.point()
        report |= {
            "calibrated_spearman": spearman,
            "calibrated_kendall": kendall,
            **{f"calibrated_{k}_bootstrap": v for k, v in tuned.bootstrap().items()},
        }
    return report


def _num(v: float) -> str:
    return "undefined" if v != v else f"{v:.2f}"


def markdown(graph: str, report: dict[str, Any]) -> str:
    calibrated = "calibrated_spearman" in report
    read = all("llm_calls" in r for r in report["configs"])
    lines = [
        f"# Validity: {graph}, {report['episodes']} episodes per configuration and cast",
        "",
        "| config | scripted rate (95% CI) | LLM rate (95% CI) | scripted inside LLM CI |"
        + (" calibrated rate (95% CI) | calibrated inside LLM CI |" if calibrated else "")
        + (" LLM replies unread | LLM episodes in error |" if read else ""),
        "|---|---|---|---|" + ("---|---|" if calibrated else "") + ("---|---|" if read else ""),
    ]
    for r in report["configs"]:
        cells = [
            f"{r[f'{c}_rate']:.2f} ({r[f'{c}_ci95_low']:.2f}-{r[f'{c}_ci95_high']:.2f})"
            for c in ("scripted", "llm", *(["calibrated"] if calibrated else []))
        ]
        line = f"| {r['config']} | {cells[0]} | {cells[1]} | {'yes' if r['scripted_inside_llm_ci'] else 'no'} |"
        if calibrated:
            line += f" {cells[2]} | {'yes' if r['calibrated_inside_llm_ci'] else 'no'} |"
        if read:
            line += f" {r['llm_unread_replies']} of {r['llm_calls']} | {r['llm_errors']} |"
        lines.append(line)
    for prefix, who in (("", "Scripted"), *((("calibrated_", "Calibrated"),) if calibrated else ())):
        for name in ("spearman", "kendall"):
            b = report[f"{prefix}{name}_bootstrap"]
            lines.append(
                f"\n{who} against LLM, {name.capitalize()}: {_num(report[prefix + name])} (bootstrap 95% CI "
                f"{_num(b['ci95_low'])} to {_num(b['ci95_high'])}; undefined in {b['undefined_share']:.0%} of "
                "resamples)"
            )
    return "\n".join(lines) + "\n"


def plot(graph: str, report: dict[str, Any], path: Path) -> Path:
    fig, ax = subplots(figsize=(max(5.0, 1.3 * len(report["configs"])), 3.6))
    x = np.arange(len(report["configs"]))
    series = [(-0.08, "scripted", "#4c72b0"), (0.08, "llm", "#dd8452")]
    if "calibrated_spearman" in report:
        series.append((0.0, "calibrated", "#55a868"))
    for offset, cast, colour in series:
        rates = np.array([r[f"{cast}_rate"] for r in report["configs"]])
        errors = np.array(
            [
                [r[f"{cast}_rate"] - r[f"{cast}_ci95_low"], r[f"{cast}_ci95_high"] - r[f"{cast}_rate"]]
                for r in report["configs"]
            ]
        ).T
        ax.errorbar(
            x + offset,
            rates,
            yerr=errors,
            fmt="o-",
            capsize=3,
            color=colour,
            label={"scripted": "scripted cast", "llm": "LLM cast", "calibrated": "calibrated scripted cast"}[cast],
        )
    ax.set_xticks(x, [r["config"] for r in report["configs"]], rotation=15, fontsize=8)
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("convergence rate")
    ax.set_title(f"{graph}: Spearman {_num(report['spearman'])}, Kendall {_num(report['kendall'])}", fontsize=10)
    ax.legend(fontsize=8)
    return save(fig, path)


def _sweeps(override: str) -> bool:
    """Whether Hydra reads ``override`` as a sweep (``a,b``), not one value (``'a, b'``, ``a\\, b``, ``${...}``)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    try:
        return bool(OverridesParser.create().parse_override(override).is_sweep_override())
    except HydraException:  # not an override Hydra reads: the loader says so
        return False


def grid_arguments(
    argv: Sequence[str], command: str = "validity", keys: Sequence[str] = ()
) -> tuple[str, dict[str, list[Any]], dict[str, str], list[str]]:
    """(graph, grid, the command's own ``keys``, the other overrides) from ``graph=NAME grid.<param>=a,b ...``; the
    grid defaults to the graph's own (``GraphSpec.grid``).

    Raises:
        ConfigError: an argument that is not key=value, no or an unknown graph, no grid.
    """
    import yaml

    graph: str | None = None
    grid: dict[str, list[Any]] = {}
    own: dict[str, str] = {}
    rest: list[str] = []
    for arg in argv:
        key, sep, value = arg.partition("=")
        if not sep:
            raise ConfigError(f"{arg!r} is not key=value; see `dialectica {command} --help`")
        if key == "graph":
            graph = value
        elif key.startswith("grid."):
            grid[key[5:]] = [yaml.safe_load(v) for v in value.split(",")]
        elif key in keys:
            own[key] = value
        elif "." not in key and closest(key, keys):
            raise ConfigError(f"unknown key {key}{did_you_mean(key, keys)}; {command}'s own keys: {', '.join(keys)}")
        else:
            rest.append(arg)
    if graph is None:
        raise ConfigError(f"graph= is required; valid choices: {', '.join(discovery.names())}")
    if graph not in discovery.names() and ":" not in graph:
        raise ConfigError(
            f"unknown graph={graph!r}{did_you_mean(graph, discovery.names(), 'graph=')}; valid choices: "
            f"{', '.join(discovery.names())}, or package.module:attr"
        )
    spec = discovery.load(graph)
    known = [k for k in spec.defaults() if k != "name"]
    for key in grid:
        if key.split(".")[0] not in known:
            hint = did_you_mean(key.split(".")[0], known, "grid.")
            raise ConfigError(f"unknown key grid.{key}{hint}; valid keys: {', '.join(f'grid.{k}' for k in known)}")
    grid = grid or {k: list(v) for k, v in spec.grid.items()}
    if not grid:
        raise ConfigError(f"graph {graph} declares no grid; give one, e.g. grid.<param>=a,b,c")
    for arg in rest:  # graph.KEY=a,b meant as the grid (Hydra would refuse it later, less plainly)
        key, _, value = arg.lstrip("+").partition("=")
        listed = "," in value and not key.startswith("hydra.") and _sweeps(arg)
        if key.startswith("graph.") and listed:
            raise ConfigError(f"{arg}: a grid's values go in grid.{key[6:]}={value}; graph.{key[6:]}= takes one value")
        if key.startswith("graph.") and key[6:] in grid:  # the grid's values would replace it, or it them
            raise ConfigError(f"{arg}: {key[6:]} is the grid's (grid.{key[6:]}=...); drop {key}=")
        if not listed:
            continue
        if key == "scenario":
            raise ConfigError(f"{arg}: several scenarios are a list, scenario=[{value}]")
        raise ConfigError(
            f"{arg}: {command} takes one value of {key}; run it once per value (a sweep over {key} is "
            f"dialectica -m {arg} ...)"
        )
    return graph, grid, own, rest


def llm_cast(llm_args: Sequence[str], participants: bool) -> list[str]:
    """The LLM cast's overrides: the graph's participants played by the LLM (its system roles scripted), on the
    local reference model (``REFERENCE_PRESET``) unless ``llm_args`` name another backend, preset or file."""
    named = {a.lstrip("+").partition("=")[0] for a in llm_args}
    backend = next((a.partition("=")[2] for a in llm_args if a.lstrip("+").startswith("llm=")), "llamacpp")
    reference = backend == "llamacpp" and not named & {"llm.preset", "llm.model_path"}
    return [
        "participants=surrogate",
        *([] if "llm" in named else ["llm=llamacpp"]),
        *([f"llm.preset={REFERENCE_PRESET}"] if reference else []),
        *(["llm.system_roles=scripted"] if participants else []),
        *llm_args,
    ]


def _overrides(graph: str, rest: Sequence[str], cast: Sequence[str], point: Mapping[str, Any]) -> list[str]:
    """One run's overrides: the graph, the given ones, the cast's and the grid point's. Each run shows its own
    episode bar (``progress=false`` among the given ones hides it): an LLM cast's point can take an hour."""
    return [f"graph={graph}", *rest, *cast, *(f"graph.{k}={v}" for k, v in point.items())]


def _arguments(argv: list[str]) -> tuple[str, dict[str, list[Any]], list[str], list[str]]:
    """(graph, grid, the other overrides, the LLM cast's ``llm`` ones), ``episodes`` defaulted."""
    graph, grid, _, rest = grid_arguments(argv)
    if not any(a.startswith("episodes=") for a in rest):
        rest.append(f"episodes={DEFAULT_EPISODES}")
    llm_args = [a for a in rest if a.lstrip("+").startswith(("llm=", "llm."))]
    return graph, grid, [a for a in rest if a not in llm_args], llm_args


def _play_grid(
    graph: str,
    rest: list[str],
    casts: dict[str, list[str]],
    points: list[dict[str, Any]],
    out: Path,
    cwd: Path,
    parent_run_id: str | None,
    echo: Any,
) -> tuple[dict[str, list[np.ndarray]], list[dict[str, int]]]:
    """Every grid point under every cast, in order; each run's outcomes (episodes x 1) by cast, and per point
    what the harness could not read of the LLM cast (``unread``)."""
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, sqlite3)
    from dialectica.sim.engine.runner import run as run_config  # lazy: start-up (omegaconf, sqlite3)

    embed = None
    matrices: dict[str, list[np.ndarray]] = {cast: [] for cast in casts}
    reading: list[dict[str, int]] = []
    for i, point in enumerate(points):
        for cast in casts:
            given = _overrides(graph, rest, casts[cast], point)
            cfg = load(given, out_dir=out / f"{i}-{cast}", cwd=cwd, parent_run_id=parent_run_id)
            if embed is None and cfg.embedding_cache is not None:
                embed = Embedder(cfg.embedding_cache)
            echo(
                f"[{len(casts) * i + list(casts).index(cast) + 1}/{len(casts) * len(points)}] {graph} "
                f"{label(point)}, {cast} cast"
            )
            run_config(cfg, echo=lambda _: None, embed=embed)
            matrices[cast].append(outcomes(cfg.out_dir / "episodes.jsonl", graph, cfg.episodes))
            if cast == "llm":
                reading.append(unread(cfg.out_dir / "episodes.jsonl", graph))
    return matrices, reading


def _write(graph: str, report: dict[str, Any], out: Path, parent: Any) -> None:
    """``validity.json``, ``.md`` and ``.png`` under ``out``, and logged to the parent MLflow run with its params
    and the defined correlations."""
    (out / "validity.json").write_text(json.dumps(report, indent=2, default=str))
    (out / "validity.md").write_text(markdown(graph, report))
    plot(graph, report, out / "validity.png")
    parent.params(
        {
            "graph": graph,
            "grid": json.dumps(report["grid"]),
            "llm_cast": " ".join(report["llm_cast"]),
            "episodes": report["episodes"],
        }
    )
    parent.metrics(
        {
            k: report[k]
            for k in ("spearman", "kendall", "calibrated_spearman", "calibrated_kendall")
            if k in report and report[k] == report[k]
        }
    )
    for name in ("validity.json", "validity.md", "validity.png"):
        parent.artifact(out / name)


def run(argv: list[str], cwd: Path | None = None, echo: Any = print) -> dict[str, Any]:
    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, sqlite3)
    from dialectica.sim.tracking.runs import Tracker  # lazy: start-up (omegaconf, sqlite3)

    cwd = cwd or Path.cwd()
    graph, grid, rest, llm_args = _arguments(argv)
    spec = discovery.load(graph)
    participants = any(kind == "participant" for kind in spec.roles.values())
    casts = {"scripted": ["participants=scripted"], "llm": llm_cast(llm_args, participants)}
    points = grid_points(grid)
    out = cwd / "results" / "validity" / f"{discovery.folder_name(graph)}-{datetime.now():%Y-%m-%d_%H-%M-%S}"
    # fails fast on bad input: every grid point's config is checked before the first episode runs
    base = load([f"graph={graph}", *rest, *casts["llm"]], out_dir=out / "check", cwd=cwd)
    for point in points:
        load(_overrides(graph, rest, casts["llm"], point), out_dir=out / "check", cwd=cwd)
    if spec.calibration is not None and calset.path_for(base.graphs[0].datasets).is_file():
        casts["calibrated"] = ["participants=calibrated"]  # the graph's calibrated set: its column in the report
    tracker = Tracker(base.tracking)
    with tracker.run(f"validity {graph}", {"validity": "true", "graph": graph, "out_dir": str(out)}) as parent:
        matrices, reading = _play_grid(graph, rest, casts, points, out, cwd, parent.run_id, echo)
        agreement = Agreement(np.stack(matrices["scripted"]), np.stack(matrices["llm"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on constant inputs; those are reported as undefined
            calibrated = np.stack(matrices["calibrated"]) if "calibrated" in matrices else None
            report = summarise(points, agreement, calibrated) | {
                "graph": graph,
                "grid": grid,
                "llm_cast": casts["llm"],
                "overrides": rest,
                "out_dir": str(out),
            }
            if "calibrated" in casts:  # which set filled the calibrated column
                report["calibrated_set"] = calset.fingerprint(calset.path_for(base.graphs[0].datasets))
        for row, seen in zip(report["configs"], reading, strict=True):
            row |= {f"llm_{k}": v for k, v in seen.items()}
        _write(graph, report, out, parent)
    echo(markdown(graph, report))
    echo(f"written: {out}")
    return report
