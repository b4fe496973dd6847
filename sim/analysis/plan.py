"""How many episodes a comparison needs, read from a pilot (``dialectica plan``).

Two configurations on the same seeds differ only on the pairs where one converged and the other did not, so a
paired design's size depends on how often they disagree (the discordance ``psi``), which the pilot measures. For a
difference ``diff`` at two-sided level ``alpha`` (Bonferroni over the comparisons) with power ``power``, Connor's
(1987) sample size for McNemar's test is::

    n = (z(1 - alpha/2) * sqrt(psi) + z(power) * sqrt(psi - diff^2))^2 / diff^2

A sequential design (``metrics.sequential``) stops as soon as its anytime-valid test decides: its expected use is
simulated from the same discordance with the difference set to ``diff`` (2,000 races): the median episodes it takes,
and how often it decides within the fixed design's; and, where the pilot's own difference is larger, the median
episodes when that is the true one (where a sequential design saves).
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dialectica.metrics import converged
from dialectica.metrics.sequential import first_decided
from dialectica.sim.authoring.params import ConfigError

Outcomes = Mapping[Hashable, bool]  # by (episode seed, scenario)


@dataclass(frozen=True)
class Need:
    """One configuration against the pilot's best, and what a comparison of them needs."""

    config: str
    best: str
    pairs: int
    discordance: float
    observed_diff: float  # the best's rate less this one's (shown negated, as diff_vs_best in a comparison)
    fixed: int | None  # episodes a configuration for the fixed design; None: the pilot shows no disagreement
    sequential_median: float | None
    sequential_decided_by_fixed: float | None  # the share of simulated races decided within ``fixed`` episodes
    sequential_at_pilot: float | None  # the median episodes when the difference is the pilot's


def fixed_size(discordance: float, diff: float, alpha: float, power: float) -> int:
    """Connor's paired sample size (per configuration) for McNemar's test."""
    from scipy.stats import norm

    psi = max(discordance, abs(diff))  # the pairs that disagree are at least the difference
    z_a, z_b = float(norm.ppf(1 - alpha / 2)), float(norm.ppf(power))
    return math.ceil((z_a * math.sqrt(psi) + z_b * math.sqrt(max(0.0, psi - diff**2))) ** 2 / diff**2)


def sequential_use(
    discordance: float, diff: float, delta: float, fixed: int, runs: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """Simulated anytime-valid comparisons at level ``delta`` with the difference ``diff``: the median pairs they take
    to decide (looking up to four times ``fixed``) and the share decided within ``fixed``."""
    psi = max(discordance, abs(diff))
    rng = np.random.default_rng(seed)
    cap = 4 * fixed
    times = []
    for _ in range(runs):
        draws = rng.random(cap)
        a = draws < (psi + diff) / 2  # the better one alone converged
        b = (draws >= (psi + diff) / 2) & (draws < psi)  # the other alone
        times.append(first_decided(a, b, delta) or cap)
    return float(np.median(times)), float(np.mean([t <= fixed for t in times]))


def needs(configs: Mapping[str, Outcomes], diff: float = 0.05, alpha: float = 0.05, power: float = 0.8) -> list[Need]:
    """Each configuration against the one the pilot rates best."""
    rates = {name: sum(o.values()) / len(o) for name, o in configs.items() if o}
    best = max(rates, key=lambda name: rates[name])
    others = [name for name in configs if name != best]
    level = alpha / max(1, len(others))
    found = []
    for name in others:
        shared = sorted(set(configs[name]) & set(configs[best]), key=repr)
        if not shared:
            raise ConfigError(f"{name} shares no episode (seed and scenario) with {best}: plan needs a paired pilot")
        x = np.array([configs[best][k] for k in shared])
        y = np.array([configs[name][k] for k in shared])
        psi = float(np.mean(x != y))
        fixed = fixed_size(psi, diff, level, power) if psi > 0 else None
        observed = float(np.mean(x) - np.mean(y))
        median, share = sequential_use(psi, diff, level, fixed) if fixed else (None, None)
        at_pilot = sequential_use(psi, observed, level, fixed)[0] if fixed and observed > 0 else None
        found.append(Need(name, best, len(shared), psi, observed, fixed, median, share, at_pilot))
    return found


def pilot(paths: list[Path]) -> dict[str, dict[Hashable, bool]]:
    """Outcomes by configuration: the jobs of a sweep folder (one path), or the runs given (each one graph)."""
    from dialectica.sim import records  # lazy: start-up (pydantic)

    if len(paths) == 1 and (paths[0] / records.FILE).is_file():
        raise ConfigError(f"{paths[0]} is one run: plan compares configurations; give a sweep folder, or two runs")
    if len(paths) == 1:
        from dialectica.sim.tracking.sweep import config_keys, job_files, swept_in  # lazy: start-up (hydra, omegaconf)

        jobs = job_files(paths[0], "summary.json")
        if not jobs:
            raise ConfigError(f"{paths[0]}: no sweep jobs (<job>/summary.json); give a sweep folder, or two runs")
        labels = config_keys([json.loads(p.read_text()).get("overrides", []) for p in jobs], swept_in(paths[0]))
        runs = [(label, p.parent) for label, p in zip(labels, jobs, strict=True)]
    else:
        runs = [(str(p), p) for p in paths]
    configs: dict[str, dict[Hashable, bool]] = {}
    for label, folder in runs:
        if not (folder / records.FILE).is_file():
            raise ConfigError(f"{folder}: no {records.FILE}; give a finished run or sweep")
        outcomes = configs.setdefault(label, {})
        for r in records.read(folder / records.FILE, keep=False):
            outcomes[(r["graph"], r["seed"], r["scenario"])] = converged(r)
    if len(configs) < 2:
        raise ConfigError("plan compares configurations: give a sweep with two or more, or two runs")
    return configs


def table(found: list[Need], diff: float, alpha: float, power: float) -> str:
    rows = [
        f"to detect a difference of {diff} (power {power}, alpha {alpha}, Bonferroni over {len(found)}), "
        "against the pilot's best:",
        "| configuration | pilot pairs | discordance | pilot diff_vs_best | fixed design: episodes a configuration "
        "| sequential: median episodes | sequential: decided within the fixed design's "
        "| sequential, if the difference is the pilot's: median episodes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in found:
        fixed = "no disagreement in the pilot" if n.fixed is None else str(n.fixed)
        median = "" if n.sequential_median is None else f"{n.sequential_median:.0f}"
        share = "" if n.sequential_decided_by_fixed is None else f"{n.sequential_decided_by_fixed:.0%}"
        at_pilot = "" if n.sequential_at_pilot is None else f"{n.sequential_at_pilot:.0f}"
        rows.append(
            f"| {n.config} | {n.pairs} | {n.discordance:.3f} | {-n.observed_diff:+.3f} | {fixed} | {median} | {share} "
            f"| {at_pilot} |"
        )
    return "\n".join(rows)


def as_json(found: list[Need]) -> list[dict[str, Any]]:
    return [n.__dict__ for n in found]
