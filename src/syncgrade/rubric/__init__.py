"""The hidden rubrics' library, and the exercises of a course. Parent-side only: never
imported by the child process.

An exercise is declared in its course folder's ``exercise.py`` (``EXERCISE =
Exercise(...)``, as docs/authoring.md describes) and loaded by :mod:`syncgrade.courses`
(``courses.get_exercise``, ``courses.EXERCISES``), which sits above this package: the
rubric library never imports the courses that use it.

Every declaration is validated as it loads (:mod:`syncgrade.rubric.validation`).
"""

from __future__ import annotations

from syncgrade.errors import UnknownExercise as UnknownExercise  # re-exported
from syncgrade.rubric.base import Exercise
from syncgrade.rubric.validation import (
    RubricError,
    validate,
    validate_data,
    validate_declaration,
)

__all__ = ["RubricError", "UnknownExercise", "validate"]
__all__ += ["Exercise", "validate_data", "validate_declaration"]  # re-exported
