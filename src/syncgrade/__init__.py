"""syncgrade: grade learners' JAX benchmarking code by what their timers really measured.

``grade(exercise_id, path_or_source, timeout=...)`` is the whole API; it returns a
:class:`~syncgrade.models.GradeReport`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["GradeReport", "__version__", "grade"]

if TYPE_CHECKING:
    from syncgrade.models import GradeReport


def grade(exercise_id: str, path_or_source: Any, **options: Any) -> GradeReport:
    """Grade one submission; see :func:`syncgrade.engine.grade`."""
    from syncgrade.engine import grade as _grade

    return _grade(exercise_id, path_or_source, **options)


def __getattr__(name: str) -> Any:
    if name == "GradeReport":
        from syncgrade.models import GradeReport

        return GradeReport
    raise AttributeError(name)
