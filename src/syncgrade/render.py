"""Terminal view of a :class:`GradeReport`: verdict, one line per check, and for each
failed timing check the learner's interval drawn from their own lines.

A leaf: it reads the report (and, when given, the submission's source lines to quote the
learner's code) and returns text. Colour only when asked for; the CLI decides.

Every line fits the terminal's width (``width``, default the terminal's, never under
:data:`MIN_WIDTH`): messages and hints wrap with the indentation of their block, the
learner's code in a timeline is shortened with "…". When several checks fail for one
mistake (:func:`leads`), the check that names the mistake leads and the others follow it,
saying so instead of repeating or contradicting its advice.
"""

from __future__ import annotations

import os
import re
import shutil
import textwrap
from collections.abc import Iterable, Sequence
from typing import TextIO

from syncgrade.models import CheckResult, GradeReport, Timeline

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

FLAW = "flaw"
"""Evidence fact: what a failed check saw, in the measurement contract's words (e.g.
``compilation``, ``no output wait``); see :func:`leads`."""
FOLLOWS = "follows"
"""Evidence fact: the flaws that explain a failed check, ``;`` between those it needs
all of, ``|`` between alternatives (e.g. ``compilation|warm-up not waited``)."""
AT_LINE = "at_line"
"""Evidence fact: the learner's line of the timer start of the interval the flaw is in."""


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
    r"(\d) (ms|s|µs|ns|%)\b|\b(line|lines|[Ii]nterval|[Ss]ample) (\d)|`[^`\n]{1,32}`")
"""Spaces a line never breaks at: "50 ms", "line 31", "interval 2", and inside a short
piece of code in backticks (```out = fn(*args)```)."""
_GLUE = "\u00a0"


def _glued(match: re.Match[str]) -> str:
    return match.group(0).replace(" ", _GLUE)


def _wrap(text: str, width: int, indent: str = "", hanging: str = "") -> list[str]:
    """``text`` wrapped to ``width`` columns: the first line at ``indent``, the others at
    ``indent + hanging``. A word longer than a line is cut; hyphenated check ids, a number
    and its unit, and "line 12" are kept whole."""
    glued = _KEPT_TOGETHER.sub(_glued, text.replace(_GLUE, " "))
    lines = textwrap.wrap(glued, width=width, initial_indent=indent,
                          subsequent_indent=indent + hanging, break_on_hyphens=False)
    return [line.replace(_GLUE, " ") for line in lines] or [indent.rstrip()]


def render(report: GradeReport, source_lines: list[str] | None = None,
           colour: bool = False, width: int | None = None) -> str:
    """The report as terminal text, no line longer than :func:`terminal_width` of
    ``width``. Checks are in report order, except that a check failing because of another
    (:func:`leads`) comes right after it."""
    paint = _Paint(colour)
    width = terminal_width(width)
    out = [*_wrap(f"{report.exercise} · {report.title}", width),
           *_wrap(report.submission, width), ""]
    label_width = max((len(_label(c)) for c in report.checks), default=10)
    shown: dict[str, str] = {}  # each timeline drawn once: its key -> the check that drew it
    because = leads(report)
    for check in _in_order(report.checks, because):
        out.extend(_check_lines(check, label_width, paint, source_lines, shown,
                                width=width, because=because.get(check.id, [])))
    out.append("")
    out.extend(_verdict_lines(report, paint, width))
    return "\n".join(out) + "\n"


def _verdict_lines(report: GradeReport, paint: _Paint, width: int) -> list[str]:
    verdict = {"passed": "PASSED", "failed": "NOT YET", "error": "ERROR"}[report.status]
    lines = _wrap(f"{verdict}  score {report.score:g}/{report.max_score:g}  ·  "
                  f"{report.summary}  ({report.grading.seconds:.1f} s)", width)
    lines[0] = paint(verdict, report.status) + lines[0][len(verdict):]
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
    """``text`` as it is (its spaces kept: a traceback's indentation means something), cut
    into pieces that fit ``width``: the first after ``indent``, the others after
    ``hanging``."""
    lines, prefix = [], indent
    while True:
        room = width - len(prefix)
        lines.append(prefix + text[:room])
        text, prefix = text[room:], hanging
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


# --------------------------------------------------------------------------- one lead


def _flaws(text: object) -> list[str]:
    return [f.strip() for f in str(text).split("|") if f.strip()] if text else []


def _same_place(a: CheckResult, b: CheckResult) -> bool:
    """Both flaws are in the same interval of the learner's code (or one has no line)."""
    line_a, line_b = a.evidence.facts.get(AT_LINE), b.evidence.facts.get(AT_LINE)
    return line_a is None or line_b is None or line_a == line_b


