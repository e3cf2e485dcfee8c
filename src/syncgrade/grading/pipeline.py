"""Stage 7 and the whole path: :func:`grade` runs the stages in order (submission ->
hidden data -> job -> child runs -> frames -> checks -> cause -> report); :func:`_assemble`
evaluates every check in the parent as a pure function over the frames."""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from syncgrade import sandbox
from syncgrade.courses import open_course
from syncgrade.errors import RubricError
from syncgrade.grading.cause import (
    CHANNEL_TAMPERED,
    GraderKilled,
    OutOfTime,
    cause_of,
    charge_stop,
    describe_termination,
    killed_from_outside,
    unbuilt_calls,
    void_for_tampering,
    workload_fault,
)
from syncgrade.grading.frames import parse_run, telling_outcome
from syncgrade.grading.hidden import hidden_data
from syncgrade.grading.job import call_groups
from syncgrade.grading.report import build_report, internal_error_report, unreadable_report
from syncgrade.grading.run import MIN_RUN_S, ChildRun, run_child
from syncgrade.grading.submission import Submission, read_submission
from syncgrade.limits import (
    DEFAULT_OVERHEAD_S,
    DEFAULT_TIMEOUT_S,
    STARTUP_TIMEOUT_S,
    STOP_RESERVE_S,
    check_memory_bytes,
    check_overhead,
    check_timeout,
)
from syncgrade.models import CheckResult, GradeReport
from syncgrade.pool import WarmPool
from syncgrade.rubric.base import Context, Exercise, Outcome, Skip
from syncgrade.rubric.compose import Part
from syncgrade.rubric.intervals import passing_picture
from syncgrade.rubric.registry import REGISTRY
from syncgrade.trace import CallFrame

if TYPE_CHECKING:
    from syncgrade.courses import Course


