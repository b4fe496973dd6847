"""``graph=interview``: an autonomous discovery interview that fills a schema's ASCR within a budget."""

from graphs.interview import build
from graphs.interview.params import InterviewParams
from graphs.registry import register

SPEC = register("interview", InterviewParams, build, metrics=("by_label",),
                roles={"interviewer": "system", "interviewee": "participant"})
