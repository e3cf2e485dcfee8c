"""The whole path: :func:`grade` runs the grading stages in order, each a function from the
value of the stage before to its own (docs/architecture.md, "The grading stages"):

submission (:func:`.submission.read_submission` -> :class:`.submission.Submission`) ->
run (:func:`run_children` -> :class:`Ran`) -> frames (:func:`read_frames` ->
:class:`Evidence`) -> verdicts (:func:`evaluate_checks` -> :class:`Verdicts`) -> cause
(:func:`decide_cause` -> :class:`Judged`) -> report (:func:`report_of` ->
:class:`~syncgrade.models.GradeReport`).

Every check is evaluated in the parent as a pure function of the frames."""

from __future__ import annotations

import dataclasses
import functools
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from syncgrade import sandbox, timing
from syncgrade.courses import open_course
from syncgrade.errors import RubricError
from syncgrade.grading.cause import (
    CHANNEL_TAMPERED,
    GraderKilled,
    OutOfTime,
    StartupOverrun,
    cause_of,
    charge_stop,
    describe_termination,
    killed_from_outside,
    unbuilt_calls,
    void_for_tampering,
    workload_fault,
)
from syncgrade.grading.frames import Frames, parse_run, telling_outcome
from syncgrade.grading.hidden import HiddenData, hidden_data
from syncgrade.grading.job import call_groups
from syncgrade.grading.report import build_report, internal_error_report, unreadable_report
from syncgrade.grading.run import MIN_RUN_S, ChildRun, run_child
from syncgrade.grading.submission import Submission, read_submission
from syncgrade.limits import (
    DEFAULT_MEMORY_BYTES,
    DEFAULT_OVERHEAD_S,
    DEFAULT_TIMEOUT_S,
    STARTUP_TIMEOUT_S,
    STOP_RESERVE_S,
    Deadline,
    check_memory_bytes,
    check_overhead,
    check_timeout,
)
from syncgrade.models import Cause, CheckResult, GradeReport
from syncgrade.pool import WarmPool
from syncgrade.rubric.base import Context, Exercise, Outcome, Skip
from syncgrade.rubric.compose import Part
from syncgrade.rubric.intervals import passing_picture
from syncgrade.rubric.registry import REGISTRY
from syncgrade.rubric.timeline import marked
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
    """Grade one submission of ``exercise_id``: the report of :func:`grade_result`, which
    says every option and what each report holds. Raises what it raises, only for usage
    errors: ``UnknownExercise``, ``SubmissionError``, ``TypeError``, ``ValueError`` (a
    limit that is not finite and above 0), ``CourseError`` and ``RubricError``; every
    learner failure and grader fault is in the report."""
    return grade_result(exercise_id, path, source=source, timeout=timeout,
                        memory_bytes=memory_bytes, display_name=display_name, pool=pool,
                        course=course, draw_passing=draw_passing, overhead=overhead).report


@dataclasses.dataclass(frozen=True)
class GradeResult:
    """What one grade returns to an entry point: the report, and the submission's lines
    exactly as they were graded, to quote in the report's timelines.

    The lines are read once, by the grade (:attr:`.submission.Submission.lines`: UTF-8,
    a byte-order mark dropped; a notebook's cell as graded), never from the file again:
    a file saved or deleted since it was graded (``grade watch`` grades while the learner
    edits) would quote lines that were not graded. They ride beside the report, not in
    it: the report is the public, versioned JSON every platform, batch record and HTTP
    answer carries, and the learner's whole file there would grow each of them by the
    file's size for the few lines a timeline quotes. Nothing hidden is here: only the
    learner's own text."""

    report: GradeReport
    source_lines: tuple[str, ...] | None
    """``None``: nothing was graded (an empty, binary or non-UTF-8 file)."""


