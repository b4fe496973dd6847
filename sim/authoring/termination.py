"""Why an episode ended. Rates are counts of these.

The reasons below are the harness's vocabulary; a graph may declare its own (``GraphSpec.terminations``:
reason -> one-line meaning), which are recorded, counted (``termination/<reason>``) and explained the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from dialectica.metrics import TerminationReason  # defined with the metrics that count it; the authors' name is here

MEANINGS = {
    "converged": "The graph's stopping criteria were met",
    "max_rounds": "The round limit was reached before the criteria were met",
    "max_turns": "The turn limit was reached before the dialogue finished",
    "partial_report": "A layer failed or timed out, so only a partial report was written",
    "budget_exhausted": "The question budget ran out before the criteria were met",
    "error": "The episode raised an exception",
}
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")  # also a valid MLflow metric name as termination/<reason>


def declared(terminations: Mapping[str, str] | Iterable[str]) -> dict[str, str]:
    """A graph's declared endings as reason -> meaning (a bare reason of the harness's vocabulary keeps its
    standard meaning).

    Raises:
        ValueError: for a reason that is not lower-case letters, digits and underscores, or ``error`` (the harness's).
    """
    items = (
        terminations.items()
        if isinstance(terminations, Mapping)
        else ((str(r), MEANINGS.get(str(r), "")) for r in terminations)
    )
    out = {}
    for reason, meaning in items:
        reason = str(reason)
        if not _NAME.match(reason) or reason == TerminationReason.ERROR:
            raise ValueError(
                f"ending {reason!r} is not a valid name: lower-case letters, digits and underscores, "
                "starting with a letter, and not 'error' (the harness gives that one)"
            )
        out[reason] = meaning or MEANINGS.get(reason, "")
    return out
