"""The hidden rubrics. Parent-side only: never imported by the child process.

Each ``exercise_N`` module in this package defines ``EXERCISE`` (an
:class:`~syncgrade.rubric.base.Exercise`, declared as docs/authoring.md describes); they
are collected here in number order, so adding an exercise means adding one module.

Every rubric is validated as it loads (:mod:`syncgrade.rubric.validation`). Importing this
package never raises for a broken rubric: that exercise is left out of :data:`EXERCISES`,
its :class:`RubricError` is kept in :data:`RUBRIC_ERRORS`, and :func:`get_exercise` raises
it, so the author sees "rubric error in exercise-N: ..." and the other exercises still
grade.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import threading
import traceback

from syncgrade.rubric.base import Exercise
from syncgrade.rubric.validation import (
    RubricError,
    validate,
    validate_data,
    validate_declaration,
)

__all__ = ["EXERCISES", "RUBRIC_ERRORS", "RubricError", "UnknownExercise", "get_exercise",
           "validate"]

_MODULE = re.compile(r"exercise_(\d+)$")


def _import_problem(exercise_id: str, module: str, exc: Exception) -> RubricError:
    """A rubric module that raised while importing, as a one-line author's error that
    names the rubric's own line."""
    basename = module.rsplit(".", 1)[-1] + ".py"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if os.path.basename(f.filename) == basename]
    line = f" (line {frames[-1].lineno})" if frames else ""
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = f" (line {exc.lineno})"
    return RubricError(f"rubric error in {exercise_id}: the module {module} failed to "
                       f"import{line}: {type(exc).__name__}: {exc}")


def _discover() -> tuple[dict[str, Exercise], dict[str, RubricError]]:
    found: list[tuple[int, Exercise]] = []
    broken: dict[str, RubricError] = {}
    for info in pkgutil.iter_modules(__path__):
        match = _MODULE.match(info.name)
        if not match:
            continue
        number = int(match.group(1))
        exercise_id = f"exercise-{number}"
        module_name = f"{__name__}.{info.name}"
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:  # the author's module is broken: report, don't crash
            broken[exercise_id] = _import_problem(exercise_id, module_name, exc)
            continue
        exercise = getattr(module, "EXERCISE", None)
        try:
            validate_declaration(exercise, expected_id=exercise_id)
        except RubricError as exc:
            broken[exercise_id] = exc
            continue
        found.append((number, exercise))  # type: ignore[arg-type]  # validated above
    exercises = {exercise.id: exercise for _, exercise in sorted(found, key=lambda p: p[0])}
    return exercises, broken


EXERCISES: dict[str, Exercise]
"""The exercises whose rubric is valid, in number order."""
RUBRIC_ERRORS: dict[str, RubricError]
"""Why each broken rubric was left out, by exercise id."""
EXERCISES, RUBRIC_ERRORS = _discover()

_DATA_CHECKED: set[str] = set()
_DATA_LOCK = threading.Lock()


class UnknownExercise(LookupError):
    """The exercise id is not one syncgrade knows."""


def get_exercise(exercise_id: str) -> Exercise:
    """The exercise, validated. Raises :class:`UnknownExercise` for an id no module
    declares and :class:`RubricError` for a broken rubric. The first call per exercise
    and process also runs :func:`~syncgrade.rubric.validation.validate_data` (hidden input
    and reference names; it calls ``make_inputs``/``make_references`` once)."""
    if exercise_id in RUBRIC_ERRORS:
        raise RUBRIC_ERRORS[exercise_id]
    try:
        exercise = EXERCISES[exercise_id]
    except KeyError:
        known = ", ".join(EXERCISES)
        raise UnknownExercise(f"unknown exercise {exercise_id!r} (known: {known})") from None
    if exercise_id not in _DATA_CHECKED:
        with _DATA_LOCK:
            if exercise_id not in _DATA_CHECKED:
                validate_data(exercise)
                _DATA_CHECKED.add(exercise_id)
    return exercise
