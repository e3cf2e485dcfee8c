"""Per-check visibility: what a learner may see of a check they cannot see in full.

A check's ``visibility`` (on :class:`~syncgrade.rubric.base.CheckSpec`, copied onto each
:class:`~syncgrade.models.CheckResult`) is one of:

- ``visible``: everything (message, hint, evidence, the timeline) goes to the learner.
- ``hidden``: the learner sees the check's id, title, points and pass/fail, and, when it
  failed, a generic hint that restates only what the public curriculum contract says the
  check asks for (``SAFE_HINTS``). Its own message, hint and evidence are dropped, because
  those are written from what the check saw on the hidden inputs.
- ``after_due_date``: the same as ``hidden`` everywhere except Gradescope, whose own
  ``after_due_date`` visibility withholds the test until the deadline and then shows it in
  full (see :mod:`syncgrade.platforms.gradescope`). syncgrade itself knows no deadlines.

:func:`redact` applies this to a whole report. It is the one place learner-facing outputs
(``grade``'s text and JSON, the platform formats, API users' own views) hide details;
``--reveal`` (instructors) skips it. What the learner's own code printed (``stdout``,
``stderr``) is theirs and is kept.
"""

from __future__ import annotations

from collections.abc import Collection

from syncgrade.models import CheckResult, Evidence, GradeReport, Visibility

# One learner-safe hint per public check id: each restates the "passes when" column of the
# curriculum contract (EXERCISES.md), which learners already read, and nothing a check saw.
SAFE_HINTS: dict[str, str] = {
    "runs": "Make sure your file runs on its own (`python submission.py`) and defines every "
            "function the exercise asks for, with the signature it gives.",
    "numpy-match": "Compare your result with a NumPy computation of the same formula, on "
                   "inputs of other shapes and seeds than the stub's.",
    "shape": "Check the shape of what you return against the exercise statement.",
    "sample-count": "Return exactly the number of samples asked for, each a positive number "
                    "of seconds.",
    "samples-measured": "Make every sample the difference of two clock readings your code "
                        "took around the timed work.",
    "times-the-call": "Time exactly one call of the function under test in each interval.",
    "sync-before-stop": "Wait for the output of the call you are timing before you stop "
                        "the timer.",
    "placement-excluded": "Place the inputs on the device before the timer starts, and pass "
                          "device arrays, not NumPy arrays, to the jitted function.",
    "inputs-ready": "Place the inputs on the requested device and wait for them before the "
                    "first interval starts.",
    "warmup-excluded": "Warm up (compile) the function before the first timed interval.",
    "interval-clean": "Keep prints, sleeps and other host work out of the timed interval: "
                      "time only the call and its wait.",
    "sample-duration": "Keep each sample as long as the call and its wait: no other work, "
                       "threads or waits between the two clock reads.",
    "covers-device-work": "Make each sample cover the device work: wait for the output "
                          "inside the interval.",
    "verification-catches-errors": "Make your NumPy check raise AssertionError when the "
                                   "result is wrong, and pass when it is right.",
    "reference-is-numpy": "Compute the reference with NumPy on the host, without JAX.",
    "jitted": "Compile the workload once and reuse it; do not jit again inside the loop.",
    "donates-input": "Jit the timed function with its input donated (`donate_argnums`), "
                     "and give every timed call a fresh device copy of the input, placed "
                     "before the timer starts.",
    "boundary-matches": "Declare exactly the phases your timed interval contains.",
    "report-schema": "Return every field the exercise's report asks for, with the types it "
                     "names.",
    "first-call-includes-compile": "Give each first-call sample a fresh callable, and wait "
                                   "for its output before the timer stops.",
    "summary-stats": "Compute the medians and the estimate from the samples you report.",
    "environment": "Read the JAX version, backend and device from JAX itself.",
    "placement-included": "Place every host input inside each end-to-end interval.",
    "readback-included": "Bring the output back to the host inside each end-to-end "
                         "interval.",
}
_ANSWER_HINT = ("Reread the snippet and the list of phases: an interval holds only what its "
                "timer waited for.")
_FALLBACK_HINT = "Reread the exercise statement for what this check asks."

HIDDEN_PASSED = "Passed. (A hidden check: its details are not shown.)"
HIDDEN_FAILED = "Not passed. (A hidden check: its details are not shown.)"
HIDDEN_SKIPPED = "Not checked. (A hidden check: its details are not shown.)"

REDACTED: frozenset[Visibility] = frozenset({"hidden", "after_due_date"})


def safe_hint(check_id: str) -> str:
    """The learner-safe hint for a check id: from the public contract only."""
    if check_id.startswith("answer-"):
        return _ANSWER_HINT
    return SAFE_HINTS.get(check_id, _FALLBACK_HINT)


def redact_check(check: CheckResult) -> CheckResult:
    """The learner's view of one hidden check: verdict and points, a generic message, and
    the safe hint when it failed; no evidence."""
    message = {"passed": HIDDEN_PASSED, "failed": HIDDEN_FAILED,
               "skipped": HIDDEN_SKIPPED}[check.status]
    hint = safe_hint(check.id) if check.status == "failed" else ""
    return check.model_copy(update={"message": message, "hint": hint,
                                    "evidence": Evidence(), "same_interval_as": None})


def redact(report: GradeReport, *,
           redacted: Collection[Visibility] = REDACTED) -> GradeReport:
    """The learner-facing view of ``report``: every check whose visibility is in
    ``redacted`` (default: ``hidden`` and ``after_due_date``) keeps only its verdict,
    points, a generic message and a learner-safe hint. Everything else is unchanged,
    including ``status``, ``cause``, ``score`` and the learner's own output. A summary that
    quotes a redacted check (after a crash the summary is the ``runs`` message) is replaced
    by a generic one. Pure: returns a new report; the result is a valid GradeReport.
    """
    hide = frozenset(redacted)
    if not any(c.visibility in hide for c in report.checks):
        return report
    checks: list[CheckResult] = []
    quoted = False
    for check in report.checks:
        if check.visibility in hide:
            quoted = quoted or _quotes(report.summary, check)
            checks.append(redact_check(check))
        else:
            checks.append(check)
    checks = _redrawn(checks, {c.id for c in report.checks if c.visibility in hide})
    summary = report.summary
    if quoted:
        failed = [c.id for c in checks if c.status == "failed"]
        summary = (f"{len(failed)} check(s) failed: {', '.join(failed)}." if failed
                   else "Not every check could run.")
    return report.model_copy(update={"checks": checks, "summary": summary})


def _redrawn(checks: list[CheckResult], hidden: set[str]) -> list[CheckResult]:
    """``checks`` with each reference to a drawing a redacted check no longer shows
    (``same_interval_as``) moved to the first visible check that referred to it, which
    then draws the interval itself."""
    moved: dict[str, str] = {}
    out: list[CheckResult] = []
    for check in checks:
        drawer = check.same_interval_as
        if drawer in hidden:
            new = moved.setdefault(drawer, check.id)
            check = check.model_copy(
                update={"same_interval_as": None if new == check.id else new})
        out.append(check)
    return out


def _quotes(summary: str, check: CheckResult) -> bool:
    return any(text and len(text) > 8 and text in summary
               for text in (check.message, check.hint))
