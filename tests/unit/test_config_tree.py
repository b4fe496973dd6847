"""Every config in conf/ composes and validates; graph YAML defaults match the params' defaults."""

from __future__ import annotations

import dataclasses

import pytest
from omegaconf import DictConfig, OmegaConf

from dialectica.sim.config.discovery import load, names
from dialectica.sim.config.loader import compose, from_composed
from dialectica.sim.config.resources import CONF_DIR

GRAPH_NAMES = names()


def _compose(overrides: list[str], cwd) -> DictConfig:
    return compose(overrides, cwd)


@pytest.mark.parametrize("graph", GRAPH_NAMES)
def test_graph_yaml_defaults_equal_params_defaults(graph):
    spec = load(graph)
    values = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "graph" / f"{graph}.yaml"))
    values.pop("name")
    cast = values.pop("cast", {})
    defaults = {f.name: getattr(spec.params(), f.name) for f in dataclasses.fields(spec.params)}
    assert values == defaults
    cast_defaults = {f.name: getattr(spec.cast_options(), f.name) for f in dataclasses.fields(spec.cast_options)}
    assert cast == cast_defaults


@pytest.mark.parametrize("option", sorted(p.stem for p in (CONF_DIR / "graph").glob("*.yaml")))
@pytest.mark.parametrize("tracking", sorted(p.stem for p in (CONF_DIR / "tracking").glob("*.yaml")))
def test_every_group_option_composes_and_validates(option, tracking, tmp_path):
    cfg = _compose([f"graph={option}", f"tracking={tracking}"], tmp_path)
    run = from_composed(cfg, tmp_path / "out")
    assert [g.spec.name for g in run.graphs] == (GRAPH_NAMES if option == "all" else [option])
    assert all(g.scenarios for g in run.graphs)


def test_experiment_presets_compose(tmp_path):
    presets = sorted((CONF_DIR / "experiment").glob("*.yaml"))
    assert presets
    for preset in presets:
        cfg = _compose([f"+experiment={preset.stem}"], tmp_path)
        from_composed(cfg, tmp_path / "out")


@pytest.mark.parametrize("search", sorted(p.stem for p in (CONF_DIR / "hparams_search").glob("*.yaml")))
def test_hparams_search_configs_compose_and_name_real_params(search, tmp_path):
    cfg = _compose([f"hparams_search={search}"], tmp_path)
    run = from_composed(cfg, tmp_path / "out")
    assert run.objective and run.objective["metric"]
    values = OmegaConf.load(CONF_DIR / "hparams_search" / f"{search}.yaml")
    fields = {f.name for f in dataclasses.fields(run.graphs[0].spec.params)}
    for key in values.hydra.sweeper.params:
        assert key.startswith("graph.") and key.removeprefix("graph.") in fields, key


def test_cast_options_are_graph_keys_and_per_graph_overrides_one_graph(tmp_path):
    """The scripted casts' options moved from ``llm.<graph>.*`` to ``graph.cast.*``; ``per_graph`` sets them
    (or params) for one graph of a multi-graph run."""
    from hydra.errors import ConfigCompositionException

    from dialectica.sim.authoring.params import ConfigError

    run = from_composed(_compose(["graph=maieutic", "graph.cast.discipline=0.5"], tmp_path), tmp_path / "out")
    (maieutic,) = run.graphs
    assert (maieutic.options.discipline, maieutic.options.compliance) == (0.5, 0.85)
    assert type(maieutic.options) is load("maieutic").cast_options

    cfg = _compose(["++per_graph.tribunal.cast.hang_s=0.2", "++per_graph.committee.max_rounds=2"], tmp_path)
    graphs = {g.spec.name: g for g in from_composed(cfg, tmp_path / "out").graphs}
    assert graphs["tribunal"].options.hang_s == 0.2 and graphs["tribunal"].raw["cast"]["hang_s"] == 0.2
    assert graphs["committee"].params.max_rounds == 2
    assert graphs["maieutic"].options == load("maieutic").cast_options()  # the others keep their defaults
    assert graphs["socratic_panel"].params == load("socratic_panel").params()

    with pytest.raises(ConfigError, match="graph.cast.hang_s"):
        from_composed(_compose(["graph=tribunal", "graph.cast.hang_s=-1"], tmp_path), tmp_path / "out")
    with pytest.raises(ConfigError, match="unknown graph per_graph.nope"):
        from_composed(_compose(["++per_graph.nope.x=1"], tmp_path), tmp_path / "out")
    with pytest.raises(ConfigCompositionException, match=r"Could not override 'llm\.tribunal\.hang_s'"):
        _compose(["llm.tribunal.hang_s=0.2"], tmp_path)  # the old key is gone from the llm group


def test_discovery_finds_the_graph_folders_and_refuses_an_unknown_name():
    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.config.discovery import builtin_names, loadable

    assert builtin_names() == ("committee", "interview", "maieutic", "socratic_panel", "tribunal")
    assert loadable() == (GRAPH_NAMES, [])  # no plugin is installed in the test environment
    assert all(load(name) is load(name) for name in GRAPH_NAMES)
    with pytest.raises(ConfigError, match="unknown graph='nope'; valid choices: all, committee, interview,"):
        load("nope")


def test_an_entry_point_named_other_than_its_spec_says_both_names(monkeypatch):
    import sys
    from importlib.metadata import EntryPoint

    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.config import discovery

    monkeypatch.setattr(
        sys.modules[__name__], "MISNAMED", dataclasses.replace(load("interview"), name="peer_review"), raising=False
    )
    entry = EntryPoint(name="peerreview", value=f"{__name__}:MISNAMED", group=discovery.GROUP)
    monkeypatch.setattr(discovery, "entry_points", lambda group: [entry])
    discovery.plugins.cache_clear()
    try:
        with pytest.raises(ConfigError, match="'peerreview'.*named 'peer_review'; an entry point's name must be"):
            discovery.load("peerreview")
    finally:
        discovery.plugins.cache_clear()
        discovery._load.cache_clear()


def test_a_bad_key_in_a_graphs_own_config_file_names_the_file(tmp_path):
    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.config.loader import _graph_params

    conf = tmp_path / "graph.yaml"
    conf.write_text("name: interview\nbudgett: 3\nbudget: 10\n")
    spec = dataclasses.replace(load("interview"), config=conf)
    with pytest.raises(ConfigError, match=rf"unknown key graph.budgett .*\(set in {conf}\)$"):
        _graph_params(spec, {"budgett": 3, "budget": 10})
    with pytest.raises(ConfigError, match=r"graph.budget=-1(\.0)? is out of range; valid range: [^(]*$"):
        _graph_params(spec, {"budget": -1})  # the command line's value


def test_a_check_of_several_keys_does_not_blame_the_graphs_file():
    from dialectica.sim.authoring.params import ConfigError
    from dialectica.sim.config.loader import _graph_params

    spec = load("socratic_panel")
    raw = {k: v for k, v in spec.defaults().items() if k != "name"} | {"max_rounds": 1}
    with pytest.raises(ConfigError, match=r"must not exceed graph.max_rounds=1$"):  # the file is fine: no "(set in"
        _graph_params(spec, raw)
