"""`grade start`: copy an exercise's statement and stub into ./exercises/EXERCISE/.

The files come from the exercise's folder in its course (:mod:`syncgrade.courses`): its
``README.md``, and its ``stub.py`` as ``submission.py``. The built-in course ships inside
the package, so learners who installed syncgrade without a checkout can start. Nothing
else of the course folder (declaration, solution, mutants, corpus) is ever copied.

The stub handed out is always the course's own file, and the learner never edits it: the
copy goes to ``exercises/EXERCISE/submission.py`` under the destination, so ``--force``
restores the pristine stub, and starting again elsewhere hands out the stub, never a
learner's edits. No course file is ever written:

- In a source checkout the built-in course *is* ``exercises/`` at the top, so
  ``exercises/EXERCISE/`` is the exercise's own folder: only ``submission.py`` is written
  there, beside the statement (``README.md`` is not copied onto itself). Git ignores
  ``exercises/*/submission.py``, and the course never reads it (it is no course file).
- Any other target inside the course folder (a destination deeper in it), a target that
  is a course file through a link, or a target folder that is another course's exercise
  folder (it holds an ``exercise.py``) is refused.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from syncgrade.courses import Course

STATEMENT = "README.md"
SUBMISSION = "submission.py"
DECLARATION = "exercise.py"  # syncgrade.courses.DECLARATION: marks an exercise folder
STARTER_FILES = (STATEMENT, SUBMISSION)


class StarterError(Exception):
    """The stub could not be copied (missing from the course, or would overwrite work)."""


def starter_sources(exercise_id: str,
                    course: str | os.PathLike[str] | Course | None = None) -> list[Path]:
    """The course files handed out, in :data:`STARTER_FILES` order."""
    from syncgrade.courses import open_course

    files = open_course(course).folder(exercise_id)
    sources = [files.readme, files.stub]
    for source in sources:
        if not source.is_file():
            raise StarterError(f"the course has no {source.name} for {exercise_id} "
                               f"({source})")
    return sources


def start(exercise_id: str, destination: Path, *, force: bool = False,
          course: str | os.PathLike[str] | Course | None = None) -> list[Path]:
    """Copy the starter files into ``destination/exercises/<id>/``; return the paths
    written (``README.md`` is left out when that folder is the exercise's own: the
    statement is already there).

    ``course``: as :func:`syncgrade.courses.open_course` takes it (default:
    ``$SYNCGRADE_COURSE``, else the built-in course). Refuses to overwrite an existing
    file unless ``force``: a learner's work is never lost. Never writes a course file
    (:func:`_refuse_course_targets`).
    """
    from syncgrade.courses import open_course

    opened = open_course(course)
    sources = starter_sources(exercise_id, opened)
    target = destination / "exercises" / exercise_id
    pairs = list(zip(sources, (target / name for name in STARTER_FILES), strict=True))
    own = opened.folder(exercise_id).folder
    if Path(os.path.abspath(target)) == own:  # a checkout: the statement is already here
        pairs = [(source, path) for source, path in pairs if path.name != STATEMENT]
    written = [path for _, path in pairs]
    _refuse_course_targets(written, opened.root, own, sources)
    existing = [p for p in written if p.exists()]
    if existing and not force:
        raise StarterError(f"{existing[0]} already exists (use --force to overwrite it)")
    target.mkdir(parents=True, exist_ok=True)
    for source, path in pairs:
        path.write_bytes(source.read_bytes())
    return written


def _refuse_course_targets(written: list[Path], root: Path, own: Path,
                           sources: list[Path]) -> None:
    """:class:`StarterError` when a file ``start`` would write is a course file: one of
    its ``sources`` (links resolved), anything inside the course folder ``root`` other
    than ``submission.py`` in the exercise's ``own`` folder itself (not reached through a
    link), or a file in another course's exercise folder (one holding an
    ``exercise.py``)."""
    course = root.resolve()
    originals = {source.resolve() for source in sources}
    for path in written:
        real = path.resolve()
        here = Path(os.path.abspath(path.parent)) == own
        allowed = here and path.name == SUBMISSION and real == own.resolve() / SUBMISSION
        foreign = (path.parent / DECLARATION).exists() and not here
        if real in originals or (real.is_relative_to(course) and not allowed) or foreign:
            raise StarterError(f"{path} is inside the course folder "
                               f"{path.parent if foreign else root}; the course's files "
                               "stay as they ship, so run `grade start` from your own "
                               "folder")