def grade(
    exercise_id: str,
    path: Path | None = None,
    *,
    source: str | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    memory_bytes: int | None = None,
    display_name: str | None = None,
    pool: WarmPool | None = None,
    course: str | os.PathLike[str] | Course | None = None,
    draw_passing: bool = False,
    overhead: float = DEFAULT_OVERHEAD_S,
) -> GradeReport:
    """Grade one submission of ``exercise_id``: a file (``path``, a ``Path``) or its text
    (``source=``), exactly one of them.

    ``pool``: a :class:`~syncgrade.pool.WarmPool` whose pre-started children run the
    submission (same isolation and the same report as a cold child, see
    :mod:`syncgrade.pool`); by default the process-wide pool when
    ``SYNCGRADE_WARM_POOL=N`` is set, else a cold child per run.

    ``course``: the course ``exercise_id`` belongs to: its folder, an installed course's
    name, or a :class:`~syncgrade.courses.Course` (default: ``$SYNCGRADE_COURSE``, else
    the built-in course; see :func:`syncgrade.courses.open_course`). Nothing of the
    course folder is visible to the child.

    ``draw_passing``: passing interval checks carry the picture of the first interval
    they judged too (failing ones always do; ``grade --passing``, ``%%grade --passing``,
    ``render_html(report, passing=True)``). Verdicts and scores are the same either way.

    ``overhead``: the grader's own seconds besides ``timeout``; the grade returns within
    ``timeout + overhead`` of this call (a start-up that would overrun it: a grader
    fault). A child killed from outside (:func:`_run_group`) is run once more.

    Raises only for usage errors: :class:`~syncgrade.rubric.UnknownExercise`,
    :class:`SubmissionError` (missing or unreadable file, neither or both given),
    ``TypeError`` (a ``str`` path, or a limit that is not a number),
    ``ValueError`` (a ``timeout`` or ``memory_bytes`` that is not finite and above 0,
    or is absurdly large: see :mod:`syncgrade.limits`; ``memory_bytes=None`` is the
    default), :class:`~syncgrade.courses.CourseError` (a ``ValueError``: no such course)
    and :class:`~syncgrade.rubric.RubricError` (the rubric failed its validation, or a
    workload it declares failed on its own code: :func:`.cause.workload_fault`). Every
    learner failure, and a fault of the grader itself (``status == "error"``), is in the
    returned report. Thread-safe: each call runs its own child and shares no state.
    """
    begun = time.monotonic()
    timeout = check_timeout(timeout)
    overhead = check_overhead(overhead)
    if memory_bytes is not None:
        memory_bytes = check_memory_bytes(memory_bytes)
    opened = open_course(course)
    exercise = opened.get(exercise_id)
    submission = read_submission(path, source=source, display_name=display_name)
    started = time.perf_counter()
    if submission.source is None:
        return unreadable_report(exercise, submission, timeout, time.perf_counter() - started)
    # The learner's timeout counts from each child's hello frame; start-ups are overhead.
    limits = sandbox.Limits(wall_s=timeout, startup_s=STARTUP_TIMEOUT_S,
                            **({"memory_bytes": memory_bytes} if memory_bytes else {}))
    hidden = hidden_data(exercise)
    inputs, references = hidden.inputs, hidden.references
    runs: list[ChildRun] = []
    try:
        used = 0.0  # the learner's time in the children so far: they share one budget
        for calls in call_groups(exercise):
            _run_group(runs, functools.partial(run_child, exercise, submission, hidden.npz,
                                               calls, pool=pool, hidden=opened.hidden_paths),
                       limits, max(timeout - used, MIN_RUN_S), begun + timeout + overhead)
            used += runs[-1].outcome.clock_s
            if runs[-1].outcome.termination != "exited":
                break  # a timeout or crash: later calls would only repeat it
        return _assemble(exercise, submission, inputs, runs, limits,
                         time.perf_counter() - started, references=references.result,
                         draw_passing=draw_passing)
    except Exception as exc:  # a grader fault: still a report, never a learner's traceback
        if isinstance(exc, RubricError):
            raise  # the exercise's own setup is broken (a declared workload's mistake)
        return internal_error_report(exercise, submission,
                                      runs[-1].outcome if runs else None, limits, exc,
                                      time.perf_counter() - started)

def _run_group(runs: list[ChildRun], run: Callable[[sandbox.Limits], ChildRun],
               limits: sandbox.Limits, wall_s: float, deadline: float) -> None:
    """Run one child (``run``) with ``wall_s`` of learner time and a start-up that ends in
    time for the grade's ``deadline`` (``time.monotonic()``); append each attempt to
    ``runs``. A child killed from outside is run once more if the deadline leaves room
    for a start-up and ``wall_s``.

    Raises :class:`OutOfTime` when no start-up fits before the deadline and
    :class:`GraderKilled` for a kill from outside that cannot be retried: grader faults.
    """
    killed: str | None = None
    for _ in range(2):
        startup = min(STARTUP_TIMEOUT_S,
                      deadline - time.monotonic() - wall_s - STOP_RESERVE_S)
        if startup <= 0:
            if killed is None:
                raise OutOfTime("no time was left in the grader's overhead budget to start "
                                "a grading child")
            raise GraderKilled(f"{killed}; no time was left to run it again")
        child = run(dataclasses.replace(limits, wall_s=wall_s, startup_s=startup))
        if killed is not None:
            runs.pop()  # the killed attempt: only the retry's results are graded
        runs.append(child)
        killed = killed_from_outside(child.outcome)
        if killed is None:
            return
    raise GraderKilled(f"{killed}, twice")


