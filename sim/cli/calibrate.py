"""usage: dialectica calibrate graph=NAME [reference=DIR[,DIR...]] [KEY=VALUE ...]

Fits the scripted cast's personas to an LLM reference run (dialectica.sim.analysis.calibration.job).

Keys:
  graph=NAME          a graph that declares a calibration
  reference=DIR       a `dialectica validity` run of the graph (default: one is run first, with the overrides given);
                      reference=A,B,C several of the same graph, grid and episodes at different seed= values
  fit_seeds=0,7       the references' seeds the fit pools (default: all but the last reference's; the others are
                      held out: per held-out seed and grid point, whether each cast lies inside the LLM's interval)
  fit=0,2,4           the grid points the fit uses (default: every other one; the rest are held out)
  trials=30           Optuna trials
  mode=shared|offset  one value per knob for every persona, or one shift per knob of each authored value
  out=PATH            where the calibrated set goes (default: <graph's datasets>/calibrated.yaml)
  grid.KEY=a,b,c      the reference run's grid (without reference=)
  tracking=..., tracking.*  where the calibration's MLflow run goes
  anything else       overrides of the reference run (without reference=)

Writes a report under results/calibration/<graph>-<time>/, and the calibrated set when it fits better than the
authored personas and lies inside the LLM's interval on the held-out seeds at least as often as they do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def main(argv: list[str], cwd: Path | None = None, echo: Callable[[str], None] = print) -> dict[str, Any] | int:
    if {"--help", "-h"} & set(argv):
        print((__doc__ or "").strip())
        return 0
    from dialectica.sim.analysis.calibration.job import run  # lazy: start-up (yaml)

    return run(argv, cwd=cwd, echo=echo)
