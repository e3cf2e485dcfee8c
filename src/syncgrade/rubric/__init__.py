"""The hidden rubrics' library, and the exercises of a course. Parent-side only: never
imported by the child process.

An exercise is declared in its course folder's ``exercise.py`` (``EXERCISE =
Exercise(...)``, as docs/authoring.md describes) and loaded by :mod:`syncgrade.courses`.
:func:`get_exercise` finds one in a course (``course=``: a folder, an installed course's
name, or ``None`` for ``$SYNCGRADE_COURSE``, else the built-in course).

Every declaration is validated as it loads (:mod:`syncgrade.rubric.validation`). Opening a
course never raises for a broken declaration: that exercise is left out of the course's
exercises, its :class:`RubricError` is kept, and :func:`get_exercise` raises it, so the
author sees "rubric error in exercise-N: ..." and the other exercises still grade.

:data:`EXERCISES` and :data:`RUBRIC_ERRORS` are the built-in course's (loaded on first
use).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from syncgrade.errors import UnknownExercise as UnknownExercise  # re-exported
from syncgrade.rubric.base import Exercise
from syncgrade.rubric.validation import (
    RubricError,
    validate,
    validate_data,
    validate_declaration,
)

if TYPE_CHECKING:
    from syncgrade.courses import Course

__all__ = ["EXERCISES", "RUBRIC_ERRORS", "RubricError", "UnknownExercise", "get_exercise",
           "validate"]
__all__ += ["Exercise", "validate_data", "validate_declaration"]  # re-exported




def get_exercise(exercise_id: str,
                 course: str | os.PathLike[str] | Course | None = None) -> Exercise:
    """The exercise ``exercise_id`` of ``course`` (default: ``$SYNCGRADE_COURSE``, else
    the built-in course), validated. Raises :class:`UnknownExercise` for an id the course
    has no folder for, :class:`RubricError` for a broken declaration and
    :class:`~syncgrade.courses.CourseError` (a ``ValueError``) for a course that cannot be
    opened. The first call per exercise and process also runs
    :func:`~syncgrade.rubric.validation.validate_data` (hidden input and reference names;
    it calls ``make_inputs``/``make_references`` once)."""
    from syncgrade.courses import open_course

    return open_course(course).get(exercise_id)


EXERCISES: dict[str, Exercise]
"""The built-in course's exercises whose declaration is valid, in number order."""
RUBRIC_ERRORS: dict[str, RubricError]
"""Why each broken declaration of the built-in course was left out, by exercise id."""


def __getattr__(name: str) -> Any:
    if name in ("EXERCISES", "RUBRIC_ERRORS"):
        from syncgrade.courses import builtin_course

        course = builtin_course()
        return course.exercises if name == "EXERCISES" else course.errors
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
