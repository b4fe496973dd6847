"""``python -m dialectica``: the same as the ``dialectica`` command."""

from dialectica.sim.cli.main import main

main()
