"""Terminal view of a :class:`GradeReport`: verdict, one line per check, and for each
failed timing check the learner's interval drawn from their own lines.

A leaf: it reads the report (and, when given, the submission's source lines to quote the
learner's code) and returns text. Colour only when asked for; the CLI decides.
"""

from __future__ import annotations

import os
import textwrap
from typing import TextIO

from syncgrade.models import CheckResult, GradeReport, Timeline

MARKS = {"passed": "✓", "failed": "✗", "skipped": "-"}
COLOURS = {"passed": "32", "failed": "31", "skipped": "33", "error": "31", "dim": "2"}


def use_colour(stream: TextIO) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (https://no-color.org)."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


class _Paint:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled:
            return text
        return f"\x1b[{COLOURS[style]}m{text}\x1b[0m"


def render(report: GradeReport, source_lines: list[str] | None = None,
           colour: bool = False) -> str:
    paint = _Paint(colour)
    out = [f"{report.exercise} · {report.title}", f"{report.submission}", ""]
    width = max((len(_label(c)) for c in report.checks), default=10)
    shown: dict[str, str] = {}  # each timeline drawn once: its key -> the check that drew it
    for check in report.checks:
        out.extend(_check_lines(check, width, paint, source_lines, shown))
    out.append("")
    verdict = {"passed": "PASSED", "failed": "NOT YET", "error": "ERROR"}[report.status]
    out.append(
        f"{paint(verdict, report.status)}  score {report.score:g}/{report.max_score:g}"
        f"  ·  {report.summary}  ({report.grading.seconds:.1f} s)"
    )
    if report.grading.internal_error:
        out.append(paint(report.grading.internal_error, "error"))
    if report.status != "passed" and report.stderr.text.strip():
        tail = report.stderr.text.strip().splitlines()[-6:]
        out.append(paint("Last lines your code wrote to stderr:", "dim"))
        out.extend("  " + line for line in tail)
    return "\n".join(out) + "\n"


def _label(check: CheckResult) -> str:
    """The check's id, tagged when learners see only its verdict (see
    :mod:`syncgrade.platforms.visibility`), so an instructor's ``--reveal`` view shows which
    details learners do not get."""
    return check.id if check.visibility == "visible" else f"{check.id} ({check.visibility})"


def check_message(check: CheckResult) -> str:
    """A check's message and, for a failure, its hint, as plain text."""
    if check.status == "failed" and check.hint:
        return f"{check.message}\n→ {check.hint}"
    return check.message


def timeline_text(check: CheckResult, source_lines: list[str] | None = None) -> str:
    """For a failed check with a timeline, the learner's interval drawn from their own
    lines as plain text; otherwise empty."""
    if check.status != "failed" or check.evidence.timeline is None:
        return ""
    return "\n".join(_timeline_lines(check.evidence.timeline, "", _Paint(False),
                                     source_lines))


def check_detail(check: CheckResult, source_lines: list[str] | None = None) -> str:
    """One check as plain text for a platform's per-test output: the message, then for a
    failure the hint and the learner's interval (no colour, no id line)."""
    timeline = timeline_text(check, source_lines)
    return check_message(check) + ("\n" + timeline if timeline else "")


def _check_lines(check: CheckResult, width: int, paint: _Paint,
                 source_lines: list[str] | None, shown: dict[str, str] | None = None) -> list[str]:
    """The check's line, and for a failure its hint and timeline. A timeline already drawn
    for an earlier check (``shown``, updated here) is referred to, not drawn again: one
    stub's interval often fails several checks."""
    mark = paint(MARKS[check.status], check.status)
    points = f"{check.points:g}/{check.max_points:g}"
    lines = [f"  {mark} {_label(check):<{width}}  {points:>5}  {check.message}"]
    if check.status == "failed":
        indent = " " * (width + 12)
        if check.hint:
            lines.extend(textwrap.wrap("→ " + check.hint, 96, initial_indent=indent,
                                       subsequent_indent=indent + "  "))
        timeline = check.evidence.timeline
        if timeline is not None:
            key = timeline.model_dump_json()
            if shown is not None and key in shown:
                lines.append(indent + paint(
                    f"What your timer measured: the same interval as under `{shown[key]}` "
                    "above.", "dim"))
            else:
                if shown is not None:
                    shown[key] = check.id
                lines.extend(_timeline_lines(timeline, indent, paint, source_lines))
    return lines


def _timeline_lines(timeline: Timeline, indent: str, paint: _Paint,
                    source_lines: list[str] | None) -> list[str]:
    seconds = f", measured {timeline.seconds * 1e3:.3f} ms" if timeline.seconds else ""
    lines = [indent + paint(f"What your timer measured ({timeline.file}{seconds}):", "dim")]
    codes = [_code(entry.line, source_lines) for entry in timeline.entries]
    code_width = max((len(c) for c in codes), default=0)
    for entry, code in zip(timeline.entries, codes, strict=True):
        where = f"line {entry.line:<4}" if entry.line else " " * 9
        row = f"{indent}  {where} {entry.what:<12} {code:<{code_width}}"
        if entry.note:
            row += "  ← " + entry.note
        lines.append(row.rstrip())
    return lines


def _code(line: int | None, source_lines: list[str] | None) -> str:
    """The learner's own source line, shortened, when we have it."""
    if not line or not source_lines or not 0 < line <= len(source_lines):
        return ""
    text = source_lines[line - 1].strip()
    return text if len(text) <= 44 else text[:43] + "…"
