"""`grade start`: copy an exercise's statement and stub into ./exercises/EXERCISE/.

The files come from the exercise's folder in its course (:mod:`syncgrade.courses`): its
``README.md``, and its ``stub.py`` as ``submission.py``. The built-in course ships inside
the package, so learners who installed syncgrade without a checkout can start. Nothing
else of the course folder (declaration, solution, mutants, corpus) is ever copied.

The stub handed out is always the course's own file, and the learner never edits it: the
copy goes to ``exercises/EXERCISE/submission.py`` under the destination, and a
destination inside the course folder (or any target that is a course file, through a
link) is refused. So ``--force`` restores the pristine stub, and starting again elsewhere
hands out the stub, never a learner's edits. (Before the built-in course moved into
``syncgrade/course/``, the package's stubs were a link to the checkout's tracked
``exercises/`` folder: in an editable install, ``grade start`` in the clone's root read
and wrote the very same files.) In a checkout, ``exercises/`` at the top is the learner's
and git ignores it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from syncgrade.courses import Course

STARTER_FILES = ("README.md", "submission.py")


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
    """Copy the starter files into ``destination/exercises/<id>/``; return the paths.

    ``course``: as :func:`syncgrade.courses.open_course` takes it (default:
    ``$SYNCGRADE_COURSE``, else the built-in course). Refuses to overwrite an existing
    file unless ``force``: a learner's work is never lost.
    """
    from syncgrade.courses import open_course

    opened = open_course(course)
    sources = starter_sources(exercise_id, opened)
    target = destination / "exercises" / exercise_id
    written = [target / name for name in STARTER_FILES]
    _refuse_course_targets(written, opened.root, sources)
    existing = [p for p in written if p.exists()]
    if existing and not force:
        raise StarterError(f"{existing[0]} already exists (use --force to overwrite it)")
    target.mkdir(parents=True, exist_ok=True)
    for source, path in zip(sources, written, strict=True):
        path.write_bytes(source.read_bytes())
    return written


def _refuse_course_targets(written: list[Path], root: Path, sources: list[Path]) -> None:
    """:class:`StarterError` when a file ``start`` would write is inside the course folder
    ``root`` or is one of its ``sources`` (links resolved)."""
    course = root.resolve()
    originals = {source.resolve() for source in sources}
    for path in written:
        real = path.resolve()
        if real in originals or real.is_relative_to(course):
            raise StarterError(f"{path} is inside the course folder {root}; the course's "
                               "files stay as they ship, so run `grade start` from your "
                               "own folder")
