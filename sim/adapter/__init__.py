"""A LangGraph graph evaluated as it is: no rewrite, no plugin.

The parts, in the order an episode meets them:

- ``scenarios``: scenarios from a list, a YAML file or a folder, checked key by key;
- ``users``: who talks to the graph: scripted turns, a seeded callable, or an LLM playing a persona;
- ``dialogue``: the loop: the user's turn, the graph to its reply (LangGraph's ``messages`` convention, or
  ``interrupt()`` answered with ``Command(resume=...)``), until the user stops, the graph ends or ``max_turns``;
- ``judges``: did the user get what they came for: a rule, or an LLM with a rubric;
- ``app``: the graph, its knobs (context fields, factory arguments) and its endings, as a ``GraphSpec`` the
  harness runs like any other (seeds, records, pages, MLflow, sweeps, resume);
- ``evaluate``: ``dialectica.evaluate(app, ...)``, the Python entry point.
"""
