"""The ``view:`` config block, typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dialectica.sim.authoring.params import ConfigError, did_you_mean

PAGES = ("selected", "all")
ALL_PAGES = 500  # ``pages: all`` at most this many episodes a graph: each page is a file and an MLflow artifact


@dataclass(frozen=True)
class ViewOptions:
    """What a run draws for people to look at: each graph's figures, and which episodes get a page.

    Attributes:
        enabled: Draw each graph's figures (``by_round.png``, ``node_times.png`` and the graph's own) and write its
            pages after its episodes, logged to MLflow (pages under ``view/``); false for a lean run that only
            summaries and records are read from (CI checks, benchmarks): matplotlib is then never imported.
        pages: ``selected``: the episodes ``first``, ``metric`` and ``errors`` pick; ``all``: every episode (those
            also get their reasons), for runs of at most ``ALL_PAGES`` (500) episodes a graph: a larger run is
            refused before it starts, since a page is a file and an MLflow artifact (there,
            ``dialectica view RUN --episode N,...`` writes the pages wanted afterwards).
        first: The first N episodes.
        metric: Also the best and the worst episode by this episode metric (``-name``: lower is better);
            None takes the graph's own default.
        errors: Also the first N episodes that raised.
    """

    enabled: bool = True
    pages: str = "selected"
    first: int = 3
    metric: str | None = None
    errors: int = 1

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None) -> ViewOptions:
        """Checks a ``view:`` block; raises ConfigError naming the bad key."""
        values = dict(values or {})
        unknown = sorted(set(values) - set(cls.__dataclass_fields__))
        if unknown:
            hint = did_you_mean(unknown[0], cls.__dataclass_fields__, "view.")
            raise ConfigError(
                f"view.{unknown[0]} is not a view option{hint}; valid keys: {', '.join(cls.__dataclass_fields__)}"
            )
        if not isinstance(values.get("enabled", True), bool):
            raise ConfigError(f"view.enabled={values['enabled']!r} is invalid; valid values: true, false")
        if values.get("pages", cls.pages) not in PAGES:
            raise ConfigError(
                f"view.pages={values['pages']!r} is invalid; valid values: selected (first, metric and errors pick), "
                f"all (every episode, at most {ALL_PAGES} a graph)"
            )
        for key in ("first", "errors"):
            value = values.get(key, getattr(cls, key))
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"view.{key}={value!r} is invalid; valid values: integers >= 0")
        metric = values.get("metric")
        if metric is not None and (not isinstance(metric, str) or not metric.lstrip("-")):
            raise ConfigError(f"view.metric={metric!r} is invalid; valid values: null or an episode metric name")
        return cls(**values)

    def check_episodes(self, episodes: int) -> None:
        """Raises ConfigError when ``pages: all`` would write more than ``ALL_PAGES`` pages a graph."""
        if self.enabled and self.pages == "all" and episodes > ALL_PAGES:
            raise ConfigError(
                f"view.pages=all writes a page per episode, at most {ALL_PAGES} a graph; episodes={episodes}: "
                "use view.pages=selected (the default), and dialectica view RUN --episode N,... afterwards "
                "for the pages you want"
            )
