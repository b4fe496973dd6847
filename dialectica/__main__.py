"""``python -m dialectica``: the same as the ``dialectica`` command."""

from dialectica.sim.run import main

main()
