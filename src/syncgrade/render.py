"""Terminal view of a :class:`GradeReport`: verdict, one line per check, and for each
failed timing check the learner's interval drawn from their own lines.

A leaf: it reads the report (and, when given, the submission's source lines to quote the
learner's code) and returns text. Colour only when asked for; the CLI decides.

Every line fits the terminal's width (``width``, default the terminal's, never under
:data:`MIN_WIDTH`): messages and hints wrap with the indentation of their block, the
learner's code in a timeline is shortened with "…". When several checks fail for one
mistake, the report itself says which check leads and in what order they come
(:mod:`syncgrade.grading.present`); this view shows that, deciding nothing again.
"""

from __future__ import annotations

import os
import re
import shutil
import textwrap
from collections.abc import Sequence
from typing import TextIO

from syncgrade.models import CheckResult, GradeReport, Timeline, quoted_line
from syncgrade.picture.html import seconds_words, stdout_excerpt

MARKS = {"passed": "✓", "failed": "✗", "skipped": "-"}
COLOURS = {"passed": "32", "failed": "31", "skipped": "33", "error": "31", "dim": "2"}
MIN_WIDTH = 40
"""The narrowest layout drawn: a narrower terminal gets lines of this width."""
DEFAULT_WIDTH = 80
"""The width when there is no terminal to ask (a pipe, a file) and ``COLUMNS`` is unset."""
MESSAGE_MIN = 40
"""Columns a message needs beside the check's id; with fewer it goes below the id."""
TIMELINE_MIN = 56
"""Columns a timeline needs at the message column; with fewer it is drawn further left."""
NARROW_INDENT = 4
WHAT_WIDTH = 12

def use_colour(stream: TextIO) -> bool:
    """Colour for a terminal, unless NO_COLOR is set (https://no-color.org)."""
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def terminal_width(width: int | None = None) -> int:
    """``width``, or the terminal's columns (``COLUMNS``, else the terminal, else
    :data:`DEFAULT_WIDTH`); never under :data:`MIN_WIDTH`."""
    if width is None:
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH
    return max(MIN_WIDTH, width)


