"""The grading engine's old address, kept so callers and tests keep working.

The engine is now the package :mod:`syncgrade.grading`, one module per stage (see
docs/architecture.md). This module only re-exports its public names (and the few private
ones tests reach for); new code should import from :mod:`syncgrade.grading`.
"""

from __future__ import annotations

from syncgrade import sandbox
from syncgrade.errors import SubmissionError
from syncgrade.grading.cause import (
    describe_termination,
    learner_line_from_stack,
    spec_problem,
    unbuilt_calls,
)
from syncgrade.grading.frames import (
    CHANNEL_TAMPERED,
    PARSE_BUDGET,
    Frames,
    parse_frames,
    within_parse_budget,
)
from syncgrade.grading.frames import parse_run as _parse_run
from syncgrade.grading.hidden import HiddenData
from syncgrade.grading.hidden import hidden_data as _hidden_data
from syncgrade.grading.job import hidden_paths
from syncgrade.grading.pipeline import _assemble, _evaluate, grade
from syncgrade.grading.report import internal_error_report as _internal_error_report
from syncgrade.grading.report import unreadable_report as _unreadable_report
from syncgrade.grading.run import MIN_RUN_S, ChildRun
from syncgrade.grading.run import run_child as _run_child
from syncgrade.grading.submission import Submission, read_submission
from syncgrade.rubric.validation import SPEC_KINDS

__all__ = [
    "CHANNEL_TAMPERED",
    "MIN_RUN_S",
    "PARSE_BUDGET",
    "SPEC_KINDS",
    "ChildRun",
    "Frames",
    "HiddenData",
    "Submission",
    "SubmissionError",
    "_assemble",
    "_evaluate",
    "_hidden_data",
    "_internal_error_report",
    "_parse_run",
    "_run_child",
    "_unreadable_report",
    "describe_termination",
    "grade",
    "hidden_paths",
    "learner_line_from_stack",
    "parse_frames",
    "read_submission",
    "sandbox",
    "spec_problem",
    "unbuilt_calls",
    "within_parse_budget",
]