def grade_result(
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
    started_at: float | None = None,
) -> GradeResult:
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
    ``timeout + overhead`` of this call, or of ``started_at`` (a ``time.monotonic()``
    reading: a platform entry point passes its process's start, whose own start-up is
    then in the budget too) (a start-up that would overrun it: a grader fault, naming
    that budget). A child killed from outside (:func:`run_group`) is run once more.

    Returns the report with the submission's lines as graded (:class:`GradeResult`).
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
    begun = timing.monotonic() if started_at is None else started_at
    timeout = check_timeout(timeout)
    overhead = check_overhead(overhead)
    memory_bytes = None if memory_bytes is None else check_memory_bytes(memory_bytes)
    opened = open_course(course)
    exercise = opened.get(exercise_id)
    submission = read_submission(path, source=source, display_name=display_name)
    started = time.perf_counter()
    if submission.source is None:
        return GradeResult(unreadable_report(exercise, submission, timeout,
                                             time.perf_counter() - started), None)
    # The learner's timeout counts from each child's hello frame; start-ups are overhead.
    limits = sandbox.Limits(wall_s=timeout, startup_s=STARTUP_TIMEOUT_S,
                            memory_bytes=memory_bytes or DEFAULT_MEMORY_BYTES)
    data = hidden_data(exercise)
    runs: list[ChildRun] = []  # filled as each child ends: a fault's report shows the last
    try:
        ran = run_children(exercise, submission, data, limits, runs, started=started,
                           deadline=Deadline.after(begun, timeout, overhead), pool=pool,
                           hidden=opened.hidden_paths)
        evidence = read_frames(ran)
        verdicts = evaluate_checks(evidence, draw_passing=draw_passing)
        judged = decide_cause(verdicts)
        return GradeResult(report_of(judged), submission.lines)
    except Exception as exc:  # a grader fault: still a report, never a learner's traceback
        if isinstance(exc, RubricError):
            raise  # the exercise's own setup is broken (a declared workload's mistake)
        return GradeResult(internal_error_report(exercise, submission,
                                                 runs[-1].outcome if runs else None, limits,
                                                 exc, time.perf_counter() - started),
                           submission.lines)


@dataclasses.dataclass(frozen=True)
class Ran:
    """Stage 2, *run*: every child of one grade has ended (one per call group, in call
    order; fewer when one stopped early). What the later stages need of the grade rides
    along, so each stage reads only the value before it."""

    exercise: Exercise
    submission: Submission
    inputs: dict[str, np.ndarray]
    references: Callable[[], dict[str, Any]] | None
    """Returns the references for ``inputs``; ``None``: computed from the exercise."""
    limits: sandbox.Limits
    runs: tuple[ChildRun, ...]
    seconds: float
    """The grader's seconds from reading the submission to the last child's end."""


def run_children(exercise: Exercise, submission: Submission, data: HiddenData,
                 limits: sandbox.Limits, runs: list[ChildRun], *, started: float,
                 deadline: Deadline, pool: WarmPool | None, hidden: Sequence[Path]) -> Ran:
    """Stage 2: run the submission's children, one call group at a time, sharing the
    learner's ``limits.wall_s``; stop after a child that did not exit (a timeout or
    crash: later calls would only repeat it). Each child that ends is appended to ``runs``
    at once (a grader fault's report shows the last). ``started``: the
    ``time.perf_counter()`` the grade's seconds count from; ``deadline``: the grade's;
    ``data``: the exercise's hidden inputs and
    references (:func:`.hidden.hidden_data`); ``hidden``: what the child must not see."""
    used = 0.0  # the learner's time in the children so far: they share one budget
    for calls in call_groups(exercise):
        one = functools.partial(run_child, exercise, submission, data.npz, calls,
                                pool=pool, hidden=hidden)
        run_group(runs, one, limits, max(limits.wall_s - used, MIN_RUN_S), deadline,
                  retry=functools.partial(one, cold=True))
        used += runs[-1].outcome.clock_s
        if runs[-1].outcome.termination != "exited":
            break
    return Ran(exercise, submission, data.inputs, data.references.result, limits,
               tuple(runs), time.perf_counter() - started)


