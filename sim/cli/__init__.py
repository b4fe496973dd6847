"""``dialectica`` and its subcommands: ``run`` is the Hydra app (the default), ``listing`` answers ``list``
and ``--help``."""
