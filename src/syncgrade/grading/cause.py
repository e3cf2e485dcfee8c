"""Stage 6: why a run ended as it did (the report's cause, the termination message) and
what tampering voids."""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

from syncgrade import sandbox
from syncgrade.grading.frames import CHANNEL_TAMPERED, said_hello
from syncgrade.models import Cause, CheckResult, Evidence
from syncgrade.protocol import SIGNAL_NOTE
from syncgrade.rubric.base import Exercise, GraderCall, at_text
from syncgrade.rubric.validation import SPEC_KINDS, RubricError
from syncgrade.trace import CallFrame, Load

_CAUSE_OF_TERMINATION: dict[str, Cause] = {
    "timeout": "timeout", "memory": "memory_limit", "cpu": "cpu_limit",
}

_SYNTAX_ERRORS = frozenset({"SyntaxError", "IndentationError", "TabError"})


class GraderKilled(RuntimeError):
    """A grading child was killed from outside (an operator, the host's OOM killer), and
    could not be run again: a grader fault, never the learner's crash."""


class StartupOverrun(RuntimeError):
    """A grading child did not start (send its hello frame) within its start-up budget."""


class OutOfTime(RuntimeError):
    """The grade's overhead budget left no time to start a grading child."""


FAULT_CAUSES = {GraderKilled.__name__: "killed", StartupOverrun.__name__: "startup",
                OutOfTime.__name__: "out_of_time", "SandboxError": "sandbox"}
"""The cause of a grader fault, by the exception that made it (as
``grading.internal_error`` names it); any other is ``other``."""


def fault_cause(internal_error: str | None) -> str:
    """The cause of a grader fault from its report's ``grading.internal_error``
    (``internal error: <exception class>: ...``): a value of :data:`FAULT_CAUSES` or
    ``other``."""
    name = (internal_error or "").removeprefix("internal error: ").partition(":")[0]
    return FAULT_CAUSES.get(name, "other")


def killed_from_outside(outcome: sandbox.SandboxOutcome) -> str | None:
    """What killed the child, when it came from outside; else None.

    The sandbox says when a SIGKILL or SIGTERM ended the child that it did not send with
    none of its limits reached (``SandboxOutcome.unexplained_kill``); the child's audit
    hook wrote :data:`~syncgrade.protocol.SIGNAL_NOTE` on the stack pipe first if the
    learner's code could have sent it (``os.kill(os.getpid(), 9)`` is the learner's
    crash). Neither: an operator's kill or the host's OOM killer."""
    if not outcome.unexplained_kill or SIGNAL_NOTE in (outcome.stack_dump or ""):
        return None
    return (f"the grading child was killed from outside ({outcome.signal_name}): neither "
            "the sandbox's limits nor the submission's code sent it")

