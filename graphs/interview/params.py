"""Settings of the interview loop (``conf/graph/interview.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass

from dialectica.graph import bounded


@dataclass(frozen=True)
class InterviewParams:
    budget: float = bounded(10.0, 0.0, 1000.0)  # the seed's budget-left at the start
    question_cost: float = bounded(1.0, 0.001, 1000.0)  # check_budget takes this off per question
