"""The built-in graphs, one folder each; every folder exports ``SPEC`` (a ``dialectica.sim.spec.GraphSpec``)."""
