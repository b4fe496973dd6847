"""The tribunal's state. Parallel branches write only reducer fields."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


class Finding(TypedDict):
    """One item a collector returns."""

    id: str
    criterion: str
    goal: str
    found: bool
    content: str
    location: str
    confidence: float
    tags: list[str]


class Evidence(Finding):
    """A finding with the collector that returned it."""

    collector: str


class Opinion(TypedDict):
    round: int
    judge: str
    criterion: str
    score: int
    cited: list[str]
    argument: str
    parsed: bool


class TribunalState(TypedDict, total=False):
    subject: str
    criteria: list[dict[str, Any]]  # id, dimension, title, description (never the hidden truth)
    evidence: Annotated[list[Evidence], operator.add]
    opinions: Annotated[list[Opinion], operator.add]
    errors: Annotated[list[dict[str, Any]], operator.add]
    branch_timings: Annotated[list[dict[str, Any]], operator.add]  # layer, branch, seconds, timed_out
    layer_timings: Annotated[list[dict[str, Any]], operator.add]  # layer, round, wall_seconds
    detective_started: float
    judicial_started: float
    evaluation_round: int
    reevaluations: int
    chief_feedback: str
    route: str
    verdicts: list[dict[str, Any]]
    applied_rules: Annotated[list[dict[str, Any]], operator.add]
    rulings: Annotated[list[dict[str, Any]], operator.add]  # per round: decision, contested criteria, verdicts
    converged: bool  # the last ruling left no criterion contested
    report: str
    partial: bool
