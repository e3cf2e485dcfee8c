"""The test-only tracer: a grader-side source run through the real child, frames back.

Used by tests that derive an answer key by tracing the grader's own code (exercise-2's
snippets, tests/rubric/test_exercise_2_key.py). No rubric code calls it, so it lives here, not in
``src``.
"""

from __future__ import annotations

from syncgrade import sandbox
from syncgrade.grading.frames import parse_run
from syncgrade.grading.hidden import npz_bytes
from syncgrade.grading.run import run_child
from syncgrade.grading.submission import Submission
from syncgrade.limits import DEFAULT_TIMEOUT_S, STARTUP_TIMEOUT_S
from syncgrade.rubric.base import Exercise
from syncgrade.trace import CallFrame


def trace(exercise: Exercise, source: str, *, display_name: str = "submission.py",
          timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, CallFrame]:
    """Run ``source`` through the child as a submission of ``exercise`` and return its
    validated call frames, by call id: no checks, no report.

    For grader-side sources only (deriving an answer key by tracing the grader's own code,
    e.g. exercise-2's snippets). Raises ``RuntimeError`` when the source did not load or the
    child did not finish, since a grader-side source must always run.
    """
    submission = Submission(source, display_name)
    run = run_child(exercise, submission, npz_bytes(exercise.make_inputs()), exercise.calls,
                     sandbox.Limits(wall_s=timeout, startup_s=STARTUP_TIMEOUT_S))
    outcome, parsed = run.outcome, parse_run(run)
    load, frames, end = parsed.load, parsed.calls, parsed.end
    if load is None or not load.ok or end is None or parsed.tampering:
        detail = load.error or load.problems if load else outcome.stderr.text[-2000:]
        raise RuntimeError(f"{display_name} did not run in the child: {detail}")
    return frames
