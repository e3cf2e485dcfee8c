"""The grading engine: submission in, :class:`GradeReport` out.

One way through: read the submission, build the job from the hidden rubric, run the child
in the sandbox, validate its frames, evaluate every check in the parent as a pure function,
assemble the report. The CLI, the batch runner and the Python API all call :func:`grade`.
This process never imports jax: only the child does.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import io
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

import syncgrade
from syncgrade import sandbox
from syncgrade.courses import open_course
from syncgrade.limits import (
    DEFAULT_TIMEOUT_S,
    STARTUP_TIMEOUT_S,
    check_memory_bytes,
    check_timeout,
)
from syncgrade.models import (
    SCHEMA_VERSION,
    Cause,
    CheckResult,
    Evidence,
    GradeReport,
    GradingInfo,
    Protection,
    Provenance,
    ReportStatus,
    StreamExcerpt,
)
from syncgrade.pool import WarmPool, run_cold, shared_pool
from syncgrade.rubric.base import Context, Exercise, GraderCall, Outcome, Skip
from syncgrade.rubric.validation import SPEC_KINDS
from syncgrade.trace import CallFrame, End, Frame, Hello, Load

if TYPE_CHECKING:
    from syncgrade.courses import Course

PACKAGE_ROOT = Path(syncgrade.__file__).resolve().parent
_FRAMES: TypeAdapter[Any] = TypeAdapter(Frame)


class SubmissionError(ValueError):
    """The submission could not be read at all (missing file): a usage error."""


@dataclass(frozen=True)
class Submission:
    source: str | None
    display_name: str
    problem: str = ""  # why it cannot be graded (binary, not UTF-8, empty)


def read_submission(path: Path | None = None, *, source: str | None = None,
                    display_name: str | None = None) -> Submission:
    """The submission from exactly one of ``path`` (a :class:`~pathlib.Path`, read as
    bytes) or ``source`` (the text itself).

    Raises :class:`SubmissionError` when the path is missing or both or neither are given,
    and ``TypeError`` when ``path`` is a string: a string could be either, and grading a
    mistyped path as Python source would blame the learner for the caller's slip.
    ``display_name`` is the only name learners see (default: the path as given, or
    ``submission.py``); platforms should pass it so their paths never reach a learner.
    """
    if isinstance(path, str):
        raise TypeError("pass the file as a pathlib.Path, or its text as source=...; "
                        "a plain string is ambiguous")
    if (path is None) == (source is None):
        raise SubmissionError("give exactly one of a path or source=")
    if path is not None:
        if not path.is_file():
            raise SubmissionError(f"no such file: {path}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SubmissionError(f"cannot read {path}: {exc.strerror or exc}") from None
        return _decode(data, display_name or str(path))
    assert source is not None
    if not isinstance(source, str):
        raise TypeError(f"source= must be a str, not {type(source).__name__}")
    return _decode(source.encode("utf-8", "surrogatepass"), display_name or "submission.py")


def _decode(data: bytes, name: str) -> Submission:
    if not data.strip():
        return Submission(None, name, "The file is empty.")
    if b"\x00" in data:
        return Submission(None, name, "The file is binary, not Python source.")
    try:
        return Submission(data.decode("utf-8"), name)
    except UnicodeDecodeError as exc:
        return Submission(None, name, f"The file is not UTF-8 text (byte {exc.start}).")


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

    Raises only for usage errors: :class:`~syncgrade.rubric.UnknownExercise`,
    :class:`SubmissionError` (missing or unreadable file, neither or both given),
    ``TypeError`` (a ``str`` path, or a limit that is not a number),
    ``ValueError`` (a ``timeout`` or ``memory_bytes`` that is not finite and above 0,
    or is absurdly large: see :mod:`syncgrade.limits`; ``memory_bytes=None`` is the
    default), :class:`~syncgrade.courses.CourseError` (a ``ValueError``: no such course)
    and :class:`~syncgrade.rubric.RubricError` (the
    exercise's rubric failed its load-time validation). Every learner failure, and a
    fault of the grader itself (``status == "error"``), is in the returned report.
    Thread-safe: each call runs its own child process and shares no mutable state with
    other calls.
    """
    timeout = check_timeout(timeout)
    if memory_bytes is not None:
        memory_bytes = check_memory_bytes(memory_bytes)
    opened = open_course(course)
    exercise = opened.get(exercise_id)
    submission = read_submission(path, source=source, display_name=display_name)
    started = time.perf_counter()
    if submission.source is None:
        return _unreadable_report(exercise, submission, timeout, time.perf_counter() - started)
    # The learner's timeout counts from each child's hello frame; the child's start-up
    # before it (spawn, imports, instrumentation) has the grader's own budget.
    limits = sandbox.Limits(wall_s=timeout, startup_s=STARTUP_TIMEOUT_S,
                            **({"memory_bytes": memory_bytes} if memory_bytes else {}))
    hidden = _hidden_data(exercise)
    inputs, references = hidden.inputs, hidden.references
    runs: list[ChildRun] = []
    try:
        used = 0.0  # the learner's time in the children so far: they share one budget
        for calls in _call_groups(exercise):
            runs.append(_run_child(exercise, submission, hidden.npz, calls,
                                   dataclasses.replace(limits, wall_s=max(timeout - used,
                                                                          MIN_RUN_S)),
                                   pool=pool, hidden=opened.hidden_paths))
            used += runs[-1].outcome.clock_s
            if runs[-1].outcome.termination != "exited":
                break  # a timeout or crash: later calls would only repeat it
        return _assemble(exercise, submission, inputs, runs, limits,
                         time.perf_counter() - started, references=references.result)
    except Exception as exc:  # a grader fault: still a report, never a learner's traceback
        return _internal_error_report(exercise, submission,
                                      runs[-1].outcome if runs else None, limits, exc,
                                      time.perf_counter() - started)


