"""The hidden rubrics. Parent-side only: never imported by the child process.

Each ``exercise_N`` module in this package defines ``EXERCISE``; they are collected here in
number order, so adding an exercise means adding one module.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from syncgrade.rubric.base import Exercise

_MODULE = re.compile(r"exercise_(\d+)$")


def _discover() -> dict[str, Exercise]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        match = _MODULE.match(info.name)
        if match:
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.append((int(match.group(1)), module.EXERCISE))
    return {exercise.id: exercise for _, exercise in sorted(found, key=lambda p: p[0])}


EXERCISES: dict[str, Exercise] = _discover()


class UnknownExercise(LookupError):
    """The exercise id is not one syncgrade knows."""


def get_exercise(exercise_id: str) -> Exercise:
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        known = ", ".join(EXERCISES)
        raise UnknownExercise(f"unknown exercise {exercise_id!r} (known: {known})") from None
