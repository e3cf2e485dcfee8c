"""The integrity corpus: every cheating submission in ``tests/corpus/integrity/`` through the
real engine. Each must get the verdict its header names (the exact set of failed checks, or
the report's learner-side ``cause``, e.g. ``tampered``), never full marks, never a grader
fault (exit 3), and never run past its time limit plus a few seconds, whatever it does to
the grader.

The few seconds are an idle machine's, scaled by the load budget measured at run time
(``process_support.LoadBudget``, issue 25). Removing the run directory is timed apart: it
is disk-bound (a cheat's 5000-deep tree is 5000 ``rmdir`` calls, ~3 ms each on an ext4
mounted with ``discard``, 13 s or more when the disk is shared), so its bound is its CPU
time, which shows the O(entries) walk (tests/sandbox/test_sandbox_cleanup.py)."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from corpus_support import (
    INTEGRITY,
    IntegrityCase,
    failed_ids,
    integrity_cases,
    read_integrity_header,
)
from process_support import LoadBudget

import syncgrade
from syncgrade.courses import EXERCISES
from syncgrade.sandbox import RunDir

TIMEOUT_S = 20.0
SLACK_S = 5.0  # starting the sandbox, parsing frames and checks: the whole overrun allowed
CASES = integrity_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cheat_gets_its_verdict(case: IntegrityCase, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the run directory goes here
    removing = _time_run_dir_removal(monkeypatch)
    budget = LoadBudget()
    started = time.monotonic()
    report = syncgrade.grade(case.exercise, case.path, timeout=TIMEOUT_S)
    elapsed = time.monotonic() - started
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.grading.internal_error is None, report.grading.internal_error
    assert report.score < report.max_score, details
    assert report.status == "failed", f"status {report.status}\n{details}"
    if case.expected_cause:
        assert report.cause == case.expected_cause, f"cause {report.cause}\n{details}"
    else:
        assert failed_ids(report) == case.expected_failures, details
    if report.grading.tampered:
        assert report.summary.startswith("Not graded: your code altered"), report.summary
    assert removing["cpu_s"] < 5, f"removing the run directory took {removing['cpu_s']:.1f} CPU s"
    graded = elapsed - removing["wall_s"]
    assert graded <= TIMEOUT_S + budget.bound(SLACK_S), (
        f"took {graded:.1f} s (and {removing['wall_s']:.1f} s removing the run directory)")
    assert list(tmp_path.iterdir()) == [], "the run directory was left behind"


def _time_run_dir_removal(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Wrap ``RunDir.remove``: the returned dict adds up its wall and CPU seconds (CPU of
    the calling thread, the one that removes)."""
    spent = {"wall_s": 0.0, "cpu_s": 0.0}
    real = RunDir.remove

    def timed(self: RunDir) -> None:
        wall, cpu = time.monotonic(), time.thread_time()
        try:
            real(self)
        finally:
            spent["wall_s"] += time.monotonic() - wall
            spent["cpu_s"] += time.thread_time() - cpu

    monkeypatch.setattr(RunDir, "remove", timed)
    return spent


def test_the_integrity_corpus_is_big_enough_and_well_formed() -> None:
    files = sorted(INTEGRITY.glob("*.py"))
    assert len(files) >= 20, f"only {len(files)} cheating submissions"
    for case in CASES:
        assert case.exercise in EXERCISES, f"{case.path.name}: unknown {case.exercise}"
        declared = {spec.id for spec in EXERCISES[case.exercise].checks}
        assert case.expected_failures <= declared, (
            f"{case.path.name}: no such check {sorted(case.expected_failures - declared)}")


def test_the_header_parser_rejects_incomplete_headers(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text("# exercise: exercise-1\n# cheat: x\n# expect-fail: runs numpy-match\n")
    case = read_integrity_header(good)
    assert case.expected_failures == {"runs", "numpy-match"} and not case.expected_cause
    good.write_text("# exercise: exercise-1\n# cheat: x\n# expect: tampered\n")
    assert read_integrity_header(good).expected_cause == "tampered"
    for text in ("# exercise: exercise-1\n# expect: tampered\n",  # no cheat
                 "# exercise: exercise-1\n# cheat: x\n",  # no expectation
                 "# exercise: exercise-1\n# cheat: x\n# expect: pass\n",  # a cheat never passes
                 "# exercise: exercise-1\n# cheat: x\n# expect: error\n",  # not a cause
                 "# exercise: exercise-1\n# cheat: x\n# expect: grader_fault\n",  # not theirs
                 "# exercise: exercise-1\n# cheat: x\n# expect: tampered\n# expect-fail: runs\n"):
        bad = tmp_path / "bad.py"
        bad.write_text(text)
        with pytest.raises(AssertionError):
            read_integrity_header(bad)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "pooled"])
def test_learner_code_finds_no_hidden_data(warm: bool, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    """Issue 17: the hidden inputs (and the job, with its channel key) are gone from the
    working directory and the fds before learner code runs: the cheat lists the working
    directory, HOME, TMPDIR and its parent every way, opens the inputs file by its known
    name and every regular file behind /proc/self/fd and /dev/fd, in each of
    exercise-4's children, cold (stdin is the job's file) and pooled (a pipe)."""
    from syncgrade import pool

    monkeypatch.setenv(pool.ENV_VAR, "1" if warm else "0")
    report = syncgrade.grade("exercise-4", INTEGRITY / "hidden_inputs_from_workdir.py",
                             timeout=TIMEOUT_S)
    lines = report.stdout.text.splitlines()
    listed = [line.split("=", 1)[1] for line in lines if line.startswith("HIDDEN-PROBE ")]
    found = [line.split()[1:] for line in lines if line.startswith("HIDDEN-FOUND ")]
    children = len(EXERCISES["exercise-4"].calls)  # one child per call
    assert len(listed) == children, report.stdout.text  # it ran, in every child
    assert all(set(names.split("|")) <= {"submission.py", "tmp"} for names in listed), listed
    # Besides its own source, only the scheduler counters of the child's threads, which
    # the stall watch keeps open to measure waits for a CPU (child/reference.py): three
    # numbers, nothing of the job.
    assert found and all(kind in {"own-source", "schedstat"} for _, kind in found), found
    assert any(kind == "own-source" for _, kind in found), found
    assert report.score < report.max_score and report.status == "failed", report.summary


@pytest.mark.parametrize("name", ["forge_fd_write", "forge_duplicate_frame"])
def test_a_forgery_is_caught_whatever_number_the_channel_has(name: str) -> None:
    # The child's channel keeps the number the grading process's pipe got: past 64 when
    # that process holds many fds (a test worker late in a run). The cheats scan every
    # open fd; with 3..64 only, theirs missed the channel there (full marks, `crashed`).
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(100)]
    try:
        [case] = [c for c in CASES if c.path.stem == name]
        report = syncgrade.grade(case.exercise, case.path, timeout=TIMEOUT_S)
    finally:
        for fd in held:
            os.close(fd)
    assert report.cause == "tampered", "\n".join(f"{c.status} {c.id}: {c.message}"
                                                 for c in report.checks)
