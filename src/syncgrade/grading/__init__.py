"""Grading, by stage: submission in, :class:`~syncgrade.models.GradeReport` out.

One way through (docs/architecture.md): :mod:`.submission` reads the submission,
:mod:`.hidden` makes the exercise's hidden data once per process, :mod:`.job` writes the
child's job, :mod:`.run` runs each child in the sandbox, :mod:`.frames` authenticates and
validates its frames (the wire format is :mod:`syncgrade.protocol`), :mod:`.pipeline`
evaluates every check in the parent as a pure function, :mod:`.cause` says why the run
ended and what tampering voids, and :mod:`.report` builds every kind of report with one
builder. The CLI, the service, batch, the platform containers and the Python API all call
:func:`grade`, or :func:`grade_result` where they quote the learner's lines (the lines as
graded, beside the report). This process never imports jax: only the child does.
"""

from __future__ import annotations

from syncgrade.errors import SubmissionError
from syncgrade.grading.pipeline import GradeResult, grade, grade_result
from syncgrade.grading.submission import Submission, read_submission

__all__ = ["GradeResult", "Submission", "SubmissionError", "grade", "grade_result",
           "read_submission"]
