"""Every usage and authoring error syncgrade raises to its callers, in one place.

These are the errors an entry point (CLI, service, batch, platform containers) turns into
an exit code or an HTTP status; a learner's failure is never one of them (it is in the
report). Each is re-exported where it was first defined (``syncgrade.rubric``,
``syncgrade.rubric.validation``, ``syncgrade.courses``, ``syncgrade.engine``), so either
import works. Imports nothing.
"""

from __future__ import annotations

__all__ = ["CourseError", "RubricError", "SubmissionError", "UnknownExercise"]


class UnknownExercise(LookupError):
    """The exercise id is not one the course has."""


class RubricError(ValueError):
    """A rubric is wrong: its author must fix it. The message starts with
    ``rubric error in exercise-N:`` and names the check, call or param at fault."""


class CourseError(ValueError):
    """A course that cannot be opened (no such folder or installed course, a bad
    ``course.toml``): a usage error, one line."""


class SubmissionError(ValueError):
    """The submission could not be read at all (missing file): a usage error."""
