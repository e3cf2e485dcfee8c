"""Gradescope: ``results.json`` from a report, and the ``run_autograder`` entry point.

Field set (Gradescope autograder spec, ``docs/specs.md`` of gradescope/autograder_samples):
top level ``score``, ``execution_time``, ``output``, ``stdout_visibility``, ``tests``,
``extra_data``; each test ``name``, ``score``, ``max_score``, ``status``
(``passed``/``failed``), ``output``, ``visibility``.

Visibility, learner view (the default):

- ``visible`` check: a ``visible`` test with the full message, hint and timeline.
- ``hidden`` check: a ``visible`` test with the verdict, points and a learner-safe hint
  only. Not Gradescope's ``hidden``: that one is meant for tests that carry no points and
  would take the check's points out of what the learner sees.
- ``after_due_date`` check: Gradescope's own ``after_due_date`` test, in full: Gradescope
  withholds it until the deadline (and, while any such test is withheld, the learner's
  total) and then shows everything.

With ``reveal=True`` nothing is redacted and each check's visibility is passed through as
is (``hidden`` then means Gradescope's instructor-only test): for staff runs.

A grader fault scores 0 with no tests and an output that says it is not the learner's
fault; ``extra_data.syncgrade`` carries ``status`` and ``cause`` so staff can find those
submissions and regrade them.

Run ``python -m syncgrade.platforms.entry gradescope`` (or ``syncgrade-gradescope``) as
the body of ``run_autograder``; see :mod:`syncgrade.platforms.entry` and docs/platforms.md.
"""

from __future__ import annotations

from typing import Any

from syncgrade.models import CheckResult, GradeReport, Visibility
from syncgrade.platforms.common import Layout, headline, name_of, stderr_tail
from syncgrade.platforms.visibility import redact
from syncgrade.render import check_detail

DEFAULT_ROOT = "/autograder"
HIDDEN_ONLY: frozenset[Visibility] = frozenset({"hidden"})


def to_gradescope(report: GradeReport, *, reveal: bool = False,
                  source_lines: list[str] | None = None) -> dict[str, Any]:
    """Gradescope's ``results.json`` for ``report`` (a pure function; see the module
    docstring for the visibility mapping). ``source_lines``, when given, lets each timeline
    quote the learner's own lines."""
    # after_due_date stays in full: Gradescope itself withholds those tests until the
    # deadline. The top-level output is always shown, so it uses the fully redacted view.
    view = report if reveal else redact(report, redacted=HIDDEN_ONLY)
    safe = report if reveal else redact(report)
    tests: list[dict[str, Any]] = []
    if report.cause != "grader_fault":
        tests = [_test(check, reveal, source_lines) for check in view.checks]
    output = headline(safe)
    tail = stderr_tail(report)
    if tail:
        output += "\n\n" + tail
    return {
        "score": report.score if report.cause != "grader_fault" else 0.0,
        "execution_time": round(report.grading.seconds, 2),
        "output": output,
        # run_autograder's stdout carries the instructor's full view (see entry.py).
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"syncgrade": _extra(report)},
    }


def _test(check: CheckResult, reveal: bool,
          source_lines: list[str] | None) -> dict[str, Any]:
    if reveal:
        visibility = check.visibility
    else:
        visibility = "after_due_date" if check.visibility == "after_due_date" else "visible"
    return {
        "name": name_of(check),
        "score": check.points,
        "max_score": check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": check_detail(check, source_lines),
        "visibility": visibility,
    }


def _extra(report: GradeReport) -> dict[str, Any]:
    return {"schema_version": report.schema_version, "exercise": report.exercise,
            "status": report.status, "cause": report.cause,
            "rubric_version": report.provenance.rubric_version,
            "syncgrade_version": report.provenance.syncgrade_version}


def fallback(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The results file when no report could be made (a bad configuration, a crash of the
    entry point itself): zero points, no tests, and a message for the learner."""
    return {"score": 0.0, "execution_time": round(seconds, 2), "output": message,
            "stdout_visibility": "hidden", "tests": [],
            "extra_data": {"syncgrade": {"status": "error", "cause": "grader_fault"}}}


def layout() -> Layout:
    """Where Gradescope keeps things, for :func:`~syncgrade.platforms.entry.run_entry`."""
    return Layout(
        platform="gradescope", default_root=DEFAULT_ROOT,
        submission_dir="submission", results_file="results/results.json",
        config_files=("source/syncgrade.json",), data_json=None,
        render=to_gradescope, fallback=fallback, log_full_report=True)

