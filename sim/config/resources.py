"""Where the package's own data lives: ``conf/`` and ``datasets/`` travel inside the wheel."""

from __future__ import annotations

from dialectica.sim.authoring.data import conf_dir

CONF_DIR = conf_dir()
# The config groups a command line picks options of (``graph=panel``, ``llm=llamacpp``, ...); the first four
# also hold their option's values under a key of the same name (``llm.model``).
GROUPS = ("graph", "participants", "llm", "tracking", "hparams_search", "experiment")
KEYED_GROUPS = GROUPS[:4]


def group_options(group: str) -> list[str]:
    """The options of config group ``group`` as ``conf/`` holds them (``graph`` adds plugins: ``groups``)."""
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))
