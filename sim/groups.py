"""The choices of the config groups that the entry point checks before Hydra starts (kept light: no
graph, model or tracking import happens here)."""

from __future__ import annotations

from dialectica.sim import discovery
from dialectica.sim.resources import conf_dir

CONF_DIR = conf_dir()


def register_plugin_configs() -> None:
    """Puts each plugin graph's defaults in Hydra's config store as ``graph=<name>``, beside the
    built-in graphs' ``conf/graph/*.yaml``."""
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    for name in discovery.plugins():
        store.store(group="graph", name=name, node=discovery.load(name).defaults())


def graph_options() -> list[str]:
    """The choices of ``graph=``: ``all``, the built-in graphs' config files and the plugins."""
    return sorted({p.stem for p in (CONF_DIR / "graph").glob("*.yaml")} | set(discovery.plugins()))
