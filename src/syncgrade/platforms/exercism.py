"""Exercism test-runner ``results.json`` (interface version 3) from a report.

Field set (exercism/docs ``building/tooling/test-runners/interface.md``): ``version`` 3,
``status`` ``pass``/``fail``/``error``, ``message`` (set for ``error``, ``null``
otherwise), ``tests`` in rubric order (Exercism shows the first failure, and ``runs`` comes
first), each ``name``, ``status`` (``pass``/``fail``/``error``), ``message``, ``output``,
``test_code`` and ``task_id``.

- ``status`` is ``error`` exactly when no check ran on the learner's code: a syntax error,
  an unreadable file, or a grader fault (whose message says it is not the learner's
  fault). Then every test is ``error`` too. Timeouts, limits, crashes and tampering are
  ``fail``: the ``runs`` test carries what happened and on which line.
- A test's ``message`` is the check's message, hint and timeline; a skipped check is an
  ``error`` test ("Not checked: ...").
- ``output`` is for what the learner printed, never the runner's own text: their stdout
  from the grading run goes on the ``runs`` test, capped at Exercism's 500 characters with
  its notice. Other tests have ``output: null``.
- ``test_code`` (required from version 2): what the check asks, from the public contract
  only (the learner-safe hint of :mod:`.visibility`): a check is not code the learner
  could run, and this never depends on what the check saw.
- ``task_id`` is 1: every syncgrade exercise has a single task ("Your task").
- The top-level ``message`` is capped at 65535 characters (exercism.org's limit).

Hidden and ``after_due_date`` checks are redacted unless ``reveal=True``. Text only (the
Exercism UI shows no HTML), cleaned of control characters (:func:`~.common.clean_tree`).

``python -m syncgrade.platforms.entry exercism SLUG INPUT_DIR OUTPUT_DIR`` (console
script ``syncgrade-exercism``, and ``bin/run.sh``) is the test runner; see
:mod:`syncgrade.platforms.entry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncgrade.models import CheckResult, GradeReport
from syncgrade.platforms.common import (
    GRADER_FAULT_MESSAGE,
    Layout,
    cap,
    clean_tree,
    name_of,
)
from syncgrade.platforms.visibility import redact, safe_hint
from syncgrade.render import check_detail, check_message

VERSION = 3
OUTPUT_LIMIT = 500
OUTPUT_NOTICE = "Output was truncated. Please limit to 500 chars"
MESSAGE_LIMIT = 65535
NO_TESTS_RAN = frozenset({"syntax_error", "unreadable", "grader_fault"})
TASK_ID = 1


def to_exercism(report: GradeReport, *, reveal: bool = False,
                source_lines: Sequence[str] | None = None, html: bool = False) -> dict[str, Any]:
    """Exercism's v3 ``results.json`` for ``report`` (a pure function). ``html`` is
    accepted for a uniform adapter signature and ignored: Exercism shows text."""
    view = report if reveal else redact(report)
    error = report.cause in NO_TESTS_RAN
    status = "error" if error else ("pass" if report.status == "passed" else "fail")
    message: str | None = None
    if error:
        message = cap(_error_message(view), MESSAGE_LIMIT, "(message truncated)")
    stdout = report.stdout.text.strip()
    tests = [_test(check, error, stdout if check.id == "runs" else "", source_lines)
             for check in view.checks]
    return clean_tree({"version": VERSION, "status": status, "message": message,
                       "tests": tests})


def _error_message(view: GradeReport) -> str:
    if view.cause == "grader_fault":
        return GRADER_FAULT_MESSAGE
    runs = next((c for c in view.checks if c.id == "runs"), None)
    return check_message(runs) if runs is not None else view.summary


def _test(check: CheckResult, error: bool, stdout: str,
          source_lines: Sequence[str] | None) -> dict[str, Any]:
    if error or check.status == "skipped":
        status = "error"
    else:
        status = "pass" if check.status == "passed" else "fail"
    return {"name": name_of(check), "status": status,
            "message": check_detail(check, source_lines),
            "output": cap(stdout, OUTPUT_LIMIT, OUTPUT_NOTICE) if stdout else None,
            "test_code": test_code(check), "task_id": TASK_ID}


def test_code(check: CheckResult) -> str:
    """What ``check`` asks, as Exercism's ``test_code``: its id, title and points and the
    public contract's words for it; the same whatever the check saw."""
    return (f"# syncgrade check {check.id}: {check.title} ({check.max_points:g} "
            f"point{'s' if check.max_points != 1 else ''})\n# {safe_hint(check.id)}")


def fallback(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The results file when no report could be made."""
    return {"version": VERSION, "status": "error",
            "message": cap(message, MESSAGE_LIMIT, "(message truncated)"), "tests": []}


def layout() -> Layout:
    """Where the Exercism test runner keeps things: the root is ``INPUT_DIR`` (the
    solution, read-only), the results go to ``OUTPUT_DIR/results.json`` (the entry point's
    ``--output``); configuration in ``INPUT_DIR/.meta/syncgrade.json``, which may not
    set ``reveal`` or ``course``: INPUT_DIR is the learner's solution folder."""
    return Layout(
        platform="exercism", default_root="/solution",
        submission_dir=".", results_file="results.json",
        config_files=(".meta/syncgrade.json",), data_json=None,
        render=to_exercism, fallback=fallback, log_full_report=False,
        refused_in_config_files=frozenset({"reveal", "course"}))
