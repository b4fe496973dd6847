"""From the command line to one typed ``RunConfig``; nothing below reads a Hydra ``DictConfig``.

- ``groups``: the config groups and their options, the conf dir (``resources``), plugins' configs;
- ``shape``: the config's keys and value types, checked before anything loads;
- ``typed``: ``RunConfig``/``GraphRun`` built from the checked config (params, scenarios, casts, models);
- ``precheck``: a sweep's every job checked before its first starts;
- ``discovery``: the graphs found (built-in folders, the ``dialectica.graphs`` entry points);
- ``scenarios``: scenario files, checked against each graph's schema; ``secrets``: keys kept out of
  outputs; ``paths``: whether an output can be written.
"""
