"""The grading engine: submission in, :class:`GradeReport` out.

One way through: read the submission, build the job from the hidden rubric, run the child
in the sandbox, validate its frames, evaluate every check in the parent as a pure function,
assemble the report. The CLI, the batch runner and the Python API all call :func:`grade`.
This process never imports jax: only the child does.
"""

from __future__ import annotations

import io
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

import syncgrade
from syncgrade import sandbox
from syncgrade.models import (
    CheckResult,
    GradeReport,
    GradingInfo,
    Protection,
    Provenance,
    ReportStatus,
    StreamExcerpt,
)
from syncgrade.rubric import get_exercise
from syncgrade.rubric.base import Context, Exercise, Outcome, Skip
from syncgrade.trace import CallFrame, End, Frame, Hello, Load

PACKAGE_ROOT = Path(syncgrade.__file__).resolve().parent
DEFAULT_TIMEOUT_S = 60.0
_FRAMES: TypeAdapter[Any] = TypeAdapter(Frame)


class SubmissionError(ValueError):
    """The submission could not be read at all (missing file): a usage error."""


@dataclass(frozen=True)
class Submission:
    source: str | None
    display_name: str
    problem: str = ""  # why it cannot be graded (binary, not UTF-8, empty)


def read_submission(path_or_source: str | Path, display_name: str | None = None) -> Submission:
    """A ``Path`` (or a string naming an existing ``.py`` file) is read; any other string is
    taken as the source itself."""
    if isinstance(path_or_source, Path) or _looks_like_path(path_or_source):
        path = Path(path_or_source)
        if not path.is_file():
            raise SubmissionError(f"no such file: {path}")
        data = path.read_bytes()
        name = display_name or str(path)
    else:
        data = path_or_source.encode("utf-8")
        name = display_name or "submission.py"
    return _decode(data, name)


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and (text.endswith(".py") or Path(text).is_file())


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
    path_or_source: str | Path,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    memory_bytes: int | None = None,
    display_name: str | None = None,
) -> GradeReport:
    """Grade one submission of ``exercise_id``. Raises only for usage errors (unknown
    exercise, missing file); every learner failure is in the returned report."""
    exercise = get_exercise(exercise_id)
    submission = read_submission(path_or_source, display_name)
    started = time.perf_counter()
    if submission.source is None:
        return _unreadable_report(exercise, submission, timeout, time.perf_counter() - started)
    limits = sandbox.Limits(wall_s=timeout, **({"memory_bytes": memory_bytes}
                                               if memory_bytes else {}))
    inputs = exercise.make_inputs()
    outcome: sandbox.SandboxOutcome | None = None
    try:
        outcome = sandbox.run_sandboxed(
            [sys.executable, "-m", "syncgrade.child"],
            stdin=json.dumps(_job(exercise, submission)).encode(),
            files={"submission.py": submission.source.encode(), "inputs.npz": _npz(inputs)},
            env={"PYTHONPATH": str(PACKAGE_ROOT.parent), "PYTHONDONTWRITEBYTECODE": "1"},
            limits=limits,
            hidden_paths=_hidden_paths(),
        )
        return _assemble(exercise, submission, inputs, outcome, limits,
                         time.perf_counter() - started)
    except Exception as exc:  # a grader fault: still a report, never a learner's traceback
        return _internal_error_report(exercise, submission, outcome, limits, exc,
                                      time.perf_counter() - started)


def _job(exercise: Exercise, submission: Submission) -> dict[str, Any]:
    return {
        "display_name": submission.display_name,
        "submission": "submission.py",
        "inputs": "inputs.npz",
        "required": [r.job() for r in exercise.required],
        "calls": [call.job() for call in exercise.calls],
    }


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def _hidden_paths() -> list[Path]:
    """What the child must not read: the rubric, and a checkout's solutions."""
    hidden = [PACKAGE_ROOT / "rubric"]
    checkout = PACKAGE_ROOT.parent.parent
    if (checkout / "solutions").is_dir():
        hidden.append(checkout / "solutions")
    return hidden


def parse_frames(raw: Sequence[bytes]) -> tuple[Hello | None, Load | None,
                                                dict[str, CallFrame], End | None, int]:
    """Validate the child's frames; return them by kind and the number rejected."""
    hello = load = end = None
    calls: dict[str, CallFrame] = {}
    rejected = 0
    for payload in raw:
        try:
            frame = _FRAMES.validate_json(payload)
        except ValidationError:
            rejected += 1
            continue
        if isinstance(frame, Hello):
            hello = frame
        elif isinstance(frame, Load):
            load = frame
        elif isinstance(frame, CallFrame):
            calls.setdefault(frame.id, frame)
        elif isinstance(frame, End):
            end = frame
    return hello, load, calls, end, rejected