def cause_of(outcome: sandbox.SandboxOutcome, load: Load | None,
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

def charge_stop(check: CheckResult, termination: tuple[str, str]) -> CheckResult:
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

def workload_fault(exercise: Exercise, frames: dict[str, CallFrame]) -> RubricError | None:
    """The exercise setup error when a call failed in a workload the rubric declared as
    source (``jnp.tanhh``, a name it never defined; the child tells these from the
    learner's mistakes: :attr:`~syncgrade.trace.LearnerError.workload`), naming the
    declaration's file and line; ``None`` when no call did. The learner is not blamed:
    the grade raises it, like a rubric that does not load."""
    for call in exercise.calls:
        frame = frames.get(call.id)
        error = frame.error if frame is not None else None
        if error is None or error.workload is None or error.workload not in {
                spec.get("name") for spec in _specs([*call.args, *call.kwargs.values()])
                if isinstance(spec.get("source"), str)}:
            continue  # only a workload this call declares: the child's word is not enough
        where = _workload_line(exercise, error.workload, error.workload_line, call)
        return RubricError(
            f"rubric error in {exercise.id}: {where}the declared workload "
            f"`{error.workload}` failed on its own code (line {error.workload_line} of its "
            f"source) when call {call.id!r} ran it: {error.type}: {error.message}")
    return None


def _workload_line(exercise: Exercise, name: str, line: int | None,
                   call: GraderCall | None = None) -> str:
    """``"path/exercise.py:N: "``: the declaration's line of the workload's failing line,
    when its source text is written verbatim in the file; else the line of the grader
    call that hands it over (``call``), when written in that file; else the file alone."""
    origin = getattr(call, "origin", None)
    if exercise.folder is None:
        return at_text(origin)
    path = exercise.folder / "exercise.py"
    sources = [spec.get("source") for call in exercise.calls
               for spec in _specs([*call.args, *call.kwargs.values()])
               if spec.get("name") == name and isinstance(spec.get("source"), str)]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    at = text.find(sources[0]) if sources and sources[0] else -1
    if at < 0 or line is None:
        if origin is not None and os.path.realpath(origin[0]) == os.path.realpath(path):
            return at_text(origin)
        return f"{path}: "
    return f"{path}:{text.count(chr(10), 0, at) + line}: "


def _specs(specs: list[Any]) -> list[dict[str, Any]]:
    found = []
    for spec in specs:
        if isinstance(spec, dict):
            found.append(spec)
            found += _specs([*spec.get("items", ()), *(spec.get("warm") or ())])
    return found


def void_for_tampering(check: CheckResult, tampered: list[str]) -> CheckResult:
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

_STACK_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')

def learner_line_from_stack(dump: str | None, display_name: str) -> int | None:
    """The innermost learner line in a faulthandler dump (most recent call first)."""
    if not dump:
        return None
    for match in _STACK_LINE.finditer(dump):
        if match["file"] == display_name:
            return int(match["line"])
    return None

def _stopped_before_loading(outcome: sandbox.SandboxOutcome, limits: sandbox.Limits) -> str:
    """The grader fault of a child that ended before its hello frame.

    Only the grader's start-up and the runtime ran (no learner code), so the ending is
    never the learner's, whatever it was: a runtime that cannot start (a device held
    elsewhere), or one that does not fit the memory limit. Which of these an ending is
    cannot be told from its signal alone: under ``RLIMIT_AS`` an allocation refused in a
    thread that cannot report it is a silent SIGSEGV as often as a marked abort (at load,
    which thread hits the limit first changes from run to run). So the message names the
    memory limit as the likely cause whenever the ending looks like one, and the verdict
    (a grader fault) is the same either way.
    """
    status = outcome.signal_name or f"status {outcome.returncode}"
    memory_like = outcome.termination == "memory" or outcome.signal_name in _ALLOCATION_SIGNALS
    likely = (f"; the runtime may not fit the {limits.memory_bytes / 2**30:.1f} GiB memory "
              f"limit: raise --memory") if memory_like else ""
    return (f"the grading child stopped before loading the submission ({status}{likely}): "
            f"{outcome.stderr.text[-1500:]}")


_ALLOCATION_SIGNALS = ("SIGSEGV", "SIGBUS", "SIGABRT")
"""Signals a runtime dies of when an allocation is refused without a message."""


def describe_termination(outcome: sandbox.SandboxOutcome, limits: sandbox.Limits,
                         display_name: str) -> tuple[str, str]:
    """(what happened, what to change) when the child did not finish on its own.

    Raises ``RuntimeError`` (an internal error) when the child exited, died, ran out of
    memory or overran its start-up budget (``Limits.startup_s``) before its ``hello``
    frame (before any learner code ran), or the caller's deadline cut it short
    (``Limits.end_s``): the grader's fault.
    """
    if outcome.frames_truncated:
        return (f"your code produced more data for the grader than it accepts "
                f"({limits.result_bytes / 2**20:.0f} MiB of results and trace events)",
                "Return only what the exercise asks for, and make only the calls and "
                "clock readings it needs (not millions).")
    if outcome.startup_timeout:  # (the engine raises first, naming the budget it gave)
        raise StartupOverrun(f"the grading child did not start within its start-up budget "
                             f"(stopped after {outcome.wall_s:.1f} s), before loading the "
                             f"submission: {outcome.stderr.text[-1500:]}")
    if outcome.cut_short:
        raise OutOfTime(f"the grade's deadline stopped the submission after "
                        f"{outcome.clock_s:.1f} s of its {limits.wall_s:g} s: not charged")
    resident = outcome.applied("resident-memory-limit")
    if outcome.termination in ("exited", "signal", "memory") and not said_hello(outcome.frames):
        raise RuntimeError(_stopped_before_loading(outcome, limits))
    if outcome.termination == "timeout":
        line = learner_line_from_stack(outcome.stack_dump, display_name)
        where = f" while running line {line}" if line else ""
        return (f"your code hit the {limits.wall_s:g} s time limit{where}",
                "Look for a loop that never ends or a wait on something that never completes.")
    if outcome.termination == "memory":
        more = " more than the device runtime's own" if resident else ""
        return (f"your code hit the memory limit ({limits.memory_bytes / 2**30:.1f} GiB{more})",
                "Avoid keeping every output or building very large arrays.")
    if outcome.termination == "cpu":
        return ("your code used up its CPU-time limit",
                "Look for a loop that never ends.")
    if outcome.termination == "signal":
        return (f"the process running your code was killed by {outcome.signal_name}",
                "Do not send signals, call ctypes or crash the interpreter on purpose.")
    return (f"the process running your code exited early (status {outcome.returncode})",
            "Do not call `sys.exit` or `os._exit` in the functions the grader calls.")
