"""The built-in graphs, one folder each; every folder exports ``SPEC`` (a ``dialectica.graph.GraphSpec``)."""