@dataclass(frozen=True)
class HiddenData:
    """An exercise's hidden inputs (read-only arrays), their bytes as the child reads them
    (``.npz``), and its references (computed on a background thread)."""

    inputs: dict[str, np.ndarray]
    npz: bytes
    references: _Background


_HIDDEN: dict[tuple[Any, Any], HiddenData] = {}
_HIDDEN_LOCK = threading.Lock()


def _hidden_data(exercise: Exercise) -> HiddenData:
    """The exercise's hidden data, made once per process and shared by every later grade
    of it.

    ``make_inputs`` is deterministic by contract (seeded; ``grade validate`` checks that
    it gives the same arrays twice) and checks only read them, so a batch, a service or
    the suite need not rebuild them for each submission. The first grade computes the
    references while its child runs. Keyed by the two functions themselves, so an
    exercise whose inputs or references are replaced gets its own entry.
    """
    key = (exercise.make_inputs, exercise.make_references)
    with _HIDDEN_LOCK:
        cached = _HIDDEN.get(key)
        if cached is None or cached.references.failed:  # a failure is not kept
            inputs = exercise.make_inputs()
            for array in inputs.values():
                if isinstance(array, np.ndarray):
                    array.setflags(write=False)  # a check that wrote would fault loudly
            cached = _HIDDEN[key] = HiddenData(
                inputs, _npz(inputs), _Background(exercise.make_references, inputs))
        return cached


class _Background:
    """``fn(*args)`` on a daemon thread; :meth:`result` waits and returns or raises (the
    same value or exception on every call)."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, *args), daemon=True,
                                        name="syncgrade-references")
        self._thread.start()

    def _run(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # re-raised by result() on the grading thread
            self._error = exc

    @property
    def failed(self) -> bool:
        """Finished with an exception."""
        return not self._thread.is_alive() and self._error is not None

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


MIN_RUN_S = 0.01
"""The least learner time a further child of an isolated exercise starts with. Its
children share the learner's timeout, each counting only from its hello frame (their
start-ups are the grader's), so a further child gets what the earlier ones left; one
left with (next to) nothing still runs and times out, and the report says ``timeout``,
the learner's, not that grading could not finish."""


