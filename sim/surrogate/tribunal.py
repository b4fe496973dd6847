"""The tribunal has no simulated participants: its collectors are tools replaying the case's evidence.

``participants=surrogate`` therefore gives the scripted cast; the judges, system roles, follow the
``llm`` config (``llm=llamacpp`` makes all three LLMs, with structured JSON opinions).
"""

from __future__ import annotations

from sim.cast import cast
from sim.scripted.tribunal import scripted_tribunal

cast("surrogate", "tribunal")(scripted_tribunal)
