"""The harness, in parts whose folder names say what they do (it names no graph).

- ``authoring``: what a graph is made from: the ``GraphSpec`` protocol, params, endings, casts, scripted
  models, personas, reducers, faults, retrieval, figures; re-exported by the public ``dialectica.graph``.
- ``adapter``: an existing LangGraph graph evaluated as it is (users, judges, the dialogue loop).
- ``config``: the command line and Hydra's config to one typed ``RunConfig``: shape, then types; the
  graphs found (built-in folders, entry points), their scenarios, secrets.
- ``engine``: execute one episode; build episodes from config; run a batch; checkpoint (resume); records.
- ``llm``: model backends, the call cache, throttling, local presets.
- ``tracking``: the MLflow store, one run per graph, sweeps.
- ``analysis``: what is read back from runs: validity, calibration, compare, CI reports, benchmarks.
- ``view``: episode pages.
- ``cli``: ``dialectica`` and its subcommands.
- ``dev``: tools for developing the harness itself (a latency server, the model survey).

Data flows one way: ``cli`` → ``config`` → ``engine`` (with ``llm`` inside episodes) → records on disk →
``metrics`` → ``tracking``, ``view`` and ``analysis``.
"""