@dataclass(frozen=True)
class ChildRun:
    """One sandboxed child: what it was asked to run and what came back."""

    outcome: sandbox.SandboxOutcome
    key: bytes
    call_ids: tuple[str, ...]


def _call_groups(exercise: Exercise) -> list[tuple[GraderCall, ...]]:
    """The calls each child runs: all in one child, or one child per call when the
    exercise isolates its calls (so a submission cannot tell them apart by order)."""
    if exercise.isolate_calls:
        return [(call,) for call in exercise.calls]
    return [exercise.calls]


def _run_child(exercise: Exercise, submission: Submission, inputs_npz: bytes,
               calls: Sequence[GraderCall], limits: sandbox.Limits, *,
               pool: WarmPool | None = None,
               hidden: Sequence[Path] | None = None) -> ChildRun:
    """One child run of ``calls`` with the hidden inputs ``inputs_npz`` (:func:`_npz`):
    in ``pool`` (or the process-wide pool) when given, else cold. The job, with its
    fresh key, exists only from here on. ``hidden``: the course folder the child must
    not see (default: the exercise's, :func:`hidden_paths`)."""
    assert submission.source is not None
    job = _job(exercise, submission, calls)
    stdin = json.dumps(job).encode()
    files = {"submission.py": submission.source.encode(), "inputs.npz": inputs_npz}
    pool = pool if pool is not None else shared_pool()
    hidden = hidden_paths(exercise) if hidden is None else tuple(hidden)
    outcome = (pool.run(stdin, files, limits, hidden=hidden) if pool is not None
               else run_cold(stdin, files, limits, hidden=hidden))
    return ChildRun(outcome, bytes.fromhex(job["key"]), tuple(c.id for c in calls))


def hidden_paths(exercise: Exercise) -> tuple[Path, ...]:
    """What the child must not see besides the defaults (:func:`syncgrade.pool.
    child_command`): the folder of the course the exercise belongs to, whole."""
    return (exercise.folder.parent,) if exercise.folder is not None else ()


