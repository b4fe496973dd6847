"""``participants=surrogate``: the graph's participants played by an LLM, one module per graph.

Each cast starts from the scripted cast (so system roles follow the ``llm`` config the same way)
and swaps the participants for LLMs whose system prompt renders the persona: its stance, its
temperament and the facts it knows but the graph does not.
"""