class _Paint:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{COLOURS[style]}m{text}\x1b[0m"


_KEPT_TOGETHER = re.compile(
    r"(\d) (ms|s|µs|ns|%)\b|\b(line|lines|[Ii]nterval|[Ss]ample) (\d)|`[^`\n]+`")
"""Spaces a line never breaks at: "50 ms", "line 31", "interval 2", and inside a short
piece of code in backticks (```out = fn(*args)```). Every piece of code is matched, in
order, so that a long one's closing backtick never opens another."""
CODE_KEPT = 32
"""The longest piece of code kept on one line; a longer one breaks at its spaces only."""
_GLUE = "\u00a0"


def _glued(match: re.Match[str]) -> str:
    text = match.group(0)
    if text.startswith("`") and len(text) > CODE_KEPT + 2:
        return text
    return text.replace(" ", _GLUE)


def _wrap(text: str, width: int, indent: str = "", hanging: str = "") -> list[str]:
    """``text`` wrapped to ``width`` columns: the first line at ``indent``, the others at
    ``indent + hanging``. Lines break between words only (hyphenated check ids, a number
    and its unit, "line 12" and short code kept whole), so code can be copied; only a
    word longer than the whole line is cut (:func:`fits` says whether one is)."""
    glued = _KEPT_TOGETHER.sub(_glued, text.replace(_GLUE, " "))
    lines = textwrap.wrap(glued, width=width, initial_indent=indent,
                          subsequent_indent=indent + hanging, break_on_hyphens=False,
                          break_long_words=not _fits(glued, width - len(indent + hanging)))
    return [line.replace(_GLUE, " ") for line in lines] or [indent.rstrip()]


def _fits(glued: str, room: int) -> bool:
    return all(len(word) <= room for word in glued.split())


def fits(text: str, width: int, indent: str = "", hanging: str = "") -> bool:
    """Whether :func:`_wrap` can lay ``text`` out at ``indent`` without cutting a word."""
    return _fits(_KEPT_TOGETHER.sub(_glued, text.replace(_GLUE, " ")),
                 width - len(indent + hanging))


def render(report: GradeReport, source_lines: Sequence[str] | None = None,
           colour: bool = False, width: int | None = None, *, warm: bool = False) -> str:
    """The report as terminal text, no line longer than :func:`terminal_width` of
    ``width``, the checks in the report's order; ``warm``: graded by the grader daemon
    (:func:`~syncgrade.picture.html.seconds_words`)."""
    paint = _Paint(colour)
    width = terminal_width(width)
    out = [*_wrap(f"{report.exercise} · {report.title}", width),
           *_wrap(report.submission, width), *_device_lines(report, width), ""]
    label_width = max((len(_label(c)) for c in report.checks), default=10)
    for check in report.checks:
        out.extend(_check_lines(check, label_width, paint, source_lines, width=width))
    out.append("")
    out.extend(_verdict_lines(report, paint, width, warm))
    return "\n".join(out) + "\n"


def _device_lines(report: GradeReport, width: int) -> list[str]:
    words = device_words(report)
    return _wrap(words, width) if words else []


def device_words(report: GradeReport) -> str:
    """Where the code ran, for an accelerator ("graded on tpu (TPU v5 lite)"); empty on
    the CPU, the default (its reports stay as they were)."""
    prov = report.provenance
    if not prov.backend or prov.backend == "cpu":
        return ""
    return f"graded on {prov.backend} ({prov.device or 'device'})"


def _verdict_lines(report: GradeReport, paint: _Paint, width: int,
                   warm: bool = False) -> list[str]:
    verdict = {"passed": "PASSED", "failed": "NOT YET", "error": "ERROR"}[report.status]
    lines = _wrap(f"{verdict}  score {report.score:g}/{report.max_score:g}  ·  "
                  f"{report.summary}  ({seconds_words(report, warm=warm)})", width)
    lines[0] = paint(verdict, report.status) + lines[0][len(verdict):]
    printed, cut = stdout_excerpt(report)
    if printed:
        lines.extend(paint(line, "dim") for line in _wrap(
            "What your code printed" + (" (truncated):" if cut else ":"), width))
        for line in printed.splitlines():
            lines.extend(_sliced(line.rstrip(), width, "  ", "    "))
        if cut:
            lines.append("  …")
    if report.grading.internal_error:
        lines.extend(paint(line, "error")
                     for line in _wrap(report.grading.internal_error, width))
    if report.status != "passed" and report.stderr.text.strip():
        tail = report.stderr.text.strip().splitlines()[-6:]
        lines.extend(paint(line, "dim")
                     for line in _wrap("Last lines your code wrote to stderr:", width))
        for line in tail:
            lines.extend(_sliced(line.rstrip(), width, "  ", "    "))
    return lines


def _sliced(text: str, width: int, indent: str, hanging: str) -> list[str]:
    """``text`` as it is (its spaces kept: a traceback's indentation means something), in
    pieces that fit ``width``: the first after ``indent``, the others after ``hanging``.
    A piece ends at a space (dropped there) when one is in reach after the text's own
    indentation, so no word breaks (``INVALID_ARGUMENT`` stays whole); only a word longer
    than a line is cut."""
    lines, prefix = [], indent
    lead = len(text) - len(text.lstrip(" "))
    while True:
        room = max(1, width - len(prefix))
        if len(text) <= room:
            lines.append(prefix + text)
            return lines
        space = text.rfind(" ", lead + 1, room + 1)
        if space > lead:
            piece, text = text[:space], text[space + 1:]
        else:
            piece, text = text[:room], text[room:]
        lines.append(prefix + piece.rstrip())
        prefix, lead = hanging, 0
        if not text:
            return lines


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


def same_interval_words(drawer: str) -> str:
    """What a check says in place of an interval ``drawer`` (shown above) draws."""
    return f"What your timer measured: the same interval as under `{drawer}` above."


def timeline_text(check: CheckResult, source_lines: Sequence[str] | None = None) -> str:
    """For a failed check with a timeline, the learner's interval drawn from their own
    lines as plain text; otherwise empty."""
    if check.status != "failed" or check.evidence.timeline is None:
        return ""
    return "\n".join(_timeline_lines(check.evidence.timeline, "", _Paint(False),
                                     source_lines))


def check_detail(check: CheckResult, source_lines: Sequence[str] | None = None) -> str:
    """One check as plain text for a platform's per-test output: the message, then for a
    failure the hint and the learner's interval (no colour, no id line)."""
    timeline = interval_text(check, source_lines)
    return check_message(check) + ("\n" + timeline if timeline else "")


def interval_text(check: CheckResult, source_lines: Sequence[str] | None = None) -> str:
    """:func:`timeline_text`, or for a check whose interval an earlier one draws
    (``same_interval_as``), the words that refer to it."""
    timeline = timeline_text(check, source_lines)
    if timeline and check.same_interval_as:
        return same_interval_words(check.same_interval_as)
    return timeline


# --------------------------------------------------------------------------- leads


def leads(report: GradeReport) -> dict[str, list[str]]:
    """For each failed check that fails only because of others, their ids: the report's
    own decision (``CheckResult.follows``, made once by
    :mod:`syncgrade.grading.present`), read here, never made again."""
    return {c.id: list(c.follows) for c in report.checks if c.follows}


# --------------------------------------------------------------------------- one check


def _check_lines(check: CheckResult, label_width: int, paint: _Paint,
                 source_lines: Sequence[str] | None, *, width: int = DEFAULT_WIDTH) -> list[str]:
    """The check's line, and for a failure its hint and timeline, within ``width``. A
    timeline an earlier check draws (``same_interval_as``) is referred to, not drawn again:
    one stub's interval often fails several checks."""
    mark = paint(MARKS[check.status], check.status)
    label = _label(check)
    points = f"{check.points:g}/{check.max_points:g}"
    column = label_width + 13  # "  ✓ " + label + "  " + points + "  "
    if width - column >= MESSAGE_MIN:
        indent = " " * column
        lines = _wrap(check.message, width, indent)
        lines[0] = f"  {mark} {label:<{label_width}}  {points:>5}  " + lines[0][column:]
    else:
        indent = " " * NARROW_INDENT
        head = _wrap(f"{label:<{min(label_width, width - 11)}}  {points}", width - 4,
                     hanging="  ")
        lines = [f"  {mark} {head[0]}", *(f"    {line}" for line in head[1:])]
        lines.extend(_wrap(check.message, width, indent))
    if check.status != "failed":
        return lines
    if check.hint:
        hint = "→ " + check.hint
        # Code in a hint is copied: where a piece of it is too long for the message
        # column, the hint takes the narrow column rather than cut a word.
        room = indent if fits(hint, width, indent, "  ") else " " * NARROW_INDENT
        lines.extend(_wrap(hint, width, room, "  "))
    timeline = check.evidence.timeline
    if timeline is None:
        return lines
    if check.same_interval_as:
        lines.extend(paint(line, "dim") for line in _wrap(
            same_interval_words(check.same_interval_as), width, indent))
        return lines
    if width - len(indent) < TIMELINE_MIN:
        indent = " " * min(len(indent), NARROW_INDENT)
    lines.extend(_timeline_lines(timeline, indent, paint, source_lines, width))
    return lines


def _timeline_lines(timeline: Timeline, indent: str, paint: _Paint,
                    source_lines: Sequence[str] | None, width: int | None = None) -> list[str]:
    """The interval, one event a line: its line number, what happened, the learner's code
    (shortened with "…" to fit ``width``) and the note, beside the code when it fits,
    else below it. ``width=None``: no limit (the code is still shortened to
    :data:`~syncgrade.picture.text.CODE_WIDTH`)."""
    seconds = f", measured {timeline.seconds * 1e3:.3f} ms" if timeline.seconds else ""
    head = f"What your timer measured ({timeline.file}{seconds}):"
    limit = width if width is not None else 10**6
    lines = [paint(line, "dim") for line in (_wrap(head, limit, indent, "  ")
                                             if width is not None else [indent + head])]
    rows = []
    what_width = WHAT_WIDTH
    if width is not None:  # as wide as the longest `what`, when the code keeps 16 columns
        longest = max((len(entry.what) for entry in timeline.entries), default=0)
        if limit - len(indent) - 13 - longest >= 16:
            what_width = max(WHAT_WIDTH, longest)
    for entry in timeline.entries:
        where = f"line {entry.line:<4}" if entry.line else " " * 9
        what = entry.what
        if width is not None and limit - len(indent) - 13 - len(what) < 8:
            what = _cut(what, WHAT_WIDTH)
        prefix = f"{indent}  {where} {what:<{what_width}} "
        code = _code(entry.line, source_lines, min(CODE_WIDTH, limit - len(prefix)))
        rows.append((prefix, code, entry.note))
    code_width = max((len(code) for _, code, _ in rows), default=0)
    under = " " * (len(indent) + 12)
    for prefix, code, note in rows:
        row = prefix + (f"{code:<{code_width}}" if len(prefix) + code_width <= limit
                        else code)
        beside = f"  ← {note}" if note else ""
        if not note or len(row) + len(beside) <= limit:
            lines.append((row + beside).rstrip())
            continue
        lines.append(row.rstrip())
        lines.extend(_wrap("← " + note, limit, under, "  "))
    return lines


CODE_WIDTH = 44
"""The longest quote of a learner's line in a timeline, however wide the terminal."""


def _cut(text: str, width: int) -> str:
    """``text`` shortened to ``width`` columns with "…" (at least one character kept)."""
    width = max(width, 2)
    return text if len(text) <= width else text[:width - 1] + "…"


def _code(line: int | None, source_lines: Sequence[str] | None,
          width: int = CODE_WIDTH) -> str:
    """The learner's own source line (inert), shortened to ``width``, when we have it."""
    return _cut(quoted_line(source_lines, line), width)
