"""Gradescope: ``results.json`` from a report, and the ``run_autograder`` entry point.

Field set (Gradescope autograder spec, ``docs/specs.md`` of gradescope/autograder_samples):
top level ``score``, ``execution_time``, ``output``, ``stdout_visibility``, ``tests``,
``extra_data``, and when they apply ``visibility`` and ``output_format``; each test
``name``, ``score``, ``max_score``, ``status`` (``passed``/``failed``), ``output``,
``visibility``, and with ``html=True`` ``output_format``.

Visibility, learner view (the default):

- ``visible`` check: a ``visible`` test with the full message, hint and timeline.
- ``hidden`` check: a ``visible`` test with the verdict, points and a learner-safe hint
  only. Not Gradescope's ``hidden``: that one is meant for tests that carry no points and
  would take the check's points out of what the learner sees.
- ``after_due_date`` check: Gradescope's own ``after_due_date`` test, in full: Gradescope
  withholds it until the deadline (and, while any such test is withheld, the learner's
  total) and then shows everything. The top-level ``output`` has no visibility of its
  own, so while such tests exist it names only the checks shown now, with their points,
  never the total or a withheld check's verdict (:func:`before_due_headline`); the
  top-level ``visibility`` is then ``after_due_date`` too (a default every test overrides
  with its own).

``html=True``: every ``output`` is HTML (``output_format: "html"`` on the top level and on
each test): the message and hint as paragraphs, and for a failing timing check its picture
(an inline SVG from :mod:`syncgrade.picture`) above the same interval as text. Off by
default: the text outputs are what existing courses show.

Every string is cleaned of control characters (:func:`~.common.clean_tree`): file names and
quoted lines are the learner's.

With ``reveal=True`` nothing is redacted and each check's visibility is passed through as
is (``hidden`` then means Gradescope's instructor-only test): for staff runs.

A grader fault scores 0 with no tests and an output that says it is not the learner's
fault; ``extra_data.syncgrade`` carries ``status`` and ``cause`` so staff can find those
submissions and regrade them.

Run ``python -m syncgrade.platforms.entry gradescope`` (or ``syncgrade-gradescope``) as
the body of ``run_autograder``; see :mod:`syncgrade.platforms.entry` and docs/platforms.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncgrade.models import CheckResult, GradeReport, Visibility
from syncgrade.platforms.common import (
    STDERR_TITLE,
    VERDICTS,
    Layout,
    clean_tree,
    headline,
    name_of,
    stderr_lines,
)
from syncgrade.platforms.html import check_html, paragraphs, preformatted
from syncgrade.platforms.visibility import redact
from syncgrade.render import check_detail

DEFAULT_ROOT = "/autograder"
HIDDEN_ONLY: frozenset[Visibility] = frozenset({"hidden"})
LATER: Visibility = "after_due_date"


def to_gradescope(report: GradeReport, *, reveal: bool = False,
                  source_lines: Sequence[str] | None = None, html: bool = False) -> dict[str, Any]:
    """Gradescope's ``results.json`` for ``report`` (a pure function; see the module
    docstring for the visibility mapping). ``source_lines``, when given, lets each timeline
    quote the learner's own lines. ``html``: every ``output`` is HTML
    (``output_format: "html"``), each failing timing check with its picture."""
    # after_due_date stays in full: Gradescope itself withholds those tests until the
    # deadline. The top-level output is always shown, so it uses the fully redacted view
    # and, while such tests are withheld, speaks of the visible checks only.
    view = report if reveal else redact(report, redacted=HIDDEN_ONLY)
    safe = report if reveal else redact(report)
    fault = report.cause == "grader_fault"
    later = [] if reveal or fault else [c for c in report.checks if c.visibility == LATER]
    tests: list[dict[str, Any]] = []
    if not fault:
        tests = [_test(check, reveal, source_lines, html) for check in view.checks]
    line = before_due_headline(safe) if later else gradescope_headline(safe)
    # While checks are withheld, the learner's stderr shows (as it does for any failed
    # report) only when a shown check failed: its presence must not tell that a withheld
    # one did.
    shown_failed = any(c.status != "passed" for c in safe.checks if c.visibility != LATER)
    lines = stderr_lines(report) if not later or shown_failed else ""
    if html:
        output = paragraphs(line) + (paragraphs(STDERR_TITLE) + preformatted(lines)
                                     if lines else "")
    else:
        output = line + (f"\n\n{STDERR_TITLE}\n{lines}" if lines else "")
    results: dict[str, Any] = {
        "score": report.score if not fault else 0.0,
        "execution_time": round(report.grading.seconds, 2),
        "output": output,
        # run_autograder's stdout carries the instructor's full view (see entry.py).
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"syncgrade": _extra(report)},
    }
    if later:
        # The tests' own visibility wins over this default (each test sets its own); it
        # states that this submission's results are complete only after the due date.
        results["visibility"] = LATER
    if html:
        results["output_format"] = "html"
    return clean_tree(results)


def gradescope_headline(view: GradeReport) -> str:
    """The top-level line: :func:`headline`, unless some checks did not run. Gradescope
    has no "not run" test, so each of them is a red test; the line then says so rather
    than count only the failed checks ("1 check(s) failed" above nine red tests after a
    syntax error). A syntax error is told by the ``runs`` message (what and which line)."""
    skipped = sum(c.status == "skipped" for c in view.checks)
    if not skipped or view.cause == "grader_fault":
        return headline(view)
    runs = next((c for c in view.checks if c.id == "runs" and c.status == "failed"), None)
    what = runs.message if runs is not None and view.cause == "syntax_error" else view.summary
    others = "1 other check" if skipped == 1 else f"{skipped} other checks"
    return (f"{VERDICTS[view.status]} · score {view.score:g}/{view.max_score:g} · "
            f"{what.rstrip('.')}. {others} could not run (shown as failed).")


def before_due_headline(view: GradeReport) -> str:
    """The top-level line while ``after_due_date`` checks are withheld: the verdict and
    points of the checks shown now, and how many are shown after the due date. Never the
    total, nor whether a withheld check passed (Gradescope withholds the total itself)."""
    shown = [c for c in view.checks if c.visibility != LATER]
    withheld = [c for c in view.checks if c.visibility == LATER]
    failed = [c.id for c in shown if c.status != "passed"]
    points = sum(c.points for c in shown)
    most = sum(c.max_points for c in shown)
    verdict = "NOT YET" if failed else "PASSED SO FAR"
    line = f"{verdict} · checks shown now: {points:g}/{most:g} points"
    if failed:
        line += f"; not yet passed: {', '.join(failed)}"
    later_points = sum(c.max_points for c in withheld)
    some = "1 more check" if len(withheld) == 1 else f"{len(withheld)} more checks"
    return (f"{line}. {some} ({later_points:g} point{'' if later_points == 1 else 's'}) "
            f"{'is' if len(withheld) == 1 else 'are'} shown after the due date, with your "
            "total score.")


def _test(check: CheckResult, reveal: bool, source_lines: Sequence[str] | None,
          html: bool) -> dict[str, Any]:
    visibility: Visibility = check.visibility
    if not reveal:
        visibility = LATER if check.visibility == LATER else "visible"
    test: dict[str, Any] = {
        "name": name_of(check),
        "score": check.points,
        "max_score": check.max_points,
        "status": "passed" if check.status == "passed" else "failed",
        "output": (check_html(check, source_lines) if html
                   else check_detail(check, source_lines)),
        "visibility": visibility,
    }
    if html:
        test["output_format"] = "html"
    return test


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

