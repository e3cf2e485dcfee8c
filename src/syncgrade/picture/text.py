"""The text timeline as plain text: the accessible description of every interval picture.

The same lines as the terminal view (:func:`syncgrade.render.timeline_text`), without
colour; kept here so the picture package reads nothing but the models
(tests/picture/test_picture.py checks that both agree).
"""

from __future__ import annotations

from collections.abc import Sequence

from syncgrade.models import Timeline, quoted_line

CODE_WIDTH = 44


def timeline_text(timeline: Timeline, source_lines: Sequence[str] | None = None) -> str:
    """The learner's interval drawn from their own lines, one event a line."""
    seconds = f", measured {timeline.seconds * 1e3:.3f} ms" if timeline.seconds else ""
    lines = [f"What your timer measured ({timeline.file}{seconds}):"]
    codes = [_code(entry.line, source_lines) for entry in timeline.entries]
    code_width = max((len(c) for c in codes), default=0)
    for entry, code in zip(timeline.entries, codes, strict=True):
        where = f"line {entry.line:<4}" if entry.line else " " * 9
        row = f"  {where} {entry.what:<12} {code:<{code_width}}"
        if entry.note:
            row += "  ← " + entry.note
        lines.append(row.rstrip())
    return "\n".join(lines)


def _code(line: int | None, source_lines: Sequence[str] | None) -> str:
    text = quoted_line(source_lines, line)
    return text if len(text) <= CODE_WIDTH else text[:CODE_WIDTH - 1] + "…"
