"""How far ``sample-duration``'s bound is from each corpus file's longest sample (issue 33).

Grades corpus files through the real engine and prints, per file, the largest
``(sample - the time it is credited as lost) / bound`` over the judged samples (over 1:
the sample fails), four ways:

- ``now``: the check as it is: the bound from the grader's own runs (``2 x median + 4 x
  spread + 20 ms``), each sample credited its own measured loss (the larger of the
  watch's stalls and the grader's and jax's threads' waits for a CPU inside it);
- ``wakes``: the same with the watch's wake-up term too (``2 x`` its latest lateness);
- ``stalls``: that bound, credited the watch's stalls only (no threads' waits);
- ``old``: the margins' bound (``checks_intervals.margins_bound``: twice that bound plus
  100 ms, credited the stalls; ``DURATION_NOISE_FACTOR``, ``DURATION_NOISE_S``), which
  every sample may have, and the only one a child without schedstat gets.

``sample``, ``bound``, ``credit``: the furthest-over sample, the bound and that sample's
credit, in ms.

A correct file must stay under 1 (no false fail) and a mechanism twin (``expect-fail:
sample-duration``) over 1, idle and under load. ``--hog N`` starts N busy Python
processes (nice 0) for the run and ends them after, by their ids.

    .venv/bin/python benchmarks/duration_margin.py [--exercises 1 3 5 8] [--hog 20]
                                                   [--only correct|twins]

The ratios come from wrapping ``checks_intervals._allowances`` in this process (the
rubric runs in the grader's process, not the child's).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_support import corpus_cases  # noqa: E402

from syncgrade.grading import grade_result  # noqa: E402
from syncgrade.rubric import checks_intervals  # noqa: E402

HOG = "while 1: pass"
_SEEN: list[dict[str, float]] = []
_BOUND: dict[str, float] = {}


def _recording_bound(original: Any) -> Any:
    """``margins_bound`` that notes the bounds' terms for :func:`_recording`."""

    def margins_bound(seconds: list[float], latest_wake_s: float | None,
                      runnable_per_cpu: float | None = None,
                      waits_measured: bool = False) -> float:
        bound: float = original(seconds, latest_wake_s, runnable_per_cpu, waits_measured)
        measured = checks_intervals.measured_bound(seconds)
        _BOUND.update(measured=measured, wakes=measured + checks_intervals.load_term(
            latest_wake_s, runnable_per_cpu) - checks_intervals.DURATION_FLOOR_S, old=bound)
        return bound

    return margins_bound


def _recording(original: Any) -> Any:
    """``_allowances`` that also notes, per list, the largest ``(sample - its credit) /
    bound`` under each variant (over 1: the sample fails; see the module docstring)."""

    def allowances(values: list[float], intervals: list[Any], bound: float,
                   lost: tuple[list[tuple[float, float, float]], ...],
                   offset: float | None, clock_step_ns: int = 0) -> list[float | None]:
        allowed = original(values, intervals, bound, lost, offset, clock_step_ns)
        both = original(values, intervals, 0.0, lost, offset, clock_step_ns)
        stalls = original(values, intervals, 0.0, lost[:1], offset, clock_step_ns)
        variants = {
            "now": (bound, both),
            "wakes": (_BOUND["wakes"], both),
            "stalls": (_BOUND["wakes"], stalls),
            "old": (_BOUND["old"], stalls),
        }
        judged = [i for i, most in enumerate(allowed) if most is not None]
        if judged:
            seen = {name: max((values[i] - (credit[i] or 0.0)) / limit for i in judged)
                    for name, (limit, credit) in variants.items()}
            worst = max(judged, key=lambda i: values[i] - (allowed[i] or 0.0))
            _SEEN.append({**seen, "longest_ms": values[worst] * 1e3,
                          "bound_ms": bound * 1e3,
                          "credit_ms": ((allowed[worst] or 0.0) - bound) * 1e3})
        return allowed

    return allowances


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exercises", nargs="*", type=int, default=[1, 3, 5, 8])
    parser.add_argument("--hog", type=int, default=0, help="busy processes during the run")
    parser.add_argument("--only", choices=("correct", "twins"), default=None)
    args = parser.parse_args(argv)
    checks_intervals._allowances = _recording(checks_intervals._allowances)
    checks_intervals.margins_bound = _recording_bound(checks_intervals.margins_bound)
    wanted = {f"exercise-{n}" for n in args.exercises}
    cases = [c for c in corpus_cases()
             if ((c.exercise in wanted and not c.expected_failures and args.only != "twins")
                 or ("sample-duration" in c.expected_failures and args.only != "correct"))]
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hog)]
    try:
        time.sleep(1.0 if hogs else 0.0)
        print(f"# {len(cases)} files, {args.hog} hogs, load {os.getloadavg()[0]:.1f}")
        print(f"{'file':52} {'verdict':7} {'now':>6} {'wakes':>6} {'stalls':>6} "
              f"{'old':>6} {'sample':>8} {'bound':>7} {'credit':>7}")
        for case in cases:
            _SEEN.clear()
            report = grade_result(case.exercise, case.path, timeout=300).report
            verdicts: list[str] = [c.status for c in report.checks
                                   if c.id == "sample-duration"]
            kind = "twin" if case.expected_failures else "correct"
            for seen in _SEEN or [{}]:
                print(f"{case.id:52} {(verdicts or ['-'])[0][:7]:7} "
                      + " ".join(f"{seen.get(k, float('nan')):6.2f}"
                                 for k in ("now", "wakes", "stalls", "old"))
                      + f" {seen.get('longest_ms', float('nan')):8.1f}"
                      f" {seen.get('bound_ms', float('nan')):7.1f}"
                      f" {seen.get('credit_ms', float('nan')):7.1f}  {kind}", flush=True)
        print(f"# load at the end {os.getloadavg()[0]:.1f}")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
