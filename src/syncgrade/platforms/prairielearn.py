"""PrairieLearn: external-grader ``results.json`` from a report, and the grader entry point.

Field set (PrairieLearn ``docs/externalGrading.md``): a gradable result has ``gradable``
(true), ``score`` in [0, 1], ``message``, ``output`` and ``tests``, each test ``name``,
``points``, ``max_points``, ``message``, ``output``. An ungradable one has ``gradable``
false, ``format_errors`` (a list of strings), ``message`` and ``output``, and no score:
PrairieLearn then awards and takes no points and does not count the attempt.

Which causes are ungradable (syncgrade's choice, see docs/platforms.md):

- ``syntax_error`` and ``unreadable`` (empty, binary, not UTF-8, no Python file): nothing
  of the learner's ran, exactly PrairieLearn's "invalid, not gradable" case.
- ``grader_fault``: the grader failed, so there is no verdict to charge an attempt for;
  ``format_errors`` says it is not the learner's fault.

Every other cause (timeouts, limits, crashes, tampering) is gradable: the learner's code
ran and the checks scored what it did. Hidden and ``after_due_date`` checks are redacted
unless ``reveal=True``: PrairieLearn has no per-test visibility.

``html=True`` adds ``images`` to the tests of failing timing checks: the same pictures as
the HTML report, as SVG ``data:`` URLs (PrairieLearn's ``images``: ``label`` and ``url``).
PrairieLearn shows ``message`` and ``output`` as text, so those stay text. Every string is
cleaned of control characters (:func:`~.common.clean_tree`).

Run ``python -m syncgrade.platforms.entry prairielearn`` (or ``syncgrade-prairielearn``) as the
question's ``externalGradingOptions.entrypoint``; see :mod:`syncgrade.platforms.entry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncgrade.models import CheckResult, GradeReport
from syncgrade.platforms.common import (
    GRADER_FAULT_MESSAGE,
    Layout,
    clean_tree,
    headline,
    name_of,
    stderr_tail,
)
from syncgrade.platforms.html import check_pictures, data_url
from syncgrade.platforms.visibility import redact
from syncgrade.render import check_message, interval_text

DEFAULT_ROOT = "/grade"
UNGRADABLE = frozenset({"syntax_error", "unreadable", "grader_fault"})
IMAGES_BUDGET = 600_000
"""Characters of images one results file may carry (PrairieLearn's limit is 1 MB in all)."""


def to_prairielearn(report: GradeReport, *, reveal: bool = False,
                    source_lines: Sequence[str] | None = None,
                    html: bool = False) -> dict[str, Any]:
    """PrairieLearn's ``results.json`` for ``report`` (a pure function). ``html``: each
    failing timing check's test also carries its pictures in ``images`` (SVG ``data:``
    URLs, which ``<pl-external-grader-results>`` shows as images), within
    :data:`IMAGES_BUDGET`; the text ``message`` and ``output`` are unchanged."""
    view = report if reveal else redact(report)
    output = stderr_tail(report)
    if report.cause in UNGRADABLE:
        errors = _format_errors(view)
        message = (GRADER_FAULT_MESSAGE if report.cause == "grader_fault" else
                   "Not graded, and this attempt does not count: "
                   + errors[0].splitlines()[0])
        return clean_tree({"gradable": False, "format_errors": errors, "message": message,
                           "output": output})
    fraction = report.score / report.max_score if report.max_score > 0 else 0.0
    tests = [_test(check, source_lines) for check in view.checks]
    if html:
        _add_images(tests, view, source_lines)
    return clean_tree({
        "gradable": True,
        "score": min(1.0, max(0.0, fraction)),
        "message": headline(view),
        "output": output,
        "tests": tests,
    })


def _add_images(tests: list[dict[str, Any]], view: GradeReport,
                source_lines: Sequence[str] | None) -> None:
    """Give each failing check's test its pictures, in the report's order, while they fit
    in :data:`IMAGES_BUDGET`; one interval failing several checks is drawn once, on the
    check the report names (``same_interval_as``, see :func:`check_pictures`)."""
    left = IMAGES_BUDGET
    for test, check in zip(tests, view.checks, strict=True):
        images = []
        for label, svg in check_pictures(check, source_lines):
            url = data_url(svg)
            if len(url) <= left:
                left -= len(url)
                images.append({"label": label, "url": url})
        if images:
            test["images"] = images


def _format_errors(view: GradeReport) -> list[str]:
    if view.cause == "grader_fault":
        return [GRADER_FAULT_MESSAGE]
    runs = next((c for c in view.checks if c.id == "runs"), None)
    return [check_message(runs) if runs is not None else view.summary]


def _test(check: CheckResult, source_lines: Sequence[str] | None) -> dict[str, Any]:
    return {"name": name_of(check), "points": check.points, "max_points": check.max_points,
            "message": check_message(check), "output": interval_text(check, source_lines)}


def fallback(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The results file when no report could be made: not gradable, so the learner loses
    neither points nor an attempt."""
    return {"gradable": False, "format_errors": [message], "message": message, "output": ""}


def layout() -> Layout:
    """Where PrairieLearn keeps things, for :func:`~syncgrade.platforms.entry.run_entry`."""
    return Layout(
        platform="prairielearn", default_root=DEFAULT_ROOT,
        submission_dir="student", results_file="results/results.json",
        config_files=("tests/syncgrade.json",), data_json="data/data.json",
        render=to_prairielearn, fallback=fallback, log_full_report=False)

