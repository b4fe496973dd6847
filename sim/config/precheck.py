"""Checks made before anything runs: every job of a sweep is composed and validated, and a tracking
server is probed, so that a bad value or a dead server is one line before the first job starts rather
than a failure halfway through a sweep.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dialectica.sim.authoring.params import ConfigError

if TYPE_CHECKING:
    from dialectica.sim.config.typed import RunConfig

MAX_JOBS = 512  # past this many, each swept value is checked once (with the other keys at their first value)
_OPTUNA_KEYS = ("hparams_search", "hydra/sweeper")


def expand(args: list[str]) -> list[list[str]]:
    """The jobs of a basic sweep over ``args``, each as its list of overrides, in Hydra's order."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    choices = []
    for override in OverridesParser.create().parse_overrides(args):
        key = override.get_key_element()
        if override.is_sweep_override():
            choices.append([f"{key}={value}" for value in override.sweep_string_iterator()])
        else:
            choices.append([str(override.input_line)])
    jobs = itertools.product(*choices)
    total = 1
    for values in choices:
        total *= len(values)
    if total <= MAX_JOBS:
        return [list(job) for job in jobs]
    first = [values[0] for values in choices]
    return [[*first[:i], value, *first[i + 1 :]] for i, values in enumerate(choices) for value in values]


def earlier_jobs(sweep_dir: Path) -> set[Path]:
    """The job folders of ``sweep_dir`` where an earlier sweep wrote its records or summary."""
    return {p.parent for p in sweep_dir.glob("*/summary.json")} | {
        p.parent for p in sweep_dir.glob("*/episodes.jsonl") if p.stat().st_size
    }


def _product(args: list[str]) -> bool:
    """Whether ``expand(args)`` is every job of the sweep (at most ``MAX_JOBS``), not one per swept value."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    total = 1
    for override in OverridesParser.create().parse_overrides(args):
        total *= len(list(override.sweep_string_iterator())) if override.is_sweep_override() else 1
    return total <= MAX_JOBS


def study_ends(args: list[str]) -> list[list[str]]:
    """Jobs that put each parameter the command line gives an Optuna study to search at each end of its range (an
    ``interval`` as the floats, or integers if tagged ``int``, a ``range`` as its first and last step, both ends
    included, as the sweeper draws; a ``choice`` at each value), the others at their first: a bound out of range or a
    misspelt key is refused before the study starts, not at the trial that reaches it. The ranges of the study's own
    config (``conf/hparams_search``) are not read here."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import IntervalSweep, RangeSweep

    choices = []
    for override in OverridesParser.create().parse_overrides(args):
        key, value = override.get_key_element(), override.value()
        if isinstance(value, IntervalSweep) and value.start is not None and value.end is not None:
            kind = int if "int" in value.tags else float  # floats, unless tagged int
            choices.append([f"{key}={kind(value.start)}", f"{key}={kind(value.end)}"])
        elif isinstance(value, RangeSweep) and not value.shuffle and value.start is not None and value.stop is not None:
            last = value.start + ((value.stop - value.start) // value.step) * value.step  # the last step, stop included
            choices.append([f"{key}={value.start}", f"{key}={last}"])
        elif override.is_sweep_override():
            choices.append([f"{key}={v}" for v in override.sweep_string_iterator()])
        else:
            choices.append([str(override.input_line)])
    first = [values[0] for values in choices]
    return [first] + [[*first[:i], v, *first[i + 1 :]] for i, values in enumerate(choices) for v in values[1:]]


def given_sweep_dir(args: list[str], cwd: Path) -> Path | None:
    """The ``hydra.sweep.dir`` the command line names, or None (none given, or one Hydra interpolates)."""
    given = [a.partition("=")[2] for a in args if a.lstrip("+").partition("=")[0] == "hydra.sweep.dir"]
    return cwd / given[-1] if given and "${" not in given[-1] else None


def refuse_earlier_sweep(args: list[str], cwd: Path) -> None:
    """Raises a ConfigError if ``hydra.sweep.dir`` names a folder where an earlier sweep's jobs wrote their
    records, and ``resume=true`` is not given: its jobs would refuse one by one (or, the new ones, run beside
    them), after MLflow had been given a new parent run for a sweep that never runs."""
    resume = [a.partition("=")[2].strip().lower() for a in args if a.lstrip("+").partition("=")[0] == "resume"]
    sweep_dir = given_sweep_dir(args, cwd)
    if sweep_dir is None or (resume and resume[-1] in ("true", "yes", "on", "1")):
        return
    jobs = earlier_jobs(sweep_dir)
    if jobs:
        raise ConfigError(
            f"{sweep_dir} already holds {len(jobs)} job{'s' * (len(jobs) != 1)} of an earlier sweep; add resume=true "
            "to return or finish them (and run any new configurations beside them), or choose another hydra.sweep.dir"
        )


def check_sweep(
    args: list[str], cwd: Path, probe: Callable[[str], None], resumable: Callable[[Path, RunConfig], None] | None = None
) -> None:
    """Raises a ConfigError naming the first job of the sweep over ``args`` whose config is invalid, and
    probes the tracking server the sweep would write to with ``probe(uri)`` (``tracking.store.probe``). With
    ``resume=true`` into a named ``hydra.sweep.dir``, ``resumable(job_dir, config)`` checks each grid job against
    the folder it would resume (``engine.checkpoint.check``): a refused resume leaves the sweep, its
    ``multirun.yaml`` and its MLflow parent as they were."""
    from hydra.core.global_hydra import GlobalHydra

    from dialectica.sim.config.loader import load  # lazy: start-up (omegaconf, yaml)
    from dialectica.sim.config.typed import redact_overrides  # lazy: start-up (omegaconf, yaml)

    optuna = any(arg.lstrip("+~").partition("=")[0] in _OPTUNA_KEYS for arg in args)
    # an Optuna sweeper draws the swept values: its jobs are checked at the ends of each range it may draw from
    jobs = study_ends(args) if optuna else expand(args)
    sweep_dir = given_sweep_dir(args, cwd)
    keys = [arg.lstrip("+~").partition("=")[0] for arg in args]
    swept = {arg.lstrip("+~").partition("=")[0] for arg in args if "," in arg.partition("=")[2] or "(" in arg}
    # job n resumes folder n only where the jobs are Hydra's own product, in its order and its folders
    numbered = (
        not optuna and not any(keys.count(k) > 1 for k in swept) and "hydra.sweep.subdir" not in keys and _product(args)
    )
    probed: set[str] = set()
    try:
        for number, job in enumerate(jobs):
            try:
                run_cfg = load(job, out_dir=cwd, cwd=cwd)
                if resumable is not None and sweep_dir is not None and run_cfg.resume and numbered:
                    resumable(sweep_dir / str(number), run_cfg)  # job number n runs in folder n (hydra.sweep.subdir)
            except ConfigError as exc:
                shown = " ".join(o for o in redact_overrides(job) if not o.startswith("hydra."))
                label = f"sweep job {number}" if len(jobs) > 1 else "sweep"
                raise ConfigError(f"{label} ({shown}): {exc}") from None
            if run_cfg.tracking.enabled and run_cfg.tracking.uri not in probed:
                probe(run_cfg.tracking.uri)
                probed.add(run_cfg.tracking.uri)
    finally:
        GlobalHydra.instance().clear()
