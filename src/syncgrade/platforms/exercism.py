"""Exercism test-runner ``results.json`` (interface version 3) from a report.

Field set (exercism/docs ``building/tooling/test-runners/interface.md``): ``version`` 3,
``status`` ``pass``/``fail``/``error``, ``message`` (set for ``error``, ``null``
otherwise), ``tests`` in rubric order (Exercism shows the first failure, and ``runs`` comes
first), each ``name``, ``status`` (``pass``/``fail``/``error``), ``message``, ``output`` and
``task_id``.

- ``status`` is ``error`` exactly when no check ran on the learner's code: a syntax error,
  an unreadable file, or a grader fault (whose message says it is not the learner's
  fault). Then every test is ``error`` too. Timeouts, limits, crashes and tampering are
  ``fail``: the ``runs`` test carries what happened and on which line.
- A test's ``message`` is the check's message, hint and timeline; a skipped check is an
  ``error`` test ("Not checked: ...").
- ``output`` is for what the learner printed, never the runner's own text: their stdout
  from the grading run goes on the ``runs`` test, capped at Exercism's 500 characters with
  its notice. Other tests have ``output: null``.
- ``task_id`` is 1: every syncgrade exercise has a single task ("Your task").
- The top-level ``message`` is capped at 65535 characters (exercism.org's limit).

Hidden and ``after_due_date`` checks are redacted unless ``reveal=True``.
"""

from __future__ import annotations

from typing import Any

from syncgrade.models import CheckResult, GradeReport
from syncgrade.platforms.common import GRADER_FAULT_MESSAGE, cap, name_of
from syncgrade.platforms.visibility import redact
from syncgrade.render import check_detail, check_message

VERSION = 3
OUTPUT_LIMIT = 500
OUTPUT_NOTICE = "Output was truncated. Please limit to 500 chars"
MESSAGE_LIMIT = 65535
NO_TESTS_RAN = frozenset({"syntax_error", "unreadable", "grader_fault"})
TASK_ID = 1


def to_exercism(report: GradeReport, *, reveal: bool = False,
                source_lines: list[str] | None = None) -> dict[str, Any]:
    """Exercism's v3 ``results.json`` for ``report`` (a pure function)."""
    view = report if reveal else redact(report)
    error = report.cause in NO_TESTS_RAN
    status = "error" if error else ("pass" if report.status == "passed" else "fail")
    message: str | None = None
    if error:
        message = cap(_error_message(view), MESSAGE_LIMIT, "(message truncated)")
    stdout = report.stdout.text.strip()
    tests = [_test(check, error, stdout if check.id == "runs" else "", source_lines)
             for check in view.checks]
    return {"version": VERSION, "status": status, "message": message, "tests": tests}


def _error_message(view: GradeReport) -> str:
    if view.cause == "grader_fault":
        return GRADER_FAULT_MESSAGE
    runs = next((c for c in view.checks if c.id == "runs"), None)
    return check_message(runs) if runs is not None else view.summary


def _test(check: CheckResult, error: bool, stdout: str,
          source_lines: list[str] | None) -> dict[str, Any]:
    if error or check.status == "skipped":
        status = "error"
    else:
        status = "pass" if check.status == "passed" else "fail"
    return {"name": name_of(check), "status": status,
            "message": check_detail(check, source_lines),
            "output": cap(stdout, OUTPUT_LIMIT, OUTPUT_NOTICE) if stdout else None,
            "task_id": TASK_ID}


def fallback(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The results file when no report could be made."""
    return {"version": VERSION, "status": "error",
            "message": cap(message, MESSAGE_LIMIT, "(message truncated)"), "tests": []}
