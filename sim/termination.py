"""Why an episode ended. Rates are counts of these."""

from enum import Enum


class TerminationReason(str, Enum):
    CONVERGED = "converged"
    MAX_ROUNDS = "max_rounds"
    ERROR = "error"
