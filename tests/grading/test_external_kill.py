"""A grading child killed from outside is the grader's fault, not the learner's (issue 26).

An operator's ``kill -9`` or the host's OOM killer ends the learner's process with a
SIGKILL (or SIGTERM) that neither the sandbox's limits nor the learner's code sent: the
grade is run once more, and a second such kill is a grader fault (``status: error``,
never charged). The learner's own ``os.kill(os.getpid(), SIGKILL)`` or
``signal.raise_signal(SIGTERM)`` stays the learner's crash: the child's audit hook notes
it on the stack pipe before the signal is sent.

The kills are real: a thread of the test finds the learner's process among the test's own
descendants (its working directory holds the ``started`` file the submission made) and
signals it, as an operator would. No wall time is asserted.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from process_support import descendant_with_file

from syncgrade import grading, pool
from syncgrade.grading.cause import fault_cause
from syncgrade.pool import WarmPool
from syncgrade.sandbox._classify import classify

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = (ROOT / "solutions" / "exercise-1" / "solution.py").read_text()
# Marks the learner's process (its cwd is the run's workdir), then gives the killer time.
STARTED = "import pathlib, time\npathlib.Path('started').touch()\ntime.sleep(2)\n"


@pytest.fixture(autouse=True)
def no_shared_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pool.ENV_VAR, raising=False)


class Killer:
    """Signals each new learner process (one whose cwd holds ``started``), ``times``
    times in all, from a thread of the test: a kill from outside the sandbox."""

    def __init__(self, sig: int, times: int) -> None:
        self.sig, self.times = sig, times
        self.killed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Killer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while len(self.killed) < self.times and not self._stop.is_set():
            pid = descendant_with_file("started")
            if pid is not None and pid not in self.killed:
                try:
                    os.kill(pid, self.sig)
                    self.killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)


def test_a_child_killed_from_outside_once_is_graded_again() -> None:
    with Killer(signal.SIGKILL, 1) as killer:
        report = grading.grade("exercise-1", source=STARTED + SOLUTION, timeout=30)
    assert len(killer.killed) == 1
    assert (report.status, report.cause) == ("passed", "graded"), report.summary
    assert report.grading.internal_error is None


def test_a_child_killed_from_outside_twice_is_a_grader_fault_not_a_crash() -> None:
    with Killer(signal.SIGKILL, 2) as killer:
        report = grading.grade("exercise-1", source=STARTED + SOLUTION, timeout=30)
    assert len(killer.killed) == 2
    assert (report.status, report.cause) == ("error", "grader_fault"), report.summary
    assert report.score == 0 and "not your fault" in report.summary
    assert "killed from outside (SIGKILL)" in (report.grading.internal_error or "")
    assert fault_cause(report.grading.internal_error) == "killed"


def test_a_pooled_child_terminated_from_outside_is_graded_again() -> None:
    # The service's path: a warm child forked from the zygote, in its pid namespace.
    with WarmPool(size=1, wait_s=300) as children, Killer(signal.SIGTERM, 1) as killer:
        report = grading.grade("exercise-1", source=STARTED + SOLUTION, timeout=30,
                              pool=children)
    assert len(killer.killed) == 1
    assert (report.status, report.cause) == ("passed", "graded"), report.summary


@pytest.mark.parametrize("suicide", [
    "os.kill(os.getpid(), signal.SIGKILL)",
    "signal.raise_signal(signal.SIGTERM)",
    "os.killpg(os.getpgid(0), signal.SIGKILL)",
])
def test_the_learners_own_kill_is_the_learners_crash(suicide: str) -> None:
    source = f"import os, signal\n{suicide}\n" + SOLUTION
    report = grading.grade("exercise-1", source=source, timeout=30)
    assert (report.status, report.cause) == ("failed", "crashed"), report.summary
    assert report.grading.internal_error is None
    assert "killed by SIG" in report.summary


@pytest.mark.parametrize(("status", "stopped", "timed_out", "unexplained"), [
    (signal.SIGKILL, False, False, True),    # nobody in the sandbox sent it
    (signal.SIGTERM, False, False, True),
    (signal.SIGKILL, True, False, False),    # the sandbox stopped it (the result cap)
    (signal.SIGKILL, False, True, False),    # the time limit
    (signal.SIGABRT, False, False, False),   # os.abort(): always the child's own
    (signal.SIGSEGV, False, False, False),
    (1 << 8, False, False, False),           # exit status 1
])
def test_the_sandbox_names_a_kill_it_did_not_send(status: int, stopped: bool,
                                                  timed_out: bool, unexplained: bool) -> None:
    ending = classify(wait_status=status, timed_out=timed_out, cpu_used=1.0,
                      cpu_limit=100.0, stderr_text="", stopped=stopped)
    assert ending.unexplained_kill is unexplained


def test_a_kill_with_the_cpu_budget_spent_is_the_cpu_limit() -> None:
    ending = classify(wait_status=signal.SIGKILL, timed_out=False, cpu_used=100.0,
                      cpu_limit=100.0, stderr_text="")
    assert (ending.termination, ending.unexplained_kill) == ("cpu", False)
