"""syncgrade: grade learners' JAX benchmarking code by what their timers really measured.

The Python API::

    from pathlib import Path
    import syncgrade

    report = syncgrade.grade("exercise-1", Path("submission.py"))           # a file
    report = syncgrade.grade("exercise-1", source=text, display_name="a.py") # its text
    report = syncgrade.grade("exercise-1", path, course=Path("my-course"))    # a course

Each returns a :class:`~syncgrade.models.GradeReport`. ``grade`` raises only for usage
errors: :class:`UnknownExercise`, :class:`SubmissionError` (missing file, neither or
both of a path and ``source=``), ``TypeError`` (a path given as ``str``), ``ValueError``
(a ``timeout`` or ``memory_bytes`` that is not finite and above 0, or is absurdly large;
see :mod:`syncgrade.limits`; also :class:`CourseError`, a ``ValueError``: no such course)
and :class:`RubricError` (the exercise's own rubric is broken: the author's mistake).

``course``: a course folder, an installed course's name, or ``None`` for
``$SYNCGRADE_COURSE``, else the built-in course (:mod:`syncgrade.courses`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from syncgrade.version import __version__

__all__ = ["CourseError", "GradeReport", "RubricError", "SubmissionError", "UnknownExercise",
           "__version__", "grade"]

if TYPE_CHECKING:
    from syncgrade.courses import CourseError
    from syncgrade.errors import SubmissionError
    from syncgrade.models import GradeReport
    from syncgrade.rubric import RubricError, UnknownExercise


def grade(exercise_id: str, path: Path | None = None, *, source: str | None = None,
          **options: Any) -> GradeReport:
    """Grade one submission; see :func:`syncgrade.grading.grade` for every option."""
    from syncgrade.grading import grade as _grade
    from syncgrade.picture import html as _html  # noqa: F401 (reports draw in notebooks)

    return _grade(exercise_id, path, source=source, **options)


def __getattr__(name: str) -> Any:
    if name == "GradeReport":
        from syncgrade.models import GradeReport

        return GradeReport
    if name == "SubmissionError":
        from syncgrade.errors import SubmissionError

        return SubmissionError
    if name == "UnknownExercise":
        from syncgrade.rubric import UnknownExercise

        return UnknownExercise
    if name == "CourseError":
        from syncgrade.courses import CourseError

        return CourseError
    if name == "RubricError":
        from syncgrade.rubric import RubricError

        return RubricError
    raise AttributeError(name)
