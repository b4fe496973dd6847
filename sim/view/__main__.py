"""``python -m dialectica.sim.view``: the same as ``dialectica view``."""

import sys

from dialectica.sim.cli.errors import guarded
from dialectica.sim.cli.view import main

sys.exit(guarded(main, sys.argv[1:]))
