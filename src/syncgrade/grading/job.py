"""Stage 3: the child's job file (what to load and call, with a fresh frame key), the
call groups (one child or one per call) and what the child must not see."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from syncgrade.grading.submission import Submission
from syncgrade.rubric.base import Exercise, GraderCall
from syncgrade.rubric.contract import reference_requests


def call_groups(exercise: Exercise) -> list[tuple[GraderCall, ...]]:
    """The calls each child runs: all in one child, or one child per call when the
    exercise isolates its calls (so a submission cannot tell them apart by order)."""
    if exercise.isolate_calls:
        return [(call,) for call in exercise.calls]
    return [exercise.calls]

def hidden_paths(exercise: Exercise) -> tuple[Path, ...]:
    """What the child must not see besides the defaults (:func:`syncgrade.pool.
    child_command`): the folder of the course the exercise belongs to, whole, and that
    course's solutions folder (``course.toml``'s ``solutions``) when it names one."""
    if exercise.folder is None:
        return ()
    from syncgrade.courses import CourseError, course_hidden_paths

    root = exercise.folder.parent
    try:
        return course_hidden_paths(root)
    except CourseError:  # the course opened with it; hide the folder at least
        return (root,)

def build_job(exercise: Exercise, submission: Submission,
         calls: Sequence[GraderCall] | None = None) -> dict[str, Any]:
    """The child's job. ``key`` (fresh per run) authenticates its frames: the child keeps
    it only in the sealed recorder core (docs/security.md, "Authenticated frames")."""
    return {
        "key": secrets.token_hex(32),
        "display_name": submission.display_name,
        "submission": "submission.py",
        "inputs": "inputs.npz",
        "required": [r.job() for r in exercise.required],
        "calls": [_call_job(exercise, call)
                  for call in (exercise.calls if calls is None else calls)],
    }


def _call_job(exercise: Exercise, call: GraderCall) -> dict[str, Any]:
    """One call of the job, with the grader's own timings its lists of samples ask for
    (``reference``: the ``sample-duration`` check, :func:`reference_requests`)."""
    job = call.job()
    requests = reference_requests(exercise.samples, call.id)
    if requests and not call.attribute:
        job["reference"] = requests
    return job