def _assemble(exercise: Exercise, submission: Submission, inputs: dict[str, np.ndarray],
              runs: Sequence[ChildRun], limits: sandbox.Limits, seconds: float, *,
              references: Callable[[], dict[str, Any]] | None = None,
              draw_passing: bool = False) -> GradeReport:
    """The report from one or more children (one per call group, in call order).
    ``references``: returns the exercise's references for ``inputs`` (default: computed
    here); ``draw_passing``: see :func:`grade`."""
    parsed = [parse_run(run) for run in runs]
    hello, load = parsed[0].hello, parsed[0].load
    frames: dict[str, CallFrame] = {}
    tampered: set[str] = set()
    for frames_of_run in parsed:
        frames.update(frames_of_run.calls)
        for step in (frames_of_run.load, frames_of_run.end):
            tampered.update(step.tampered if step else [])
        if frames_of_run.tampering:
            # Nothing from a forged channel is trusted: every check is voided below, and
            # the report says the channel was tampered with.
            tampered.add(f"{CHANNEL_TAMPERED}: {frames_of_run.tampering}")
    tampered.update(unbuilt_calls(exercise, inputs, frames))
    fault = workload_fault(exercise, frames)
    if fault is not None:
        raise fault  # the exercise's setup, not the learner's mistake nor a grader fault
    outcome = telling_outcome([run.outcome for run in runs])
    ctx = Context(
        exercise=exercise, display_name=submission.display_name, hello=hello, load=load,
        frames=frames, inputs=inputs,
        references=references() if references else exercise.make_references(inputs),
        termination=describe_termination(outcome, limits, submission.display_name),
        source_lines=tuple((submission.source or "").splitlines()),
    )
    checks = [_evaluate(ctx, spec, draw_passing) for spec in exercise.checks]
    broken = (len(runs) < len(call_groups(exercise)) or any(p.end is None for p in parsed)
              or any(run.outcome.termination != "exited" for run in runs))
    ordered = sorted(tampered, key=lambda t: (not t.startswith(CHANNEL_TAMPERED), t))
    if ordered:
        checks = [void_for_tampering(c, ordered) for c in checks]
    cause = cause_of(outcome, load, frames, broken=broken, tampered=bool(ordered))
    if cause != "graded":
        checks = [charge_stop(c, ctx.termination) for c in checks]
    return build_report(exercise, submission, checks, outcome, limits, seconds, hello,
                   cause=cause, tampered=ordered)


def _evaluate(ctx: Context, spec: Any, draw_passing: bool = False) -> CheckResult:
    try:
        outcome: Outcome = spec.fn(ctx, **spec.params)
    except Skip as skip:
        outcome = Outcome.skip(f"Not checked: {skip}.")
    if draw_passing and outcome.status == "passed" and outcome.evidence.interval is None:
        outcome = _with_passing_picture(ctx, spec, outcome)
    earned = spec.points if outcome.status == "passed" else 0.0
    return CheckResult(id=spec.id, title=spec.title, status=outcome.status, points=earned,
                       max_points=spec.points, message=outcome.message, hint=outcome.hint,
                       evidence=outcome.evidence, visibility=spec.visibility)


def _with_passing_picture(ctx: Context, spec: Any, outcome: Outcome) -> Outcome:
    """``outcome`` of a passing interval check (:attr:`CheckDef.judges`), with the picture
    of the first interval it judged; unchanged for any other check."""
    definition = REGISTRY.get(spec.id)
    if definition is None or definition.judges is None:
        return outcome
    # A check's own params, or those of each part of a check the measurement contract
    # combined (``rubric.contract``: one part per list of samples): the first that drew.
    parts = [spec.params] + [Part._make(part).params for part in spec.params.get("parts", ())]
    pictures = (passing_picture(ctx, params["call"], params.get(definition.judges))
                for params in parts if isinstance(params, dict) and "call" in params)
    try:
        evidence = next((e for e in pictures if e is not None), None)
    except Exception:  # a picture asked for never turns a pass into a grader fault
        return outcome
    if evidence is None:
        return outcome
    drawn = outcome.evidence.model_copy(
        update={"timeline": evidence.timeline, "interval": evidence.interval})
    return dataclasses.replace(outcome, evidence=drawn)
