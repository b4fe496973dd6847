"""What a graph is made from: the parts the public module ``dialectica.graph`` re-exports.

- ``spec``: ``GraphSpec`` (the protocol a graph exports), ``Episode`` (its nodes' runtime context),
  ``EpisodeOutcome`` (what an episode returns);
- ``params``: range-checked params, ``ConfigError``; ``termination``: the shared endings;
- ``cast``: what a cast factory receives (``CastRequest``) and the casts built from it; ``scripted``: the
  seeded offline chat model; ``persona``: persona numbers phrased for prompts;
- ``speakers``: the kinds of speaker, what picks each one's model, what a failing one raises;
- ``faults``: the fault rates and the seeded failures they draw (``faulty``: the failing model); retries;
- ``structured``: replies with fields (a JSON schema asked for, a reply read against it);
- ``reducers``: state reducers; ``retrieval``: vector search over passages; ``plots``: matplotlib figures;
- ``data``: YAML data files read safely; where the package's own ``conf/`` and ``datasets/`` are;
- ``calibration``: what a graph declares to be calibrated (``Calibration``, ``Knob``: public in
  ``dialectica.calibration``);
- ``history``: the checkpointer episodes run on, their checkpoints kept on disk (``checkpoints=true``).

Nothing here imports another part of the harness but ``metrics``.
"""
