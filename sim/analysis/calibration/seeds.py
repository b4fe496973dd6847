"""Seed hold-out for ``dialectica calibrate``: several references of one graph and grid at different seeds,
split into the seeds the fit pools and the seeds it is judged on.

A fit that sees one seed's episodes can learn those episodes rather than the model's behaviour; held-out grid
points on the same seed do not show it. References at other seeds do: per held-out seed and grid point the
LLM's rate with its 95% Wilson interval, and whether the authored and the calibrated scripted casts lie inside.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dialectica.metrics import FullRecord
from dialectica.sim.analysis.calibration.fit import Reference, converged, load_reference, rate
from dialectica.sim.authoring.params import ConfigError

CASTS = ("scripted", "calibrated")  # the authored scripted cast, the calibrated one


def _label(point: Mapping[str, Any]) -> str:
    from dialectica.sim.analysis.validity import label  # lazy: start-up (numpy, yaml)

    return label(point)


def _grid(ref: Reference) -> str:
    return ", ".join(_label(p) for p in ref.points)


def _differs(key: str, ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str | None:
    """``key.name ours against theirs`` for the first name whose values differ, else None."""
    name = next((k for k in sorted(ours.keys() | theirs.keys()) if ours.get(k) != theirs.get(k)), None)
    return None if name is None else f"{key}.{name} {ours.get(name)} against {theirs.get(name)}"


def check_agreement(references: Sequence[Reference]) -> None:
    """One-line ``ConfigError`` naming the first reference that differs from the first one in graph, grid,
    episodes per point, the graph's settings or the model, that is given twice, or that repeats another's seed
    (the same episodes twice): a fit pools their episodes as one configuration's."""
    first = references[0]
    seen: dict[int, Path] = {first.seed: first.dir}
    for ref in references[1:]:
        mismatch = None
        if ref.dir.resolve() in {d.resolve() for d in seen.values()}:
            raise ConfigError(f"reference={ref.dir} is given twice; give each reference once")
        if ref.graph != first.graph:
            mismatch = f"graph {ref.graph} against {first.graph}"
        elif ref.points != first.points:
            mismatch = f"grid {_grid(ref)} against {_grid(first)}"
        elif ref.episodes != first.episodes:
            mismatch = f"{ref.episodes} episodes per point against {first.episodes}"
        elif found := _differs("graph", ref.settings, first.settings) or _differs("llm", ref.model, first.model):
            mismatch = f"{found}; give references of one configuration, at different seeds"
        elif ref.seed in seen:
            mismatch = f"seed {ref.seed} like reference={seen[ref.seed]}; give references at different seed= values"
        if mismatch:
            raise ConfigError(f"reference={ref.dir} does not agree with reference={first.dir}: {mismatch}")
        seen[ref.seed] = ref.dir


def load_references(paths: Sequence[Path], graph: str) -> list[Reference]:
    """The references at ``paths`` (``dialectica validity`` directories of ``graph``), checked to agree."""
    references = [load_reference(path, graph) for path in paths]
    check_agreement(references)
    return references


def choose_seeds(seeds: Sequence[int], fit_seeds: Sequence[int] | None = None) -> tuple[list[int], list[int]]:
    """(fit seeds, held-out seeds), each in the references' order: ``fit_seeds`` as given, else every seed but
    the last reference's when there are two or more, else the one seed (no seed held out)."""
    if fit_seeds is None:
        chosen = list(seeds[:-1]) if len(seeds) > 1 else list(seeds)
    else:
        unknown = [s for s in fit_seeds if s not in seeds]
        if unknown or not fit_seeds:
            raise ConfigError(
                f"fit_seeds={','.join(map(str, fit_seeds))} must name seeds of the references: {','.join(map(str, seeds))}"
            )
        if len(seeds) > 1 and set(fit_seeds) >= set(seeds):
            raise ConfigError(
                f"fit_seeds={','.join(map(str, fit_seeds))} leaves no reference's seed held out; give at most "
                f"{len(seeds) - 1} of {','.join(map(str, seeds))}"
            )
        chosen = [s for s in seeds if s in fit_seeds]
    return chosen, [s for s in seeds if s not in chosen]


def pool(references: Sequence[Reference]) -> Reference:
    """One reference whose records per grid point are those of every reference given, in order (their seeds'
    episodes side by side); the first one's directory, seed, overrides and model."""
    first = references[0]
    if len(references) == 1:
        return first
    return dataclasses.replace(
        first,
        llm=[[r for ref in references for r in ref.llm[i]] for i in range(len(first.points))],
        scripted=[[r for ref in references for r in ref.scripted[i]] for i in range(len(first.points))],
    )


def held_out_seeds(held: Sequence[Reference], calibrated: Mapping[int, list[list[FullRecord]]]) -> dict[str, Any]:
    """Per held-out seed and grid point (a cell): the LLM's rate and 95% Wilson interval, the authored and the
    calibrated cast's rates (``calibrated[seed]``: its records per point on that seed) and whether each lies
    inside; the count and the share of cells inside per cast."""
    from dialectica.metrics.stats import wilson_interval  # lazy: start-up (numpy)

    cells = []
    for ref in held:
        for i, point in enumerate(ref.points):
            k, n = converged(ref.llm[i])
            low, high = wilson_interval(k, n)
            cell: dict[str, Any] = {
                "seed": ref.seed,
                "config": _label(point),
                "llm_rate": k / n,
                "llm_ci95_low": low,
                "llm_ci95_high": high,
                "scripted_rate": rate(ref.scripted[i]),
                "calibrated_rate": rate(calibrated[ref.seed][i]),
            }
            cell |= {f"{c}_inside_llm_ci": bool(low <= cell[f"{c}_rate"] <= high) for c in CASTS}
            cells.append(cell)
    inside = {c: sum(cell[f"{c}_inside_llm_ci"] for cell in cells) for c in CASTS}
    return {
        "seeds": [ref.seed for ref in held],
        "cells": cells,
        "inside": inside,
        "total": len(cells),
        "share": {c: inside[c] / len(cells) if cells else None for c in CASTS},
    }


def worse(section: Mapping[str, Any]) -> bool:
    """Whether the calibrated cast lies inside the LLM's interval in a smaller share of the held-out-seed cells
    than the authored cast (False without held-out seeds)."""
    share = section["share"]
    return bool(section["total"] > 0 and share["calibrated"] < share["scripted"])


def markdown(section: Mapping[str, Any]) -> list[str]:
    """The held-out-seed table and its shares, as lines of the report (none without held-out seeds)."""
    if not section["total"]:
        return []
    lines = [
        "",
        f"Held-out seeds ({', '.join(map(str, section['seeds']))}): no fit used their episodes.",
        "",
        "| seed | config | LLM rate (95% CI) | authored scripted | inside | calibrated | inside |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in section["cells"]:
        inside = {cast: "yes" if c[f"{cast}_inside_llm_ci"] else "no" for cast in CASTS}
        lines.append(
            f"| {c['seed']} | {c['config']} | {c['llm_rate']:.2f} ({c['llm_ci95_low']:.2f}-{c['llm_ci95_high']:.2f}) "
            f"| {c['scripted_rate']:.2f} | {inside['scripted']} | {c['calibrated_rate']:.2f} | {inside['calibrated']} |"
        )
    k, n = section["inside"], section["total"]
    lines += [
        "",
        f"Held-out-seed cells inside the LLM's 95% interval: authored {k['scripted']}/{n}, calibrated "
        f"{k['calibrated']}/{n}.",
    ]
    return lines
