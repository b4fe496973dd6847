"""Interview state: last-write fields, an appending message list, and the ASCR merged by a reducer."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from dialectica.graphs.interview.ascr import merge_ascr


class InterviewState(TypedDict, total=False):
    ds_id: str
    project_id: str
    conversation_id: str
    budget_used: float  # spent so far; the budget is a param (Episode.params), so a replay can change it
    budget_left: float  # what checkpoints kept before 2026-11-29 hold instead (InterviewNodes.spent reads it)
    complete: bool
    end_reason: str  # criteria | budget
    target_field: str
    ascr: Annotated[dict[str, Any], merge_ascr]
    # {"from": interviewer|expert, "content", "field", "fallback"}; the interviewer's also "asked", the prompt it answered
    messages: Annotated[list[dict[str, Any]], operator.add]
    turn_log: Annotated[list[dict[str, Any]], operator.add]
    errors: Annotated[list[dict[str, Any]], operator.add]
