"""Every config in conf/ composes and validates; graph YAML defaults match the params' defaults."""

from __future__ import annotations

import dataclasses

import pytest
from omegaconf import DictConfig, OmegaConf

from dialectica.sim.discovery import load, names
from dialectica.sim.config import CONF_DIR, compose, from_hydra

GRAPH_NAMES = names()


def _compose(overrides: list[str], cwd) -> DictConfig:
    return compose(overrides, cwd)


@pytest.mark.parametrize("graph", GRAPH_NAMES)
def test_graph_yaml_defaults_equal_params_defaults(graph):
    spec = load(graph)
    values = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "graph" / f"{graph}.yaml"))
    values.pop("name")
    defaults = {f.name: getattr(spec.params_type(), f.name) for f in dataclasses.fields(spec.params_type)}
    assert values == defaults


@pytest.mark.parametrize("option", sorted(p.stem for p in (CONF_DIR / "graph").glob("*.yaml")))
@pytest.mark.parametrize("tracking", sorted(p.stem for p in (CONF_DIR / "tracking").glob("*.yaml")))
def test_every_group_option_composes_and_validates(option, tracking, tmp_path):
    cfg = _compose([f"graph={option}", f"tracking={tracking}"], tmp_path)
    run = from_hydra(cfg, tmp_path / "out")
    assert [g.spec.name for g in run.graphs] == (GRAPH_NAMES if option == "all" else [option])
    assert all(g.scenarios for g in run.graphs)


def test_experiment_presets_compose(tmp_path):
    presets = sorted((CONF_DIR / "experiment").glob("*.yaml"))
    assert presets
    for preset in presets:
        cfg = _compose([f"+experiment={preset.stem}"], tmp_path)
        from_hydra(cfg, tmp_path / "out")


@pytest.mark.parametrize("search", sorted(p.stem for p in (CONF_DIR / "hparams_search").glob("*.yaml")))
def test_hparams_search_configs_compose_and_name_real_params(search, tmp_path):
    cfg = _compose([f"hparams_search={search}"], tmp_path)
    run = from_hydra(cfg, tmp_path / "out")
    assert run.objective and run.objective["metric"]
    values = OmegaConf.load(CONF_DIR / "hparams_search" / f"{search}.yaml")
    fields = {f.name for f in dataclasses.fields(run.graphs[0].spec.params_type)}
    for key in values.hydra.sweeper.params:
        assert key.startswith("graph.") and key.removeprefix("graph.") in fields, key
