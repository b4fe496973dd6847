"""What an agent did, against what it should have done: its tool calls and its path through the graph.

Pure functions over plain data. A call is ``{"name": str, "args": mapping}``; an expected call may leave its
arguments out (any arguments match) or give some of them (those must be equal, others may be there too). The
match modes are agentevals' (``create_trajectory_match_evaluator``), applied to the calls alone: given the
assistant's tool-call messages only, by name, and in ``strict`` and ``superset`` with
``tool_args_match_mode="superset"``, the two agree call for call (``tests/unit/test_trajectory.py``); agentevals'
``strict`` and ``unordered`` on a whole conversation compare its user and tool messages too:

- ``strict``: the same calls in the same order;
- ``unordered``: the same calls in any order;
- ``subset``: every call made was expected (nothing uncalled-for; some may be missing);
- ``superset``: every expected call was made (more may have been).

A path is the list of node names the graph ran, in order; it matches the same way, with names only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

MODES = ("strict", "unordered", "subset", "superset")
Call = Mapping[str, Any]


def expected_call(value: Any) -> dict[str, Any]:
    """An expected call as written in a scenario: a tool's name, or ``{name: ..., args: {...}}``."""
    if isinstance(value, str):
        return {"name": value, "args": {}}
    return {"name": str(value["name"]), "args": dict(value.get("args") or {})}


def _fits(made: Call, wanted: Call) -> bool:
    """``made`` is the call ``wanted`` asks for: the same tool, and every argument ``wanted`` gives, equal."""
    args = made.get("args") or {}
    return made["name"] == wanted["name"] and all(k in args and args[k] == v for k, v in (wanted.get("args") or {}).items())


def _covers(have: Sequence[Call], want: Sequence[Call], fits: Any) -> bool:
    """Each call of ``want`` is met by a call of ``have`` of its own (greedy, in order, as agentevals does)."""
    used: set[int] = set()
    for w in want:
        match = next((i for i, h in enumerate(have) if i not in used and fits(h, w)), None)
        if match is None:
            return False
        used.add(match)
    return True


def calls_match(made: Sequence[Call], expected: Sequence[Call], mode: str = "strict") -> bool:
    """Whether the calls ``made`` match those ``expected`` in ``mode`` (``MODES``)."""
    if mode not in MODES:
        raise ValueError(f"unknown trajectory mode {mode!r}; valid choices: {', '.join(MODES)}")
    superset = _covers(made, expected, _fits)
    subset = _covers(expected, made, lambda want, have: _fits(have, want))  # each call made was asked for
    if mode == "strict":
        return len(made) == len(expected) and all(_fits(m, e) for m, e in zip(made, expected, strict=True))
    if mode == "superset":
        return superset
    if mode == "subset":
        return subset
    return superset and subset


def path_match(path: Sequence[str], expected: Sequence[str], mode: str = "strict") -> bool:
    """Whether the graph's ``path`` of node names matches the ``expected`` one in ``mode``."""
    return calls_match([{"name": n} for n in path], [{"name": n} for n in expected], mode)


def tool_scores(made: Sequence[Call], expected: Sequence[Call]) -> dict[str, float]:
    """Precision and recall of the tools called, by name with repeats (two calls expected, one made: recall 1/2),
    and the share of expected calls that give arguments which some call met; NaN where a ratio has nothing to
    count (no call made, none expected, no expected arguments)."""
    have, want = Counter(str(c["name"]) for c in made), Counter(str(c["name"]) for c in expected)
    hits = sum((have & want).values())
    with_args = [e for e in expected if e.get("args")]
    return {
        "precision": hits / sum(have.values()) if have else float("nan"),  # nothing called: undefined
        "recall": hits / sum(want.values()) if want else float("nan"),  # nothing expected: undefined
        "argument_match": (
            sum(any(_fits(m, e) for m in made) for e in with_args) / len(with_args) if with_args else float("nan")
        ),
    }
