"""What a run directory was made with, so that ``resume=true`` never mixes two configurations.

A run writes ``fingerprint.json``: its resolved config, flattened to ``key: value`` (secrets redacted),
less the keys that cannot change its results, and the package version. Resuming with another
fingerprint is refused with one line naming the keys that differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dialectica.sim.params import ConfigError

FILE = "fingerprint.json"
# Keys (or key prefixes) that change how a run looks or where it reports, never what its records hold.
IGNORED = ("progress", "resume", "view", "tracking", "embedding_cache", "max_concurrency", "max_error_rate",
           "llm.max_in_flight", "llm.requests_per_minute", "llm.rate_limit_retries", "hydra")


def _number(value: Any) -> Any:
    """10 and 10.0 are one value (``graph.budget=10`` against the YAML's ``10.0``)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def fingerprint(resolved: dict[str, Any]) -> dict[str, str]:
    """The flattened config that decides a run's results, and the package version."""
    from dialectica import __version__
    from dialectica.sim.config import flatten
    from dialectica.sim.secrets import scrub_tree

    kept = {k: json.dumps(_number(v), sort_keys=True) for k, v in flatten(scrub_tree(resolved)).items()
            if not any(k == ignored or k.startswith(f"{ignored}.") for ignored in IGNORED)}
    return {**kept, "dialectica_version": json.dumps(__version__)}


def check(out_dir: Path, resolved: dict[str, Any]) -> None:
    """Raises a ConfigError naming the keys that differ from the run directory's fingerprint, if it has one."""
    path = out_dir / FILE
    if not path.exists():
        return
    old, new = json.loads(path.read_text()), fingerprint(resolved)
    keys = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if keys:
        shown = ", ".join(f"{k} ({old.get(k, 'unset')} -> {new.get(k, 'unset')})" for k in keys[:6])
        more = f" and {len(keys) - 6} more" if len(keys) > 6 else ""
        raise ConfigError(f"resume=true in {out_dir}, made with another config: {shown}{more}; rerun with the same "
                          "values, or drop resume=true and choose a new hydra.run.dir")


def record(out_dir: Path, resolved: dict[str, Any], resume: bool) -> None:
    """Writes the run directory's fingerprint; a resumed run keeps the one it found."""
    path = out_dir / FILE
    if not (resume and path.exists()):
        path.write_text(json.dumps(fingerprint(resolved), indent=1, sort_keys=True))
