"""How much unrecorded blocking each corpus file's timed intervals hold (issue 33, item 2).

Grades corpus files through the real engine and prints, per list ``interval-clean``
judges, the largest and the median unrecorded blocking over its judged intervals
(``Interval.unrecorded_blocked_ns``: time the timing thread spent off a CPU and not
runnable outside every recorded operation, docs/checks.md, "interval-clean"), in ms,
against the bound (``analysis.UNRECORDED_BLOCK_BOUND_NS``), and whether the list failed
on it; ``max`` and ``median`` after the stall watch's interpreter holds are credited
(``checks_intervals.InterpreterHolds``), ``raw`` the largest before. A correct file
must stay under the bound (no false fail) and a blocking twin
(``expect-fail: interval-clean`` with an unrecorded wait) over it, idle and under load.
``--hog N`` starts N busy Python processes for the run and ends them after, by their ids.

    .venv/bin/python benchmarks/blocking_margin.py [--exercises 1 3 5] [--hog 8]
                                                   [--only correct|flawed] [--rounds 1]

The figures come from wrapping ``checks_intervals.blocking_interval`` in this process
(the rubric runs in the grader's process, not the child's). ``-`` where the child could
not read its blocked clock (no schedstat: gVisor), where nothing is judged.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_support import corpus_cases  # noqa: E402

from syncgrade.analysis import UNRECORDED_BLOCK_BOUND_NS  # noqa: E402
from syncgrade.grading import grade_result  # noqa: E402
from syncgrade.rubric import checks_intervals  # noqa: E402

HOG = "while 1: pass"
_SEEN: list[tuple[list[float], bool, list[float]]] = []


def _recording(original: Any) -> Any:
    """``blocking_interval`` that also notes each judged list's blocking (ms) and verdict."""

    def blocking_interval(intervals: list[Any], *args: Any, **kwargs: Any) -> Any:
        over = original(intervals, *args, **kwargs)
        held = kwargs.get("held", checks_intervals.NO_HOLDS)
        judged = [i for i in intervals
                  if not i.compiles and i.unrecorded_blocked_ns is not None]
        blocked = [(held.blocked_ns(i) or 0) / 1e6 for i in judged]
        raw = [i.unrecorded_blocked_ns / 1e6 for i in judged]
        _SEEN.append((blocked, over is not None, raw))
        return over

    return blocking_interval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="*", type=int, default=[1, 3, 5])
    parser.add_argument("--hog", type=int, default=0, help="busy processes during the run")
    parser.add_argument("--only", choices=("correct", "flawed"), default=None)
    parser.add_argument("--match", default="", help="only files whose name contains this")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    checks_intervals.blocking_interval = _recording(checks_intervals.blocking_interval)
    wanted = {f"exercise-{n}" for n in args.exercises}
    cases = [c for c in corpus_cases() if c.exercise in wanted and args.match in c.id
             and (args.only is None
                  or (args.only == "correct") == (not c.expected_failures))]
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hog)]
    failed_correct = graded = 0
    try:
        time.sleep(1.0 if hogs else 0.0)
        print(f"# {len(cases)} files x {args.rounds}, {args.hog} hogs, "
              f"load {os.getloadavg()[0]:.1f}, bound {UNRECORDED_BLOCK_BOUND_NS / 1e6} ms")
        print(f"{'file':60} {'clean':7} {'max':>7} {'median':>7} {'raw':>7} {'lists':>5}")
        for _round in range(args.rounds):
            for case in cases:
                _SEEN.clear()
                report = grade_result(case.exercise, case.path, timeout=300).report
                status: list[str] = [c.status for c in report.checks
                                     if c.id == "interval-clean"]
                kind = "flawed" if case.expected_failures else "correct"
                graded += 1
                if kind == "correct" and report.status != "passed":
                    failed_correct += 1
                values = [v for blocked, _over, _raw in _SEEN for v in blocked]
                raw = [v for _blocked, _over, seen in _SEEN for v in seen]
                most = f"{max(values):7.2f}" if values else f"{'-':>7}"
                before = f"{max(raw):7.2f}" if raw else f"{'-':>7}"
                middle = f"{statistics.median(values):7.2f}" if values else f"{'-':>7}"
                print(f"{case.id:60} {(status or ['-'])[0][:7]:7} {most} {middle} {before} "
                      f"{len(_SEEN):5}  {kind} {report.status}", flush=True)
        print(f"# {graded} grades, {failed_correct} correct files not passed; "
              f"load at the end {os.getloadavg()[0]:.1f}")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
