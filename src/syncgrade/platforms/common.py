"""Pieces every platform adapter shares: test names, verdict lines, the learner's stderr."""

from __future__ import annotations

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


def stderr_tail(report: GradeReport, max_lines: int = 20, max_chars: int = 2000) -> str:
    """The last lines the learner's code wrote to stderr, when it did not get full marks
    (the terminal view shows the same). Their own output, so visibility does not apply;
    empty after a grader fault, whose stderr is not the learner's business."""
    if report.status != "failed" or not report.stderr.text.strip():
        return ""
    tail = "\n".join(report.stderr.text.strip().splitlines()[-max_lines:])
    if len(tail) > max_chars:
        tail = "…" + tail[-(max_chars - 1):]
    return "Last lines your code wrote to stderr:\n" + tail


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
