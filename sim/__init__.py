"""The harness, in parts whose names say what they do (it names no graph).

The parts, lowest first: each imports only the parts before it in this list (``tests/unit/test_layering.py``
checks it, counting the imports inside functions and under ``TYPE_CHECKING``, and fails on any import cycle).

- ``metrics``: ``dialectica.metrics``, graph-independent metrics and statistics over records; imports nothing of
  ``sim``.
- ``secrets``: the process's secret values, scrubbed wherever text leaves it (files, MLflow, logs, model replies).
- ``records``: the episode record: its schema, ``episodes.jsonl`` written and read back, ``load_episodes``.
- ``authoring``: what a graph is made from: the ``GraphSpec`` protocol, params, endings, casts and their speakers,
  scripted models, faults, structured replies, data files, calibration, the checkpointer episodes run on;
  re-exported by the public ``dialectica.graph``.
- ``llm``: model backends (llama.cpp, OpenAI-compatible servers), the call cache, throttling, local presets, and
  which model speaks for each role (``casting``).
- ``adapter``: an existing LangGraph graph as a ``GraphSpec``, evaluated as it is (users, judges, the dialogue
  loop).
- ``config``: the command line and Hydra's config to one typed ``RunConfig``: shape, then types; the graphs found
  (built-in folders, entry points, import strings), their scenarios and calibrated sets, a replay's fork.
- ``tracking``: the MLflow store, one run per graph, traces, sweeps.
- ``view``: episode pages.
- ``engine``: execute one episode; build episodes from config; run a batch (records, MLflow, pages); checkpoint
  (resume); ``evaluate`` and ``replay``, the Python entry points.
- ``dev``: tools for developing the harness itself (a latency server, the model survey).
- ``analysis``: what is read back from runs: validity, calibration, compare, CI reports, benchmarks.
- ``cli``: ``dialectica`` and its subcommands.

Above them all: ``dialectica`` (its public names imported on first use), and the public modules a graph imports:
``dialectica.graph`` (authoring alone), ``dialectica.calibration`` (authoring) and ``dialectica.pages``
(authoring and view). A ``__main__`` module is an entry point: run, never imported, it may import any part.

Data flows one way: ``cli`` → ``config`` → ``engine`` (with ``llm`` inside episodes) → records on disk →
``metrics`` → ``tracking``, ``view`` and ``analysis``.
"""