def _direct_leads(check: CheckResult, failed: Sequence[CheckResult]) -> list[str]:
    """The failed checks ``check`` fails because of, before resolving chains: for each
    group of its ``follows`` fact, the first failed check that saw one of the group's
    flaws in the same place; with no ``follows``, the first earlier failed check that saw
    its very flaw there (one mistake seen twice). Empty when a group finds none."""
    others = [c for c in failed if c.id != check.id]
    follows = str(check.evidence.facts.get(FOLLOWS) or "")
    if follows:
        found: list[str] = []
        for group in follows.split(";"):
            wanted = _flaws(group)
            lead = next((c for c in others if c.evidence.facts.get(FLAW) in wanted
                         and _same_place(c, check)), None)
            if not wanted or lead is None:
                return []
            found.append(lead.id)
        return list(dict.fromkeys(found))
    flaw = check.evidence.facts.get(FLAW)
    earlier = failed[:failed.index(check)]
    lead = next((c for c in earlier if flaw and c.evidence.facts.get(FLAW) == flaw
                 and _same_place(c, check)), None)
    return [lead.id] if lead is not None else []


def leads(report: GradeReport) -> dict[str, list[str]]:
    """For each failed check that fails because of other failed checks, their ids (the
    roots: a lead never follows another), in report order.

    The rule reads only the checks' evidence facts (:data:`FLAW`, :data:`FOLLOWS`,
    :data:`AT_LINE`), which the interval checks write in the measurement contract's words:
    a check follows the checks that saw every flaw its ``follows`` names, in the same
    interval of the learner's code (a declared boundary that differs from the measured
    one only by a compilation that ``warmup-excluded`` saw follows ``warmup-excluded``);
    a check without ``follows`` follows an earlier check that saw its very flaw there
    (``covers-device-work`` after ``sync-before-stop``: one missing wait). A relation
    that would make a cycle is dropped. Points and verdicts are never touched: only how
    the report reads."""
    failed = [c for c in report.checks if c.status == "failed"]
    direct = {c.id: d for c in failed if (d := _direct_leads(c, failed))}

    def roots(check_id: str, seen: frozenset[str]) -> list[str] | None:
        if check_id not in direct:
            return [check_id]
        if check_id in seen:
            return None  # a cycle
        found: list[str] = []
        for lead in direct[check_id]:
            up = roots(lead, seen | {check_id})
            if up is None:
                return None
            found.extend(up)
        return list(dict.fromkeys(found))

    resolved = {check_id: roots(check_id, frozenset()) for check_id in direct}
    return {check_id: found for check_id, found in resolved.items() if found}


def _in_order(checks: Sequence[CheckResult], because: dict[str, list[str]]
              ) -> list[CheckResult]:
    """Report order, except that each check that follows others comes right after the
    last of its leads (in report order among the followers of one lead)."""
    ordered: list[CheckResult] = []
    placed: set[str] = set()

    def place(check: CheckResult) -> None:
        ordered.append(check)
        placed.add(check.id)
        for other in checks:
            if other.id not in placed and other.id in because and all(
                    lead in placed for lead in because[other.id]):
                place(other)

    for check in checks:
        if check.id not in placed and check.id not in because:
            place(check)
    ordered.extend(c for c in checks if c.id not in placed)  # leads that are not listed
    return ordered


def _because_hint(lead_ids: Iterable[str]) -> str:
    named = [f"`{lead}`" for lead in lead_ids]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"
    return f"Because of {listed} above: fix {'that' if len(named) == 1 else 'those'} first."


# --------------------------------------------------------------------------- one check


def _check_lines(check: CheckResult, label_width: int, paint: _Paint,
                 source_lines: list[str] | None, shown: dict[str, str] | None = None,
                 *, width: int = DEFAULT_WIDTH, because: Sequence[str] = ()) -> list[str]:
    """The check's line, and for a failure its hint and timeline, within ``width``. A
    timeline already drawn for an earlier check (``shown``, updated here) is referred to,
    not drawn again: one stub's interval often fails several checks. A check that fails
    because of others (``because``) names them instead of giving its own hint."""
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
    hint = _because_hint(because) if because else check.hint
    if hint:
        lines.extend(_wrap("→ " + hint, width, indent, "  "))
    timeline = check.evidence.timeline
    if timeline is None:
        return lines
    key = timeline.model_dump_json()
    if shown is not None and key in shown:
        lines.extend(paint(line, "dim") for line in _wrap(
            f"What your timer measured: the same interval as under `{shown[key]}` above.",
            width, indent))
        return lines
    if shown is not None:
        shown[key] = check.id
    if width - len(indent) < TIMELINE_MIN:
        indent = " " * min(len(indent), NARROW_INDENT)
    lines.extend(_timeline_lines(timeline, indent, paint, source_lines, width))
    return lines


def _timeline_lines(timeline: Timeline, indent: str, paint: _Paint,
                    source_lines: list[str] | None, width: int | None = None) -> list[str]:
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


def _code(line: int | None, source_lines: list[str] | None,
          width: int = CODE_WIDTH) -> str:
    """The learner's own source line, shortened to ``width``, when we have it."""
    if not line or not source_lines or not 0 < line <= len(source_lines):
        return ""
    return _cut(source_lines[line - 1].strip(), width)