def _assemble(exercise: Exercise, submission: Submission, inputs: dict[str, np.ndarray],
              outcome: sandbox.SandboxOutcome, limits: sandbox.Limits,
              seconds: float) -> GradeReport:
    hello, load, frames, end, _rejected = parse_frames(outcome.frames)
    tampered = sorted(set(end.tampered if end else []) | set(load.tampered if load else []))
    ctx = Context(
        exercise=exercise, display_name=submission.display_name, hello=hello, load=load,
        frames=frames, inputs=inputs, references=exercise.make_references(inputs),
        termination=describe_termination(outcome, limits, submission.display_name),
    )
    checks = [_evaluate(ctx, spec) for spec in exercise.checks]
    broken = end is None or outcome.termination != "exited"
    if tampered:
        checks = [_void_for_tampering(c, tampered) for c in checks]
    return _report(exercise, submission, checks, outcome, limits, seconds, hello,
                   error=broken or bool(tampered), tampered=tampered)


def _evaluate(ctx: Context, spec: Any) -> CheckResult:
    try:
        outcome: Outcome = spec.fn(ctx, **spec.params)
    except Skip as skip:
        outcome = Outcome.skip(f"Not checked: {skip}.")
    earned = spec.points if outcome.status == "passed" else 0.0
    return CheckResult(id=spec.id, title=spec.title, status=outcome.status, points=earned,
                       max_points=spec.points, message=outcome.message, hint=outcome.hint,
                       evidence=outcome.evidence)


def _void_for_tampering(check: CheckResult, tampered: list[str]) -> CheckResult:
    if check.status != "passed" or check.id == "runs":
        return check
    return check.model_copy(update={
        "status": "failed", "points": 0.0,
        "message": "Not trusted: the grader's instrumentation was altered "
                   f"({', '.join(tampered[:3])}).",
        "hint": "Do not replace `time` functions, `jax.jit`, `block_until_ready` or other "
                "library functions; use them as they are.",
    })


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
    """(what happened, what to change) when the child did not finish on its own."""
    if outcome.frames_truncated:
        return (f"your code returned more data than the grader accepts "
                f"({limits.result_bytes / 2**20:.0f} MiB)",
                "Return only what the exercise asks for: the result and the samples.")
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
            hello: Hello | None, *, error: bool, tampered: list[str] | None = None,
            summary: str | None = None, internal_error: str | None = None) -> GradeReport:
    score = sum(c.points for c in checks)
    max_score = exercise.max_score
    status: ReportStatus
    if error:
        status = "error"
    else:
        status = "passed" if all(c.status == "passed" for c in checks) else "failed"
    if summary is None and status == "error":
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
        exercise=exercise.id, title=exercise.title, submission=submission.display_name,
        status=status, score=score, max_score=max_score, summary=summary, checks=checks,
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
                         "it again." if spec.id == "runs" else "")
        for spec in exercise.checks
    ]
    return _report(exercise, submission, checks, None, sandbox.Limits(wall_s=timeout),
                   seconds, None, error=True, summary=submission.problem)


def _internal_error_report(exercise: Exercise, submission: Submission,
                           outcome: sandbox.SandboxOutcome | None, limits: sandbox.Limits,
                           exc: Exception, seconds: float) -> GradeReport:
    message = f"internal error: {type(exc).__name__}: {exc}"
    checks = [
        CheckResult(id=spec.id, title=spec.title, status="skipped", points=0.0,
                    max_points=spec.points, message="Not checked: the grader failed.", hint="")
        for spec in exercise.checks
    ]
    return _report(exercise, submission, checks, outcome, limits, seconds, None, error=True,
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
    inputs = exercise.make_inputs()
    outcome = sandbox.run_sandboxed(
        [sys.executable, "-m", "syncgrade.child"],
        stdin=json.dumps(_job(exercise, submission)).encode(),
        files={"submission.py": source.encode(), "inputs.npz": _npz(inputs)},
        env={"PYTHONPATH": str(PACKAGE_ROOT.parent), "PYTHONDONTWRITEBYTECODE": "1"},
        limits=sandbox.Limits(wall_s=timeout),
        hidden_paths=_hidden_paths(),
    )
    _hello, load, frames, end, _rejected = parse_frames(outcome.frames)
    if load is None or not load.ok or end is None:
        detail = load.error or load.problems if load else outcome.stderr.text[-2000:]
        raise RuntimeError(f"{display_name} did not run in the child: {detail}")
    return frames
