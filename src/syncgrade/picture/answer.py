"""A concept answer (exercise-2, "Draw the interval") drawn against its snippet.

:func:`answer_svg` draws an :class:`~syncgrade.models.AnswerPicture`: the snippet's lines
top to bottom (time runs down, as the code runs), the lines between the two clock reads
shaded and bracketed as the measured interval, and beside that bracket the phases the
learner said the interval waits for. A wrong answer is marked as a whole, in the check
message's words: the picture shows the learner's own choice against the snippet's own
lines, never which phases the key holds (that is the exercise).
"""

from __future__ import annotations

from html import escape

from syncgrade.models import AnswerPicture
from syncgrade.picture.fonts import text_width, wrap
from syncgrade.picture.svg import LABEL_SIZE, RIGHT, STYLE, safe_id

ROW = 22.0  # pixels between two code lines
CODE_X = 150.0  # where the code begins (the bracket and its words are left of it)
CODE_SIZE = 12.0
MONO_EM = 0.61  # DejaVu Sans Mono's advance (0.602 em); other monospace faces are narrower
CHIP = 24.0  # the height of one answer phase's box, with its gap

ANSWER_STYLE = """
.sg-pic .sg-code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",
monospace;font-size:12px}
.sg-pic .sg-chip{fill:var(--sg-lane);stroke:var(--sg-host);stroke-width:1.5}
.sg-pic .sg-chip-empty{fill:none;stroke:var(--sg-muted);stroke-width:1.5;stroke-dasharray:4 3}
.sg-pic .sg-wrong{stroke:var(--sg-flaw);stroke-width:2.5;fill:none}
"""


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def code_width(text: str) -> float:
    """The width in pixels of a line of code (monospace, :data:`CODE_SIZE`)."""
    return len(text) * MONO_EM * CODE_SIZE


def answer_title(picture: AnswerPicture) -> str:
    return f"Snippet {picture.snippet}: your answer against the lines its timer measures"


def answer_desc(picture: AnswerPicture) -> str:
    """The picture in words (its accessible description)."""
    said = ", ".join(picture.answer) if picture.answer else "no phases"
    lines = [f"{answer_title(picture)}."]
    for i, line in enumerate(picture.lines):
        mark = (" (timer starts)" if i == picture.start else " (timer stops)"
                if i == picture.stop else " (inside)" if picture.start < i < picture.stop
                else "")
        lines.append(f"  {line}{mark}")
    lines.append(f"Your answer: the interval waits for {said}.")
    if picture.verdict:
        lines.append(picture.verdict)
    return "\n".join(lines)


