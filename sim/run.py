"""The Hydra entry point: ``dialectica`` (or ``python -m sim.run``)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from graphs.params import ConfigError
from sim.config import CONF_DIR, from_hydra
from sim.registry import UnknownNameError

GROUPS = ("graph", "participants", "llm", "tracking")


def fail(message: str, out_dir: Path | None = None) -> None:
    """Prints one line and exits 2, removing the run directory Hydra created if nothing else is in it."""
    if out_dir is not None and out_dir.is_dir():
        shutil.rmtree(out_dir / ".hydra", ignore_errors=True)
        for log in out_dir.glob("*.log"):
            log.unlink()
        if not any(out_dir.iterdir()):
            out_dir.rmdir()
    print(f"dialectica: error: {message}", file=sys.stderr)
    sys.exit(2)


def check_group_overrides(args: list[str]) -> None:
    """Hydra's own message for an unknown group option is several lines and exit 1; ours is one line and exit 2."""
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or key not in GROUPS:
            continue
        options = sorted(p.stem for p in (CONF_DIR / key).glob("*.yaml"))
        for choice in value.split(","):
            if choice not in options:
                fail(f"unknown {key}={choice!r}; valid choices: {', '.join(options)}")


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def app(cfg: DictConfig) -> None:
    from sim.experiment import format_table, run_experiment

    out_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        run_cfg = from_hydra(cfg, out_dir)
    except (ConfigError, UnknownNameError) as exc:
        fail(str(exc), out_dir)
    summary = run_experiment(run_cfg)
    print(format_table(summary))
    print(f"outputs: {out_dir}")


def main() -> None:
    check_group_overrides(sys.argv[1:])
    app()


if __name__ == "__main__":
    main()