def _job(exercise: Exercise, submission: Submission,
         calls: Sequence[GraderCall] | None = None) -> dict[str, Any]:
    """The child's job. ``key`` (fresh per run) authenticates its frames: the child keeps
    it only in the sealed recorder core (docs/security.md, "Authenticated frames")."""
    return {
        "key": secrets.token_hex(32),
        "display_name": submission.display_name,
        "submission": "submission.py",
        "inputs": "inputs.npz",
        "required": [r.job() for r in exercise.required],
        "calls": [call.job() for call in (exercise.calls if calls is None else calls)],
    }


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` as the bytes of an ``.npz`` file (what the child's job names)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


@dataclass(frozen=True)
class Frames:
    """The child's frames, validated, and what was wrong with the channel."""

    hello: Hello | None
    load: Load | None
    calls: dict[str, CallFrame]
    end: End | None
    rejected: int
    tampering: str | None  # why the channel cannot be trusted; None when it can


CHANNEL_TAMPERED = "report channel"
_LEARNER_KEYS = ("ok", "value", "error", "problems")


def parse_frames(raw: Sequence[bytes], key: bytes, call_ids: Sequence[str], *,
                 clean_exit: bool = False, incomplete: bool = False) -> Frames:
    """Authenticate and validate the child's frames under the strict protocol.

    The child writes exactly: ``hello``, ``load``, then (when the load succeeded) one
    ``call`` frame per job call in job order, then ``end``. Each frame is the hex
    HMAC-SHA256 of its body followed by the body, a JSON object whose ``seq`` counts the
    frames from 1. A bad MAC, a wrong ``seq``, a frame of the wrong kind or for the wrong
    call, anything after ``end``, or a torn last frame from a child that exited cleanly
    (the grader writes whole frames) sets ``tampering``: only learner code writing to the
    channel can cause them. A child that died part-way only leaves a valid prefix, which
    is not tampering. ``learner`` in a body is the worker's JSON text (value, error,
    problems), merged under the grader's own keys.
    """
    hello = load = end = None
    calls: dict[str, CallFrame] = {}
    rejected = 0
    tampering: str | None = None
    load_ok = False
    for index, payload in enumerate(raw):
        position = index + 1
        mac, body = payload[:64], payload[64:]
        expected_mac = hmac.new(key, body, hashlib.sha256).hexdigest().encode()
        if end is not None:
            tampering = f"frame {position} came after the end frame"
            break
        if not hmac.compare_digest(mac, expected_mac):
            tampering = f"frame {position} was not written by the grader"
            break
        try:
            data = json.loads(body)
        except ValueError:
            tampering = f"frame {position} is not valid JSON"
            break
        calls_done = len(calls)
        want = ("hello" if index == 0 else "load" if index == 1
                else "call" if load_ok and index - 2 < len(call_ids) else "end")
        if (not isinstance(data, dict) or data.get("seq") != position
                or data.get("type") != want
                or (want == "call" and data.get("id") != call_ids[index - 2])):
            tampering = f"frame {position} is out of order or repeated"
            break
        learner = data.pop("learner", None)
        if isinstance(learner, str):
            try:
                part = json.loads(learner)
            except ValueError:
                part = {}
            if isinstance(part, dict):
                for name in _LEARNER_KEYS:
                    if name in part and name not in data:
                        data[name] = part[name]
        if want in ("load", "call"):
            data.setdefault("ok", False)
        if want == "load":
            load_ok = data.get("ok") is True
        try:
            frame = _FRAMES.validate_python(data)
        except ValidationError:
            rejected += 1
            if want == "call":  # keep the position: the next frame is the next call
                calls[call_ids[calls_done]] = CallFrame(
                    type="call", id=call_ids[calls_done], ok=False,
                    grader_error="the child's frame for this call was invalid")
            continue
        if isinstance(frame, Hello):
            hello = frame
        elif isinstance(frame, Load):
            load = frame
        elif isinstance(frame, CallFrame):
            calls[frame.id] = frame
        elif isinstance(frame, End):
            end = frame
    if tampering is None and incomplete and clean_exit:
        tampering = "the channel ended inside a frame although the child exited normally"
    return Frames(hello, load, calls, end, rejected, tampering)


def _assemble(exercise: Exercise, submission: Submission, inputs: dict[str, np.ndarray],
              runs: Sequence[ChildRun], limits: sandbox.Limits, seconds: float, *,
              references: Callable[[], dict[str, Any]] | None = None) -> GradeReport:
    """The report from one or more children (one per call group, in call order).
    ``references``: returns the exercise's references for ``inputs`` (default: computed
    here)."""
    parsed = [_parse_run(run) for run in runs]
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
    outcome = _telling_outcome([run.outcome for run in runs])
    ctx = Context(
        exercise=exercise, display_name=submission.display_name, hello=hello, load=load,
        frames=frames, inputs=inputs,
        references=references() if references else exercise.make_references(inputs),
        termination=describe_termination(outcome, limits, submission.display_name),
    )
    checks = [_evaluate(ctx, spec) for spec in exercise.checks]
    broken = (len(runs) < len(_call_groups(exercise)) or any(p.end is None for p in parsed)
              or any(run.outcome.termination != "exited" for run in runs))
    ordered = sorted(tampered, key=lambda t: (not t.startswith(CHANNEL_TAMPERED), t))
    if ordered:
        checks = [_void_for_tampering(c, ordered) for c in checks]
    cause = _cause(outcome, load, frames, broken=broken, tampered=bool(ordered))
    if cause != "graded":
        checks = [_charge_stop(c, ctx.termination) for c in checks]
    return _report(exercise, submission, checks, outcome, limits, seconds, hello,
                   cause=cause, tampered=ordered)


def _charge_stop(check: CheckResult, termination: tuple[str, str]) -> CheckResult:
    """``check`` in a report whose cause is not ``graded``: a passed ``runs`` fails.

    The child can stop (time, memory or output limit, a crash) after every call returned,
    e.g. in a thread or at exit. The report then says why it stopped, and a run that did
    not finish cannot have full marks (:class:`~syncgrade.models.GradeReport` rejects a
    report that says ``failed`` with full marks).
    """
    if check.id != "runs" or check.status != "passed":
        return check
    reason, hint = termination
    return check.model_copy(update={
        "status": "failed", "points": 0.0,
        "message": (f"Every call of your code returned, but then {reason}." if reason
                    else "Every call of your code returned, but your code did not finish."),
        "hint": hint or "Do not leave threads or work running after your functions return.",
        "evidence": Evidence(facts={"stopped": reason or None}),
    })


_CAUSE_OF_TERMINATION: dict[str, Cause] = {
    "timeout": "timeout", "memory": "memory_limit", "cpu": "cpu_limit",
}
_SYNTAX_ERRORS = frozenset({"SyntaxError", "IndentationError", "TabError"})


def _cause(outcome: sandbox.SandboxOutcome, load: Load | None,
           frames: dict[str, CallFrame], *, broken: bool, tampered: bool) -> Cause:
    """The one-word reason of a learner-side report (see :mod:`syncgrade.models`). A
    ``MemoryError`` the child caught is the memory limit as much as a kill by it is."""
    if tampered:
        return "tampered"
    errors = [load.error if load else None, *(f.error for f in frames.values())]
    types = {e.type for e in errors if e is not None}
    if types & _SYNTAX_ERRORS:
        return "syntax_error"
    if "MemoryError" in types:
        return "memory_limit"
    if not broken:
        return "graded"
    if outcome.frames_truncated:
        return "output_limit"
    return _CAUSE_OF_TERMINATION.get(outcome.termination, "crashed")


def _parse_run(run: ChildRun) -> Frames:
    outcome = within_parse_budget(run.outcome)
    return parse_frames(outcome.frames, run.key, run.call_ids,
                        clean_exit=outcome.termination == "exited"
                        and outcome.returncode == 0,
                        incomplete=outcome.frames_incomplete)


def _telling_outcome(outcomes: Sequence[sandbox.SandboxOutcome]) -> sandbox.SandboxOutcome:
    """The outcome a report describes: the first child that did not finish normally or
    sent too much, else the first child (its output is the main call's), with the
    learner's stdout and stderr of every child, in call order."""
    budgeted = [within_parse_budget(o) for o in outcomes]
    telling = next((o for o in budgeted if o.termination != "exited" or o.frames_truncated),
                   budgeted[0])
    if len(budgeted) == 1:
        return telling
    return dataclasses.replace(telling,
                               stdout=_joined([o.stdout for o in budgeted]),
                               stderr=_joined([o.stderr for o in budgeted]))


def _joined(parts: Sequence[sandbox.Captured]) -> sandbox.Captured:
    """One stream from the children's excerpts (each already bounded by the sandbox)."""
    return sandbox.Captured(text="".join(p.text for p in parts),
                            truncated=any(p.truncated for p in parts),
                            total_bytes=sum(p.total_bytes for p in parts))


def _evaluate(ctx: Context, spec: Any) -> CheckResult:
    try:
        outcome: Outcome = spec.fn(ctx, **spec.params)
    except Skip as skip:
        outcome = Outcome.skip(f"Not checked: {skip}.")
    earned = spec.points if outcome.status == "passed" else 0.0
    return CheckResult(id=spec.id, title=spec.title, status=outcome.status, points=earned,
                       max_points=spec.points, message=outcome.message, hint=outcome.hint,
                       evidence=outcome.evidence, visibility=spec.visibility)


def spec_problem(spec: Any, inputs: dict[str, np.ndarray]) -> str | None:
    """Why the child could never build ``spec`` (a rubric fault), or None."""
    if not isinstance(spec, dict) or spec.get("kind") not in SPEC_KINDS:
        return f"unknown argument spec {spec!r}"
    if spec["kind"] in ("host", "device") and spec.get("name") not in inputs:
        return f"no hidden input named {spec.get('name')!r}"
    for item in [*spec.get("items", ()), *(spec.get("warm") or ())]:
        problem = spec_problem(item, inputs)
        if problem:
            return problem
    return None


def unbuilt_calls(exercise: Exercise, inputs: dict[str, np.ndarray],
                  frames: dict[str, CallFrame]) -> list[str]:
    """Tampering entries for calls whose arguments the child could not build.

    The child builds arguments only after the submission was loaded, with private copies
    of the grader's tables taken before, so a build that fails for a spec that is valid
    means the learner's code changed grader or library state: tampering, a
    learner-facing ``error``. A spec that is invalid is the grader's own fault and raises
    ``RuntimeError`` (an internal error). Only the parent's own rubric is trusted here: a
    frame claiming a ``grader_error`` can make a report an ``error``, never exit 3.
    """
    found = []
    for call in exercise.calls:
        frame = frames.get(call.id)
        if frame is None or not frame.grader_error:
            continue
        job = call.job()
        for spec in [*job.get("args", []), *job.get("kwargs", {}).values()]:
            problem = spec_problem(spec, inputs)
            if problem:
                raise RuntimeError(f"rubric {exercise.id}, call {call.id}: {problem} "
                                   f"(child: {frame.grader_error})")
        found.append(f"grader state: the arguments of `{call.function or call.attribute}` "
                     "could not be built")
    return found


def _void_for_tampering(check: CheckResult, tampered: list[str]) -> CheckResult:
    channel = next((t for t in tampered if t.startswith(CHANNEL_TAMPERED)), None)
    if channel is not None:
        # A forged channel: nothing the child sent is trusted, not even that it ran.
        if check.status == "failed" and check.id != "runs":
            return check.model_copy(update={"points": 0.0})
        return check.model_copy(update={
            "status": "failed", "points": 0.0,
            "message": "Not trusted: the report channel between your code's process and "
                       "the grader was tampered with "
                       f"({channel.removeprefix(CHANNEL_TAMPERED + ': ')}).",
            "hint": "Do not write to file descriptors you did not open yourself; print "
                    "with `print` and return results from your functions.",
        })
    if check.status != "passed":
        return check
    if check.id == "runs":
        # It ran, but nothing it produced is trusted: no point for running either.
        return check.model_copy(update={
            "status": "failed", "points": 0.0,
            "message": "Your code ran, but it altered or reached into the grader's "
                       f"instrumentation ({'; '.join(tampered[:3])}), so no result of it "
                       "can be trusted.",
            "hint": "Use `time`, `jax` and NumPy as they are, and do not import or inspect "
                    "the grader's modules.",
        })
    return check.model_copy(update={
        "status": "failed", "points": 0.0,
        "message": "Not trusted: your code altered or reached into the grader's "
                   f"instrumentation ({'; '.join(tampered[:3])}).",
        "hint": "Do not replace `time` functions, `jax.jit`, `block_until_ready` or other "
                "library functions, and do not import or inspect the grader's modules; "
                "use the libraries as they are.",
    })


PARSE_BUDGET = 500_000
"""JSON values the parent validates per grade, counted as commas plus braces of the raw
frames. Validating costs up to ~4 us a value on a busy 2-core machine, so this keeps
parsing under ~2 s even for 32 MiB of the cheapest events; an honest trace of thousands of
timed calls uses a few percent of it."""


def within_parse_budget(outcome: sandbox.SandboxOutcome) -> sandbox.SandboxOutcome:
    """``outcome`` with the frames that fit in :data:`PARSE_BUDGET`, in order; if any
    frame did not fit, it and every later one are dropped and ``frames_truncated`` is
    set, exactly as if the sandbox's result cap had stopped them (same report)."""
    spent = 0
    for index, payload in enumerate(outcome.frames):
        spent += payload.count(b",") + payload.count(b"{")
        if spent > PARSE_BUDGET:
            return dataclasses.replace(outcome, frames=outcome.frames[:index],
                                       frames_truncated=True)
    return outcome


def _said_hello(frames: Sequence[bytes]) -> bool:
    """Whether the child got as far as its ``hello`` frame, the first thing it sends and
    before any learner code is read (so learner code cannot take it away). Not
    authenticated on purpose: a forged hello could only make a grader fault look like
    the learner's, never the reverse. Reads the body after the 64-hex MAC (parse_frames),
    or the bare frame."""
    for payload in frames[:2]:
        for body in (payload[64:], payload):
            try:
                data = json.loads(body)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("type") in ("hello", "load"):
                return True
    return False


_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def learner_line_from_stack(dump: str | None, display_name: str) -> int | None:
    """The innermost learner line in a faulthandler dump (most recent call first)."""
    if not dump:
        return None
    for match in _STACK_LINE.finditer(dump):
        if match["file"] == display_name:
            return int(match["line"])
    return None


def describe_termination(outcome: sandbox.SandboxOutcome, limits: sandbox.Limits,
                         display_name: str) -> tuple[str, str]:
    """(what happened, what to change) when the child did not finish on its own.

    Raises ``RuntimeError`` (an internal error) when the child exited, died or overran
    its start-up budget (``Limits.startup_s``) before its ``hello`` frame: that is before
    any learner code ran, so it is the grader's fault.
    """
    if outcome.frames_truncated:
        return (f"your code produced more data for the grader than it accepts "
                f"({limits.result_bytes / 2**20:.0f} MiB of results and trace events)",
                "Return only what the exercise asks for, and make only the calls and "
                "clock readings it needs (not millions).")
    if outcome.startup_timeout:
        raise RuntimeError(f"the grading child did not start within the grader's start-up "
                           f"budget ({limits.startup_s or 0:g} s), before loading the "
                           f"submission: {outcome.stderr.text[-1500:]}")
    if outcome.termination in ("exited", "signal") and not _said_hello(outcome.frames):
        status = outcome.signal_name or f"status {outcome.returncode}"
        raise RuntimeError(f"the grading child stopped before loading the submission "
                           f"({status}): {outcome.stderr.text[-1500:]}")
    if outcome.termination == "timeout":
        line = learner_line_from_stack(outcome.stack_dump, display_name)
        where = f" while running line {line}" if line else ""
        return (f"your code hit the {limits.wall_s:g} s time limit{where}",
                "Look for a loop that never ends or a wait on something that never completes.")
    if outcome.termination == "memory":
        return (f"your code hit the memory limit ({limits.memory_bytes / 2**30:.1f} GiB)",
                "Avoid keeping every output or building very large arrays.")
    if outcome.termination == "cpu":
        return ("your code used up its CPU-time limit",
                "Look for a loop that never ends.")
    if outcome.termination == "signal":
        return (f"the process running your code was killed by {outcome.signal_name}",
                "Do not send signals, call ctypes or crash the interpreter on purpose.")
    return (f"the process running your code exited early (status {outcome.returncode})",
            "Do not call `sys.exit` or `os._exit` in the functions the grader calls.")


def _stream(captured: sandbox.Captured) -> StreamExcerpt:
    return StreamExcerpt(text=captured.text, truncated=captured.truncated,
                         total_bytes=captured.total_bytes)


def _provenance(exercise: Exercise, hello: Hello | None) -> Provenance:
    extra = {} if hello is None else {
        "python_version": hello.python_version, "jax_version": hello.jax_version,
        "jaxlib_version": hello.jaxlib_version, "numpy_version": hello.numpy_version,
        "backend": hello.backend, "device": hello.device,
    }
    return Provenance(syncgrade_version=syncgrade.__version__,
                      rubric_version=f"{exercise.id}@{exercise.version}", **extra)


def _report(exercise: Exercise, submission: Submission, checks: list[CheckResult],
            outcome: sandbox.SandboxOutcome | None, limits: sandbox.Limits, seconds: float,
            hello: Hello | None, *, cause: Cause, tampered: list[str] | None = None,
            summary: str | None = None, internal_error: str | None = None) -> GradeReport:
    score = sum(c.points for c in checks)
    max_score = exercise.max_score
    status: ReportStatus
    if cause == "grader_fault":
        status = "error"
    elif cause == "graded" and all(c.status == "passed" for c in checks):
        status = "passed"
    else:
        status = "failed"
    if summary is None and tampered:
        summary = ("Not graded: your code altered or reached into the grader, so no result "
                   "can be trusted; see the checks below.")
    if summary is None and cause not in ("graded", "syntax_error"):
        runs = next((c for c in checks if c.id == "runs" and c.status == "failed"), None)
        summary = runs.message if runs else None
    if summary is None:
        failed = [c.id for c in checks if c.status == "failed"]
        summary = ("All checks passed." if status == "passed"
                   else f"{len(failed)} check(s) failed: {', '.join(failed)}." if failed
                   else "Grading could not finish.")
    empty = StreamExcerpt(text="", truncated=False, total_bytes=0)
    protections = [] if outcome is None else [
        Protection(name=p.name, applied=p.applied, detail=p.detail)
        for p in outcome.protections
    ]
    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise=exercise.id, title=exercise.title,
        submission=submission.display_name, status=status, cause=cause, score=score,
        max_score=max_score, summary=summary, checks=checks,
        stdout=_stream(outcome.stdout) if outcome else empty,
        stderr=_stream(outcome.stderr) if outcome else empty,
        grading=GradingInfo(
            seconds=round(seconds, 3), timeout_s=limits.wall_s,
            termination=outcome.termination if outcome else "not started",
            protections=protections, tampered=tampered or [], internal_error=internal_error,
        ),
        provenance=_provenance(exercise, hello),
    )


def _unreadable_report(exercise: Exercise, submission: Submission, timeout: float,
                       seconds: float) -> GradeReport:
    checks = [
        CheckResult(id=spec.id, title=spec.title, status="failed" if spec.id == "runs"
                    else "skipped", points=0.0, max_points=spec.points,
                    message=submission.problem if spec.id == "runs" else "Not checked.",
                    hint="Save your solution as a plain-text Python file (UTF-8) and grade "
                         "it again." if spec.id == "runs" else "", visibility=spec.visibility)
        for spec in exercise.checks
    ]
    return _report(exercise, submission, checks, None, sandbox.Limits(wall_s=timeout),
                   seconds, None, cause="unreadable", summary=submission.problem)


def _internal_error_report(exercise: Exercise, submission: Submission,
                           outcome: sandbox.SandboxOutcome | None, limits: sandbox.Limits,
                           exc: Exception, seconds: float) -> GradeReport:
    message = f"internal error: {type(exc).__name__}: {exc}"
    checks = [
        CheckResult(id=spec.id, title=spec.title, status="skipped", points=0.0,
                    max_points=spec.points, message="Not checked: the grader failed.", hint="",
                    visibility=spec.visibility)
        for spec in exercise.checks
    ]
    return _report(exercise, submission, checks, outcome, limits, seconds, None,
                   cause="grader_fault",
                   summary="The grader itself failed (internal error); this is not your "
                           "fault. Please report it.", internal_error=message)


def trace(exercise: Exercise, source: str, *, display_name: str = "submission.py",
          timeout: float = DEFAULT_TIMEOUT_S) -> dict[str, CallFrame]:
    """Run ``source`` through the child as a submission of ``exercise`` and return its
    validated call frames, by call id: no checks, no report.

    For grader-side sources only (deriving an answer key by tracing the grader's own code,
    e.g. exercise-2's snippets). Raises ``RuntimeError`` when the source did not load or the
    child did not finish, since a grader-side source must always run.
    """
    submission = Submission(source, display_name)
    run = _run_child(exercise, submission, _npz(exercise.make_inputs()), exercise.calls,
                     sandbox.Limits(wall_s=timeout, startup_s=STARTUP_TIMEOUT_S))
    outcome, parsed = run.outcome, _parse_run(run)
    load, frames, end = parsed.load, parsed.calls, parsed.end
    if load is None or not load.ok or end is None or parsed.tampering:
        detail = load.error or load.problems if load else outcome.stderr.text[-2000:]
        raise RuntimeError(f"{display_name} did not run in the child: {detail}")
    return frames
