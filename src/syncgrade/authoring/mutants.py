"""Mutants: known-wrong variants of an exercise's solution, each declaring what it fails.

An exercise's mutants are the ``[[mutant]]`` entries of its ``mutants.toml``
(the grammar is :mod:`syncgrade.authoring.cases`'): a ``name``, the ``flaw`` (the mistake a
learner might make, one line), ``expect-fail`` (the EXACT set of check ids grading it must
fail; every other check passes or is skipped) and ``edit`` tables (``old`` -> ``new``),
applied in order to the CURRENT solution, in memory:

.. code-block:: toml

    [[mutant]]
    name = "no_wait"
    flaw = "no wait on the output before the timer stops"
    expect-fail = ["sync-before-stop", "covers-device-work"]

      [[mutant.edit]]
      old = \"\"\"
            out.block_until_ready()  # wait for *this* call's output before stopping
    \"\"\"
      new = ""

A mutant is the solution plus one mistake: when the solution changes, every mutant changes
with it, and an edit whose ``old`` text is gone (or no longer unique) fails validation,
naming the mutant and the edit. ``grade validate --write-mutants DIR`` writes each one out
as a file (:func:`write_mutants`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Union

from syncgrade.authoring.cases import Case, CaseError, parse_mutants

if TYPE_CHECKING:
    from syncgrade.courses import Course

MUTANTS_FILE = "mutants.toml"

Mutant = Case
"""A mutant is a :class:`~syncgrade.authoring.cases.Case` of kind ``"mutant"``."""
MutantError = CaseError


CourseSpec = Union[str, "os.PathLike[str]", "Course", None]
"""A course as :func:`syncgrade.courses.open_course` takes it (None: the default course)."""


def solution_path(course: CourseSpec, exercise_id: str) -> Path:
    """The exercise's ``solution.py`` in its course folder."""
    from syncgrade.courses import open_course

    return open_course(course).folder(exercise_id).solution


def mutants_file(course: CourseSpec, exercise_id: str) -> Path:
    """Where the exercise's mutants are declared: its ``mutants.toml``."""
    from syncgrade.courses import open_course

    return open_course(course).folder(exercise_id).mutants


def read_mutants(course: CourseSpec, exercise_id: str) -> list[Mutant]:
    """Every mutant of the exercise, strictly: :class:`MutantError` for the first problem
    of the file or of an entry (names the file and the mutant)."""
    from syncgrade.courses import open_course

    root = open_course(course).root
    path = mutants_file(course, exercise_id)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MutantError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    origin = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    return parse_mutants(text, origin, exercise_id, path)


def mutant_text(mutant: Mutant, solution: str) -> str:
    """A mutant as a file someone can run: its header, then the edited solution
    (:class:`~syncgrade.authoring.cases.EditError` when an edit does not apply)."""
    return mutant.header() + mutant.apply(solution)


def write_mutants(course: CourseSpec, exercise_ids: list[str], out: Path) -> list[Path]:
    """Write every mutant of ``exercise_ids`` as ``out/<exercise>/<name>.py``; return the
    paths. Raises :class:`MutantError` (before writing anything) when a mutants.toml or an
    edit is wrong."""
    texts: dict[Path, str] = {}
    for exercise_id in exercise_ids:
        if not mutants_file(course, exercise_id).is_file():
            continue
        mutants = read_mutants(course, exercise_id)
        try:
            solution = solution_path(course, exercise_id).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MutantError(f"{exercise_id}: no solution to apply the mutants' edits to "
                              f"({exc.__class__.__name__})") from None
        for mutant in mutants:
            texts[out / exercise_id / f"{mutant.name}.py"] = mutant_text(mutant, solution)
    for path, text in texts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(texts)
