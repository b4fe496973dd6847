"""A subcommand whose reader stops reading (``dialectica compare A B | head``) ends quietly, exit 0."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
from dialectica.sim.cli.errors import guarded

def chatty(argv):
    for i in range(200000):
        print("line", i)

sys.exit(guarded(chatty, []))
"""


def test_a_reader_that_stops_reading_ends_the_command_quietly():
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b"line 0\n"
    proc.stdout.close()  # as head does after its lines
    code = proc.wait()
    errors = proc.stderr.read().decode()
    assert code == 0 and "Traceback" not in errors and "BrokenPipe" not in errors, errors
