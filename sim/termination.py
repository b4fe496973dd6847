"""Why an episode ended. Rates are counts of these."""

from enum import StrEnum


class TerminationReason(StrEnum):
    CONVERGED = "converged"
    MAX_ROUNDS = "max_rounds"
    MAX_TURNS = "max_turns"
    PARTIAL = "partial_report"
    BUDGET = "budget_exhausted"
    ERROR = "error"