def answer_svg(picture: AnswerPicture, *, ident: str = "sg-answer", style: bool = True) -> str:
    """The answer drawn against its snippet, as an SVG document (also valid inline in
    HTML). ``ident``: the prefix of the element ids; ``style``: embed the stylesheet."""
    ident = safe_id(ident)
    top = 46.0
    code_right = CODE_X + max((code_width(ln) for ln in picture.lines), default=0.0)
    chips_x = code_right + 36
    chip_w = max([text_width(p, LABEL_SIZE) + 20 for p in picture.answer]
                 + [text_width("your answer", LABEL_SIZE, bold=True), 120.0])
    y_start, y_stop = top + ROW * picture.start, top + ROW * picture.stop
    chips_h = CHIP * max(1, len(picture.answer))
    bottom = max(top + ROW * len(picture.lines), (y_start + y_stop) / 2 + chips_h / 2 + 8)
    verdict_y = bottom + 24
    width = max(chips_x + chip_w, 12 + text_width(answer_title(picture), LABEL_SIZE,
                                                  bold=True)) + RIGHT
    verdict = wrap(f"⚠ {picture.verdict}", width - 24 - RIGHT, LABEL_SIZE, bold=True)
    width = max([width, *(24 + text_width(row, LABEL_SIZE, bold=True) + RIGHT
                          for row in verdict)])
    wrong = bool(picture.verdict)
    height = verdict_y + (18 * len(verdict) + 6 if wrong else 0) + 4
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="sg-pic sg-answer" id="{ident}" '
             f'role="img" aria-labelledby="{ident}-title" aria-describedby="{ident}-desc" '
             f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} '
             f'{height:.0f}" data-snippet="{_e(picture.snippet)}" '
             f'data-wrong="{str(wrong).lower()}">',
             f'<title id="{ident}-title">{_e(answer_title(picture))}</title>',
             f'<desc id="{ident}-desc">{_e(answer_desc(picture))}</desc>']
    if style:
        parts.append(f"<style>{STYLE}{ANSWER_STYLE}</style>")
    parts.append(f'<text class="sg-strong" x="12" y="22">{_e(answer_title(picture))}</text>')
    parts.append(_interval(picture, top, code_right, y_start, y_stop, wrong))
    parts.append(_code(picture, top))
    parts.append(_chips(picture, chips_x, chip_w, (y_start + y_stop) / 2 - chips_h / 2 - 4,
                        wrong))
    if wrong:
        rows = "".join(f'<tspan x="24" dy="{0 if k == 0 else 18}">{_e(row)}</tspan>'
                       for k, row in enumerate(verdict))
        parts.append(f'<text class="sg-flaw-words" x="24" y="{verdict_y:.0f}">{rows}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _interval(picture: AnswerPicture, top: float, code_right: float, y_start: float,
              y_stop: float, wrong: bool) -> str:
    """The shaded lines from the start read to the stop read, and their bracket."""
    y0, y1 = y_start - 15, y_stop + 7
    bracket = "sg-wrong" if wrong else "sg-measure-line"
    return (f'<g class="sg-measurement" data-start="{picture.start}" '
            f'data-stop="{picture.stop}">'
            f'<rect class="sg-inside" x="{CODE_X - 8:.0f}" y="{y0:.0f}" '
            f'width="{code_right - CODE_X + 16:.0f}" height="{y1 - y0:.0f}" rx="4"/>'
            f'<path class="{bracket}" d="M{CODE_X - 20:.0f},{y0:.0f} h-8 V{y1:.0f} h8"/>'
            f'<text class="sg-strong" x="{CODE_X - 36:.0f}" y="{(y0 + y1) / 2 - 2:.0f}" '
            'text-anchor="end">measured</text>'
            f'<text class="sg-small" x="{CODE_X - 36:.0f}" y="{(y0 + y1) / 2 + 12:.0f}" '
            'text-anchor="end">start to stop</text></g>')


def _code(picture: AnswerPicture, top: float) -> str:
    out = ['<g class="sg-snippet">']
    for i, line in enumerate(picture.lines):
        inside = picture.start <= i <= picture.stop
        out.append(f'<text class="sg-code" x="{CODE_X:.0f}" y="{top + ROW * i:.0f}" '
                   f'data-inside="{str(inside).lower()}" xml:space="preserve">'
                   f"{_e(line)}</text>")
    out.append("</g>")
    return "".join(out)


def _chips(picture: AnswerPicture, x: float, width: float, top: float, wrong: bool) -> str:
    """The learner's phases, one box each, beside the interval they were said to be in."""
    out = [f'<g class="sg-your-answer" data-phases="{_e("; ".join(picture.answer))}">',
           f'<text class="sg-strong" x="{x:.0f}" y="{top:.0f}">your answer</text>']
    if wrong:
        out.append(f'<rect class="sg-wrong" x="{x - 6:.0f}" y="{top - 16:.0f}" '
                   f'width="{width + 12:.0f}" '
                   f'height="{CHIP * max(1, len(picture.answer)) + 26:.0f}" rx="6"/>')
    for k, phase in enumerate(picture.answer or ["(no phases)"]):
        y = top + 8 + CHIP * k
        cls = "sg-chip" if picture.answer else "sg-chip-empty"
        out.append(f'<rect class="{cls}" x="{x:.0f}" y="{y:.0f}" width="{width:.0f}" '
                   f'height="{CHIP - 5:.0f}" rx="9"/>'
                   f'<text class="sg-answer-phase" x="{x + 10:.0f}" y="{y + 14:.0f}">'
                   f"{_e(phase)}</text>")
    out.append("</g>")
    return "".join(out)