def run_group(runs: list[ChildRun], run: Callable[[sandbox.Limits], ChildRun],
              limits: sandbox.Limits, wall_s: float, deadline: Deadline, *,
              retry: Callable[[sandbox.Limits], ChildRun] | None = None) -> None:
    """Run one child (``run``) with ``wall_s`` of learner time and a start-up that ends in
    time for the grade's ``deadline`` (on :func:`syncgrade.timing.monotonic`); append each
    attempt to ``runs``. A child is started (a killed one once more) while anything is
    left before the deadline beyond the stop reserve, even less than ``wall_s``: a child
    that then runs out of time before its ``wall_s`` is not charged, and one whose code
    ends in time is graded (:meth:`~syncgrade.limits.Deadline.too_short`).

    The start-up is never charged to the learner: it may take whatever is left before
    the deadline (less :data:`~syncgrade.limits.STOP_RESERVE_S`, at most
    :data:`~syncgrade.limits.STARTUP_TIMEOUT_S`), and the whole child must end by then
    (``Limits.end_s``); a child the deadline stopped before it had its full ``wall_s``
    is the grader's fault, never the learner's timeout.

    Raises grader faults: :class:`OutOfTime` when nothing is left to start a child or
    the deadline cut the learner's time short,
    :class:`StartupOverrun` when the start-up overran it, and :class:`GraderKilled` for
    a kill from outside that cannot be retried; each names the budget that applied, with
    its numbers (:meth:`~syncgrade.limits.Deadline.named`).

    ``retry``: how the run after a kill is made (default: ``run``; the engine's is a
    cold child, so that its start-up is this grade's and a kill in it counts: a pool
    would wait for, and silently replace, a pooled child killed while it starts)."""
    killed: str | None = None
    for _ in range(2):
        now = timing.monotonic()
        left = deadline.left(now)
        why = deadline.too_short(now)
        if why:  # nothing left for a child at all
            if killed is None:
                raise OutOfTime(f"no grading child was started: {why}; not charged")
            raise GraderKilled(f"{killed}; it could not be run again: {why}")
        startup = min(STARTUP_TIMEOUT_S, left)
        make = run if killed is None or retry is None else retry
        child = make(dataclasses.replace(limits, wall_s=wall_s, startup_s=startup,
                                         end_s=left))
        if killed is not None:
            runs.pop()  # the killed attempt: only the retry's results are graded
        runs.append(child)
        killed = killed_from_outside(child.outcome)
        if killed is None:
            not_charged(child.outcome, startup, wall_s, deadline)
            return
    raise GraderKilled(f"{killed}, twice")


def not_charged(outcome: sandbox.SandboxOutcome, startup: float, wall_s: float,
                deadline: Deadline) -> None:
    """Raise the grader fault when ``outcome`` ended on the grader's time, not the
    learner's: its start-up overran the ``startup`` budget it was given
    (:class:`StartupOverrun`, naming that budget and where it came from), or the grade's
    ``deadline`` stopped it before it had its ``wall_s`` (:class:`OutOfTime`, naming
    the deadline's budget)."""
    if outcome.startup_timeout:
        source = ("the start-up cap" if startup >= STARTUP_TIMEOUT_S else
                  f"what was left before {deadline.named()}, less {STOP_RESERVE_S:g} s to "
                  "stop the child")
        raise StartupOverrun(f"the grading child did not start within its start-up budget "
                             f"of {startup:.1f} s ({source}), before loading the "
                             f"submission: {outcome.stderr.text[-1500:]}")
    if outcome.cut_short:
        took = outcome.wall_s - outcome.clock_s
        raise OutOfTime(f"the grading child's start-up took {took:.1f} s, so "
                        f"{deadline.named()} stopped the submission after "
                        f"{outcome.clock_s:.1f} s of its {wall_s:g} s: not charged; grade it "
                        "again when the machine is less loaded")


@dataclasses.dataclass(frozen=True)
class Evidence:
    """Stage 3, *frames*: the children's frames, authenticated and validated, merged."""

    ran: Ran
    parsed: tuple[Frames, ...]
    """Each run's frames, in the order of ``ran.runs``."""
    frames: dict[str, CallFrame]
    """Every call's frame, by call id."""
    tampered: tuple[str, ...]
    """What tampering was found, a forged channel first (empty: none)."""
    outcome: sandbox.SandboxOutcome
    """The outcome that tells how the grade's run ended (:func:`.frames.telling_outcome`)."""
    broken: bool
    """A child did not exit, did not send its end frame, or a call group never ran."""


