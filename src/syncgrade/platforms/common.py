"""Pieces every platform adapter shares: test names, verdict lines, the learner's stderr,
and the cleaning of learner-controlled text (:func:`clean_text`, :func:`clean_name`,
:func:`clean_tree`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from syncgrade.models import CheckResult, GradeReport

VERDICTS = {"passed": "PASSED", "failed": "NOT YET", "error": "NOT GRADED"}
GRADER_FAULT_MESSAGE = ("The grader itself failed while grading this submission; this is not "
                        "your fault and says nothing about your code. Please submit again, "
                        "or tell course staff if it happens twice.")


def name_of(check: CheckResult) -> str:
    """A platform test's name: the stable check id (the public contract) and its title."""
    return f"{check.id}: {check.title}"


def headline(report: GradeReport) -> str:
    """One line for a platform's top-level message."""
    if report.cause == "grader_fault":
        return GRADER_FAULT_MESSAGE
    return (f"{VERDICTS[report.status]} · score {report.score:g}/{report.max_score:g} · "
            f"{report.summary}")


STDERR_TITLE = "Last lines your code wrote to stderr:"


def stderr_lines(report: GradeReport, max_lines: int = 20, max_chars: int = 2000) -> str:
    """The last lines the learner's code wrote to stderr, when it did not get full marks
    (the terminal view shows the same); ``""`` otherwise. Their own output, so visibility
    does not apply; empty after a grader fault, whose stderr is not the learner's
    business."""
    if report.status != "failed" or not report.stderr.text.strip():
        return ""
    tail = "\n".join(report.stderr.text.strip().splitlines()[-max_lines:])
    if len(tail) > max_chars:
        tail = "…" + tail[-(max_chars - 1):]
    return tail


def stderr_tail(report: GradeReport) -> str:
    """:func:`stderr_lines` under :data:`STDERR_TITLE`, or ``""``."""
    lines = stderr_lines(report)
    return f"{STDERR_TITLE}\n{lines}" if lines else ""


def cap(text: str, limit: int, notice: str) -> str:
    """``text`` cut to at most ``limit`` characters in all, ending with ``notice`` when
    cut."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - len(notice) - 1)
    return text[:keep] + "\n" + notice if keep else notice[:limit]


@dataclass(frozen=True)
class Layout:
    """Where one platform keeps things, relative to its root, and how it renders."""

    platform: str
    default_root: str
    submission_dir: str
    results_file: str
    config_files: tuple[str, ...]
    data_json: str | None
    render: Callable[..., dict[str, Any]]
    fallback: Callable[[str, float], dict[str, Any]]
    log_full_report: bool
    # Keys a config file may not set when it sits beside the learner's files (the
    # learner's own folder could hold one): they come from options or the environment.
    refused_in_config_files: frozenset[str] = frozenset()


# Learner-controlled text (file names, what their code printed, their quoted lines) ends up
# in platform results: C0/C1 control characters (terminal escapes, NUL, carriage returns
# that overwrite a line) and bidirectional overrides (which make text read other than it
# is stored) are dropped. Newlines and tabs are kept where text may span lines.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
                      "\ud800-\udfff]")
NAME_LIMIT = 120


def clean_text(text: str) -> str:
    """``text`` without control characters, bidirectional overrides or lone surrogates;
    newlines and tabs are kept. Idempotent."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


def clean_name(name: str, limit: int = NAME_LIMIT) -> str:
    """A learner-chosen name (a file name) fit for one line: cleaned as
    :func:`clean_text`, whitespace runs made one space, and at most ``limit`` characters
    (the middle elided with ``…``, so the extension stays). Never empty: ``"submission"``
    when nothing is left."""
    one_line = " ".join(clean_text(name).split())
    if len(one_line) > limit:
        keep = limit - 1
        one_line = one_line[:keep - keep // 2] + "…" + one_line[len(one_line) - keep // 2:]
    return one_line or "submission"


def clean_tree(value: Any) -> Any:
    """Every string in a JSON-like value (dicts, lists, strings, numbers) passed through
    :func:`clean_text`: the last step of each platform adapter, so no control character
    reaches a results file whatever field it came in by."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k) if isinstance(k, str) else k: clean_tree(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [clean_tree(v) for v in value]
    return value