def read_frames(ran: Ran) -> Evidence:
    """Stage 3: authenticate and validate each child's frames and merge them; note what
    was tampered with, arguments the rubric could not build included.

    Raises the :class:`~syncgrade.rubric.RubricError` of a declared workload that failed
    on its own code (:func:`.cause.workload_fault`): the exercise's fault."""
    parsed = tuple(parse_run(run) for run in ran.runs)
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
    tampered.update(unbuilt_calls(ran.exercise, ran.inputs, frames))
    fault = workload_fault(ran.exercise, frames)
    if fault is not None:
        raise fault  # the exercise's setup, not the learner's mistake nor a grader fault
    broken = (len(ran.runs) < len(call_groups(ran.exercise))
              or any(p.end is None for p in parsed)
              or any(run.outcome.termination != "exited" for run in ran.runs))
    ordered = sorted(tampered, key=lambda t: (not t.startswith(CHANNEL_TAMPERED), t))
    return Evidence(ran, parsed, frames, tuple(ordered),
                    telling_outcome([run.outcome for run in ran.runs]), broken)


@dataclasses.dataclass(frozen=True)
class Verdicts:
    """Stage 4, *verdicts*: every check of the exercise evaluated on the frames, in the
    exercise's order, before the cause and tampering are charged."""

    evidence: Evidence
    context: Context
    checks: tuple[CheckResult, ...]


def evaluate_checks(evidence: Evidence, *, draw_passing: bool = False) -> Verdicts:
    """Stage 4: evaluate every check in the parent, a pure function of the frames (the
    references are waited for here). ``draw_passing``: see :func:`grade`."""
    ran = evidence.ran
    first = evidence.parsed[0]
    ctx = Context(
        exercise=ran.exercise, display_name=ran.submission.display_name, hello=first.hello,
        load=first.load, frames=evidence.frames, inputs=ran.inputs,
        references=(ran.references() if ran.references
                    else ran.exercise.make_references(ran.inputs)),
        termination=describe_termination(evidence.outcome, ran.limits,
                                         ran.submission.display_name),
        source_lines=ran.submission.lines or (),
    )
    checks = tuple(_evaluate(ctx, spec, draw_passing) for spec in ran.exercise.checks)
    return Verdicts(evidence, ctx, checks)


@dataclasses.dataclass(frozen=True)
class Judged:
    """Stage 5, *cause*: why the run ended, and the checks with tampering voided and a
    stopped run charged."""

    verdicts: Verdicts
    checks: tuple[CheckResult, ...]
    cause: Cause


def decide_cause(verdicts: Verdicts) -> Judged:
    """Stage 5: void every check tampering touched, decide the cause
    (:func:`.cause.cause_of`), and charge a run that did not end graded to the checks it
    stopped."""
    evidence = verdicts.evidence
    checks = list(verdicts.checks)
    if evidence.tampered:
        checks = [void_for_tampering(c, list(evidence.tampered)) for c in checks]
    cause = cause_of(evidence.outcome, evidence.parsed[0].load, evidence.frames,
                     broken=evidence.broken, tampered=bool(evidence.tampered))
    if cause != "graded":
        checks = [charge_stop(c, verdicts.context.termination) for c in checks]
    return Judged(verdicts, tuple(checks), cause)


def report_of(judged: Judged) -> GradeReport:
    """Stage 6, *report*: the :class:`~syncgrade.models.GradeReport` of a graded run
    (:func:`.report.build_report`, the one builder of every report)."""
    evidence = judged.verdicts.evidence
    ran = evidence.ran
    return build_report(ran.exercise, ran.submission, list(judged.checks), evidence.outcome,
                        ran.limits, ran.seconds, evidence.parsed[0].hello,
                        cause=judged.cause, tampered=list(evidence.tampered))


def _evaluate(ctx: Context, spec: Any, draw_passing: bool = False) -> CheckResult:
    try:
        outcome: Outcome = spec.fn(ctx, **spec.params)
    except Skip as skip:
        outcome = Outcome.skip(f"Not checked: {skip}.")
    if draw_passing and outcome.status == "passed" and outcome.evidence.interval is None:
        outcome = _with_passing_picture(ctx, spec, outcome)
    earned = spec.points if outcome.status == "passed" else 0.0
    evidence = outcome.evidence
    if outcome.status == "failed":  # every failing interval check marks its flaw
        evidence = marked(evidence, spec.id)
    hint = outcome.hint
    if outcome.status == "failed" and spec.hint:  # the author's, after the check's own
        hint = f"{hint} {spec.hint}" if hint else spec.hint
    return CheckResult(id=spec.id, title=spec.title, status=outcome.status, points=earned,
                       max_points=spec.points, message=outcome.message, hint=hint,
                       evidence=evidence, visibility=spec.visibility)


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
