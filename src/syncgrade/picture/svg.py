"""SVG pictures: one timed interval, and sample distributions on one axis.

:func:`interval_svg` draws an :class:`~syncgrade.models.IntervalPicture` in three lanes:

- **host**: the learner's events in the order they happened (timer start and stop, call,
  compile, placement, wait, readback, clock reads), each with its label and line, in the
  text timeline's words. Placed by order only: nothing but a clock read has a time.
- **device**: each call's work from its dispatch to the event at which it was known to be
  ready (a wait that returned, or the readiness record at the stop read). Work not ready at
  the stop read is drawn running past the stop, "still running at the stop"; work nobody
  waited for ends in a dashed outline. No duration is ever invented.
- **measured**: the interval the timer measured, from the start read to the stop read.
  This lane alone is to scale: the clock reads are placed at their measured times.

Each flaw is marked where it happens, in the text timeline's words. The SVG is an image
for assistive technology (``role="img"``), named by its ``<title>`` and described by its
``<desc>``, which holds the text timeline: the text stays the source of truth.

:func:`distributions_svg` draws lists of samples (exercise-7's first-call and warm
samples) as rows of dots on one shared axis, each row with its median; the axis is
logarithmic when the samples span more than a factor of :data:`LOG_RATIO`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from syncgrade.models import DeviceWork, IntervalPicture, Timeline, TimelineEntry
from syncgrade.picture.fonts import text_width, wrap
from syncgrade.picture.text import timeline_text

STEP = 104  # the least distance between two host events (order, not time), in pixels
COLUMN = 98  # the width an event's words wrap to (a longer word widens its column)
GAP = 10  # the least room between two events' words
LEFT = 112  # the lane labels' column
WORDS_LEFT = 100.0  # where an event's words may begin, right of the lane labels
FIRST_X = LEFT + 48.0  # the first event's x, unless its words need more room
RIGHT = 40
TAIL = 0.8  # how far past the stop "still running" work is drawn, in steps
STOP_ROOM = 0.6  # the extra room before the first event after the stop, in steps
LOG_RATIO = 20.0
MIN_WIDTH = 720.0
MAX_WIDTH = 1040.0
"""The widest picture that a report page shows unscaled in a 1200-pixel window; the
layout stays within it where it can, and a page scales a wider one down to fit
(``max-width: 100%``: the SVG's viewBox keeps it whole)."""
LABEL_SIZE, SMALL_SIZE = 12.0, 10.5  # the font sizes of STYLE (event labels; details)

STYLE = """
.sg-pic{--sg-fg:#1f2328;--sg-muted:#57606a;--sg-lane:#f4f6f8;--sg-inside:#e7eefb;
--sg-host:#2463c9;--sg-device:#137a52;--sg-measure:#7245c2;--sg-flaw:#c4122f;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
@media (prefers-color-scheme:dark){.sg-pic{--sg-fg:#e6edf3;--sg-muted:#9da7b3;
--sg-lane:#1b2028;--sg-inside:#1c2a45;--sg-host:#79aefe;--sg-device:#4cc38a;
--sg-measure:#b69cf6;--sg-flaw:#ff7b72}}
@media print{.sg-pic{--sg-fg:#000;--sg-muted:#333;--sg-lane:#f4f4f4;--sg-inside:#e9e9f4;
--sg-host:#1d4fa3;--sg-device:#0d5e3e;--sg-measure:#55309a;--sg-flaw:#b00020}}
.sg-pic text{fill:var(--sg-fg);font-size:12px}
.sg-pic .sg-small{font-size:10.5px;fill:var(--sg-muted)}
.sg-pic .sg-strong{font-weight:600}
.sg-pic .sg-measured-label{paint-order:stroke;stroke:var(--sg-inside);stroke-width:5px}
.sg-pic .sg-work-caption,.sg-pic .sg-still-running{paint-order:stroke;stroke:var(--sg-lane);
stroke-width:4px;stroke-linejoin:round}
.sg-pic .sg-band{fill:var(--sg-lane)}
.sg-pic .sg-inside{fill:var(--sg-inside);opacity:.75}
.sg-pic .sg-lane-label{font-weight:600}
.sg-pic .sg-host-mark{fill:var(--sg-host);stroke:var(--sg-host)}
.sg-pic .sg-missing{fill:none;stroke:var(--sg-flaw);stroke-width:1.5;stroke-dasharray:3 2}
.sg-pic .sg-unexplained{fill:var(--sg-flaw);stroke:var(--sg-flaw);opacity:.8}
.sg-pic .sg-boundary{stroke:var(--sg-measure);stroke-width:1.5;stroke-dasharray:4 3}
.sg-pic .sg-work{fill:var(--sg-device)}
.sg-pic .sg-work-unknown{fill:none;stroke:var(--sg-device);stroke-width:1.5;
stroke-dasharray:5 3}
.sg-pic .sg-work-end{stroke:var(--sg-device);stroke-width:2}
.sg-pic .sg-after{stroke:var(--sg-device);stroke-width:1.5;stroke-dasharray:2 3}
.sg-pic .sg-measure-line{stroke:var(--sg-measure);stroke-width:2.5;fill:none}
.sg-pic .sg-tick{stroke:var(--sg-measure);stroke-width:1.5}
.sg-pic .sg-link{stroke:var(--sg-muted);stroke-width:1;stroke-dasharray:2 3;fill:none}
.sg-pic .sg-flaw-line{stroke:var(--sg-flaw);stroke-width:2;stroke-dasharray:6 3}
.sg-pic .sg-flaw-ring{fill:none;stroke:var(--sg-flaw);stroke-width:2.5}
.sg-pic text.sg-flaw-words{fill:var(--sg-flaw);font-weight:600}
.sg-pic .sg-axis{stroke:var(--sg-muted);stroke-width:1}
.sg-pic .sg-grid{stroke:var(--sg-muted);stroke-width:.5;opacity:.45}
.sg-pic .sg-dot{stroke:var(--sg-fg);stroke-width:.6;opacity:.85}
.sg-pic .sg-row-0 .sg-dot{fill:var(--sg-measure)}
.sg-pic .sg-row-1 .sg-dot{fill:var(--sg-device)}
.sg-pic .sg-row-2 .sg-dot{fill:var(--sg-host)}
.sg-pic .sg-median{stroke:var(--sg-fg);stroke-width:2}
"""


def seconds_text(seconds: float) -> str:
    """``0.002744`` -> ``"2.744 ms"``; a second or more in seconds."""
    if abs(seconds) >= 1:
        return f"{seconds:.3f} s"
    return f"{seconds * 1e3:.3f} ms"


def safe_id(text: str) -> str:
    """An XML id made of ``text``: letters, digits, ``-`` and ``_`` only."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-")
    return cleaned if cleaned[:1].isalpha() else f"sg-{cleaned}"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


@dataclass(frozen=True)
class _Words:
    """An event's words under its marker, each wrapped to fit its column, never cut."""

    label: list[str]
    detail: list[str]
    line: str

    @property
    def width(self) -> float:
        return max([text_width(r, LABEL_SIZE, bold=True) for r in self.label]
                   + [text_width(r, SMALL_SIZE) for r in (*self.detail, self.line)])

    @property
    def height(self) -> float:
        """From the first label row's baseline to the line's."""
        return 13.0 * (len(self.label) - 1) + 14.0 * (len(self.detail) + 1)


def _words(label: str, detail: str, line: int | None) -> _Words:
    return _Words(wrap(label, COLUMN, LABEL_SIZE, bold=True),
                  wrap(detail, COLUMN, SMALL_SIZE) if detail else [],
                  f"line {line}" if line else "")


def timeline_of(picture: IntervalPicture) -> Timeline:
    """The text timeline a picture was drawn from (the picture holds the same words)."""
    return Timeline(file=picture.file, seconds=picture.seconds,
                    ready_at_stop=picture.ready_at_stop,
                    entries=[TimelineEntry(what=e.label, detail=e.detail, line=e.line,
                                           note=e.note) for e in picture.host])


def interval_title(picture: IntervalPicture) -> str:
    """A one-line name for the picture: where the interval is, what it measured, the flaw."""
    start, stop = picture.host[picture.start], picture.host[picture.stop]
    where = (f"lines {start.line} to {stop.line} of {picture.file}"
             if start.line and stop.line else picture.file)
    measured = (f", measured {seconds_text(picture.seconds)}"
                if picture.seconds is not None and math.isfinite(picture.seconds) else "")
    flaws = "; ".join(dict.fromkeys(f.words for f in picture.flaws))
    return (f"What your timer measured: {where}{measured}"
            + (f". Marked: {flaws}" if flaws else ""))


def interval_svg(picture: IntervalPicture, timeline: Timeline | None = None, *,
                 ident: str = "sg-interval", source_lines: Sequence[str] | None = None,
                 style: bool = True) -> str:
    """One interval as an SVG document (also valid inline in HTML).

    ``timeline``: the text timeline of the same interval, the accessible description
    (default: rebuilt from the picture, which holds the same words). ``ident``: the prefix
    of the element ids (unique per page). ``source_lines``: the submission's lines, to
    quote the learner's code in the description. ``style``: embed the stylesheet (a page
    holding several pictures may embed it once and pass ``False``)."""
    return _IntervalDrawing(picture, timeline or timeline_of(picture), safe_id(ident),
                            source_lines, style).svg()


class _IntervalDrawing:
    def __init__(self, picture: IntervalPicture, timeline: Timeline, ident: str,
                 source_lines: Sequence[str] | None, style: bool) -> None:
        self.p, self.timeline, self.id = picture, timeline, ident
        self.source_lines, self.style = source_lines, style
        self.words = [_words(e.label, e.detail, e.line) for e in picture.host]
        self.xs = self._positions()
        self.parts: list[str] = []
        self.flaw_xs: list[float] = []  # where each flaw's words start (set by svg())

    def _positions(self) -> list[float]:
        """Each event's x: in order, at least :data:`STEP` apart and far enough apart that
        the words of neighbours never touch (a long word widens its column)."""
        xs: list[float] = []
        widths = [w.width for w in self.words]
        x = max(FIRST_X, WORDS_LEFT + widths[0] / 2) if widths else FIRST_X
        for i, event in enumerate(self.p.host):
            if i:
                x += max(STEP, (widths[i - 1] + widths[i]) / 2 + GAP)
                if event.after_stop and not self.p.host[i - 1].after_stop:
                    x += STEP * STOP_ROOM  # room for work still running past the stop
            xs.append(x)
        return xs

    # ------------------------------------------------------------------ geometry

    @property
    def host_top(self) -> float:
        return 46.0

    @property
    def host_bottom(self) -> float:
        tallest = max((w.height for w in self.words), default=0.0)
        return self.host_top + max(100.0, 22 + 28 + tallest + 10)

    @property
    def device_top(self) -> float:
        return self.host_bottom + 8

    def _captioned(self, work: DeviceWork) -> bool:
        """Each work gets a caption in a short interval; in a long one only the timed call
        (the others say it in their tooltip), so the lane stays short."""
        return work.timed or len(self.p.device) <= 2

    def _row_tops(self) -> list[float]:
        tops, y = [], self.device_top + 12
        for work in self.p.device:
            tops.append(y)
            y += 40 if self._captioned(work) else 20
        return tops

    @property
    def device_bottom(self) -> float:
        rows = sum(40 if self._captioned(w) else 20 for w in self.p.device)
        return self.device_top + 16 + max(rows, 40)

    @property
    def measure_top(self) -> float:
        return self.device_bottom + 8

    @property
    def measure_bottom(self) -> float:
        return self.measure_top + 62

    @property
    def marker_y(self) -> float:
        return self.host_top + 22

    def x_at(self, index: int | None) -> float | None:
        return self.xs[index] if index is not None and 0 <= index < len(self.xs) else None

    # ------------------------------------------------------------------ drawing

    def svg(self) -> str:
        p = self.p
        stop_x = self.xs[p.stop]
        flaws_top = self.measure_bottom + 22
        caption_y = flaws_top + 20 * len(p.flaws) + 8
        height = caption_y + 34
        running = any(w.state == "still running at the stop" for w in p.device)
        lanes = max(self.xs[-1] + self.words[-1].width / 2 + RIGHT,
                    stop_x + (STEP * (TAIL + 1.4) if running else 0.0) + RIGHT, MIN_WIDTH,
                    *(self.xs[w.dispatched_at] + text_width(self._caption(w), SMALL_SIZE)
                      + RIGHT for w in p.device if self._captioned(w)))
        self.flaw_xs = [self._flaw_x(f.at, self._flaw_text(f.at, f.words), max(lanes, MAX_WIDTH))
                        for f in p.flaws]
        width = max([lanes, *(x + _flaw_width(self._flaw_text(f.at, f.words)) + RIGHT
                              for x, f in zip(self.flaw_xs, p.flaws, strict=True))])
        self._lanes(width)
        self._boundaries()
        lines, marks = self._flaws(flaws_top)
        self.parts.extend(lines)
        self._host()
        self._device()
        self._measured()
        self.parts.extend(marks)
        self.parts.append(
            f'<text class="sg-small sg-order-note" x="14" y="{caption_y:.0f}">Host and '
            "device lanes: ordering only (events in the order they happened, not to "
            f'scale).</text><text class="sg-small sg-order-note" x="14" y="{caption_y + 16:.0f}">'
            "Measured lane: to scale (only clock reads have times).</text>")
        title = interval_title(p)
        desc = timeline_text(self.timeline, self.source_lines)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="sg-pic sg-interval" '
                f'id="{self.id}" role="img" aria-labelledby="{self.id}-title" '
                f'aria-describedby="{self.id}-desc" width="{width:.0f}" '
                f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
                f'data-flaws="{len(p.flaws)}">')
        body = [head, f'<title id="{self.id}-title">{_e(title)}</title>',
                f'<desc id="{self.id}-desc">{_e(desc)}</desc>']
        if self.style:
            body.append(f"<style>{STYLE}</style>")
        body.append(f'<text class="sg-strong" x="12" y="22">{_e(_headline(p))}</text>')
        body.extend(self.parts)
        body.append("</svg>")
        return "\n".join(body)

    def _lanes(self, width: float) -> None:
        lanes = (("host", "ordering only", self.host_top, self.host_bottom),
                 ("device", "ordering only", self.device_top, self.device_bottom),
                 ("measured", "to scale", self.measure_top, self.measure_bottom))
        start_x, stop_x = self.xs[self.p.start], self.xs[self.p.stop]
        for name, scale, top, bottom in lanes:
            self.parts.append(
                f'<g class="sg-lane sg-lane-{name}" data-lane="{name}" data-scale="{scale}">'
                f'<rect class="sg-band" x="6" y="{top:.0f}" width="{width - 12:.0f}" '
                f'height="{bottom - top:.0f}" rx="6"/>'
                f'<rect class="sg-inside" x="{start_x:.1f}" y="{top:.0f}" '
                f'width="{stop_x - start_x:.1f}" height="{bottom - top:.0f}"/>'
                f'<text class="sg-lane-label" x="14" y="{top + 20:.0f}">{name}</text>'
                f'<text class="sg-small sg-scale" x="14" y="{top + 35:.0f}">{scale}</text>'
                "</g>")

    def _boundaries(self) -> None:
        """The start and stop reads across the device lane (under the host lane's labels
        and above the measured lane's, so no text is crossed)."""
        for index, what in ((self.p.start, "timer start"), (self.p.stop, "timer stop")):
            x = self.xs[index]
            self.parts.append(
                f'<line class="sg-boundary" data-boundary="{what}" x1="{x:.1f}" '
                f'y1="{self.host_bottom - 8:.0f}" x2="{x:.1f}" y2="{self.measure_top + 24:.0f}"/>')

    def _host(self) -> None:
        y = self.marker_y
        for i, (event, x) in enumerate(zip(self.p.host, self.xs, strict=True)):
            words = self.words[i]
            tooltip = " · ".join(t for t in (event.label, event.detail, words.line, event.note)
                                 if t)
            label = _rows(words.label, x, 13)
            below = y + 28 + 13 * (len(words.label) - 1)
            detail = (f'<text class="sg-small sg-event-detail" x="{x:.1f}" '
                      f'y="{below + 14:.0f}" text-anchor="middle">{_rows(words.detail, x, 14)}'
                      "</text>" if words.detail else "")
            self.parts.append(
                f'<g class="sg-event sg-k-{safe_id(event.kind)}" data-index="{i}" '
                f'data-kind="{_e(event.kind)}" data-line="{event.line or ""}" '
                f'data-x="{x:.1f}" data-room="{self._room(i):.1f}">'
                f"<title>{_e(tooltip)}</title>{_marker(event.kind, x, y)}"
                f'<text class="sg-strong sg-event-label" x="{x:.1f}" y="{y + 28:.0f}" '
                f'text-anchor="middle">{label}</text>{detail}'
                f'<text class="sg-small sg-event-line" x="{x:.1f}" '
                f'y="{below + 14 * (len(words.detail) + 1):.0f}" '
                f'text-anchor="middle">{_e(words.line)}</text></g>')

    def _room(self, i: int) -> float:
        """The width event ``i``'s words may take: to halfway to each neighbour (its
        words' half), less :data:`GAP` (tests/picture checks every row fits it)."""
        xs = self.xs
        left = xs[i] - xs[i - 1] - self.words[i - 1].width / 2 if i else xs[0] - WORDS_LEFT
        right = xs[i + 1] - xs[i] - self.words[i + 1].width / 2 if i + 1 < len(xs) else math.inf
        half = min(left, right, 10_000.0)
        return 2 * half

    def _device(self) -> None:
        if not self.p.device:
            self.parts.append(
                f'<text class="sg-small" x="{self.xs[0]:.1f}" y="{self.device_top + 30:.0f}">'
                "no call of a jitted function inside: no device work to draw</text>")
        for work, top in zip(self.p.device, self._row_tops(), strict=True):
            self._work(work, top)

    def _work(self, work: DeviceWork, top: float) -> None:
        p, h = self.p, 12
        x0 = self.xs[work.dispatched_at]
        stop_x = self.xs[p.stop]
        end_x = self.x_at(work.ready_at)
        out = [f'<g class="sg-device-work" data-state="{_e(work.state)}" '
               f'data-timed="{str(work.timed).lower()}" data-dispatched="{work.dispatched_at}" '
               f'data-x="{x0:.1f}">'
               f"<title>{_e(work.label)}: {_e(work.state)} ({_e(work.known_by)})</title>"]
        if work.state == "still running at the stop":
            tail = stop_x + STEP * TAIL
            gradient = f"{self.id}-fade-{work.dispatched_at}"
            out.append(
                f'<defs><linearGradient id="{gradient}" x1="0" x2="1" y1="0" y2="0">'
                '<stop offset="0" stop-color="var(--sg-device)" stop-opacity="1"/>'
                '<stop offset="1" stop-color="var(--sg-device)" stop-opacity="0"/>'
                "</linearGradient></defs>"
                f'<rect class="sg-work" x="{x0:.1f}" y="{top:.0f}" width="{stop_x - x0:.1f}" '
                f'height="{h}"/>'
                f'<rect x="{stop_x:.1f}" y="{top:.0f}" width="{tail - stop_x:.1f}" '
                f'height="{h}" fill="url(#{gradient})"/>'
                f'<text class="sg-small sg-still-running" x="{stop_x + 16:.1f}" '
                f'y="{top - 3:.0f}">still running at the stop</text>')
            if end_x is not None:  # a wait after the stop: known ready only there
                out.append(
                    f'<line class="sg-after" x1="{tail:.1f}" y1="{top + h / 2:.1f}" '
                    f'x2="{end_x:.1f}" y2="{top + h / 2:.1f}"/>'
                    f'<line class="sg-work-end" x1="{end_x:.1f}" y1="{top - 3:.0f}" '
                    f'x2="{end_x:.1f}" y2="{top + h + 3:.0f}"/>')
        elif work.state == "ready" and end_x is not None:
            out.append(
                f'<rect class="sg-work" x="{x0:.1f}" y="{top:.0f}" '
                f'width="{max(end_x - x0, 4):.1f}" height="{h}"/>'
                f'<line class="sg-work-end" x1="{end_x:.1f}" y1="{top - 3:.0f}" '
                f'x2="{end_x:.1f}" y2="{top + h + 3:.0f}"/>')
        else:  # nobody waited for it: where it ended is not known
            end = end_x if end_x is not None else stop_x
            out.append(
                f'<rect class="sg-work-unknown" x="{x0:.1f}" y="{top:.0f}" '
                f'width="{max(end - x0, 4):.1f}" height="{h}"/>')
        if self._captioned(work):
            out.append(f'<text class="sg-small sg-work-caption" x="{x0:.1f}" '
                       f'y="{top + h + 14:.0f}">{_e(self._caption(work))}</text>')
        out.append("</g>")
        self.parts.append("".join(out))

    @staticmethod
    def _caption(work: DeviceWork) -> str:
        if work.state == "ready" and work.ready_at is not None:
            return f"{work.label}: ready ({work.known_by})"
        if work.state == "still running at the stop":
            return f"{work.label}: {work.state}"
        return f"{work.label}: not known when it finished ({work.known_by})"

    def _measured(self) -> None:
        p = self.p
        x0, x1 = self.xs[p.start], self.xs[p.stop]
        y = self.measure_top + 24
        out = ['<g class="sg-measurement">',
               f'<path class="sg-measure-line" d="M{x0:.1f},{y - 7:.0f} V{y:.0f} H{x1:.1f} '
               f'V{y - 7:.0f}"/>']
        seconds = p.seconds if p.seconds is not None and math.isfinite(p.seconds) else None
        label = f"measured {seconds_text(seconds)}" if seconds is not None else "not measured"
        wide = x1 - x0 > 3 * STEP  # a long interval: the label where it starts, in view
        out.append(f'<text class="sg-strong sg-measured-label" '
                   f'x="{x0 + 10 if wide else (x0 + x1) / 2:.1f}" y="{y - 10:.0f}" '
                   f'text-anchor="{"start" if wide else "middle"}">{_e(label)}</text>')
        if seconds is not None and seconds > 0:
            for i, event in enumerate(p.host):
                if event.seconds is None or event.after_stop or not p.start <= i <= p.stop:
                    continue
                fraction = min(max(event.seconds / seconds, 0.0), 1.0)
                x = x0 + fraction * (x1 - x0)
                out.append(
                    f'<line class="sg-tick" data-seconds="{event.seconds:.9g}" x1="{x:.1f}" '
                    f'y1="{y - 4:.0f}" x2="{x:.1f}" y2="{y + 6:.0f}"/>'
                    f'<text class="sg-small sg-tick-label" '
                    f'x="{x - 5 if i == p.stop else x:.1f}" y="{y + 20:.0f}" '
                    f'text-anchor="{"end" if i == p.stop else "middle"}">'
                    f'{_e(seconds_text(event.seconds) if event.seconds else "0")}</text>')
                if abs(x - self.xs[i]) > 1:  # an inner read: its order and its time
                    out.append(f'<path class="sg-link" d="M{self.xs[i]:.1f},'
                               f'{self.marker_y + 8:.0f} L{x:.1f},{y - 4:.0f}"/>')
        out.append("</g>")
        self.parts.append("".join(out))

    def _flaw_x(self, at: int, text: str, width: float) -> float:
        """Where a flaw's words start: under its mark, or further left where they would
        run past ``width`` (the dashed line from the mark still reaches them)."""
        return max(min(self.xs[at] - 8, width - RIGHT - _flaw_width(text)), 12.0)

    def _flaw_text(self, at: int, words: str) -> str:
        line = self.p.host[at].line
        return f"⚠ {words}" + (f" (line {line})" if line else "")

    def _flaws(self, top: float) -> tuple[list[str], list[str]]:
        """(the dashed lines, drawn under the lanes' contents; the marks and words, drawn
        over them), one of each per flaw."""
        lines: list[str] = []
        marks: list[str] = []
        for n, flaw in enumerate(self.p.flaws):
            x = self.xs[flaw.at]
            y_text = top + 20 * n
            if flaw.lane == "device":
                ring_y = self.device_top + 18
            elif flaw.lane == "measurement":
                ring_y = self.measure_top + 24
            else:
                ring_y = self.marker_y
            below = self.host_bottom - 8 if flaw.lane == "host" else ring_y + 11  # no labels
            lines.append(f'<line class="sg-flaw-line" x1="{x:.1f}" y1="{below:.0f}" '
                         f'x2="{x:.1f}" y2="{y_text - 12:.0f}"/>')
            marks.append(
                f'<g class="sg-flaw" data-lane="{_e(flaw.lane)}" data-at="{flaw.at}" '
                f'data-words="{_e(flaw.words)}">'
                f'<circle class="sg-flaw-ring" cx="{x:.1f}" cy="{ring_y:.0f}" r="11"/>'
                f'<text class="sg-flaw-words" x="{self.flaw_xs[n]:.1f}" '
                f'y="{y_text:.0f}">{_e(self._flaw_text(flaw.at, flaw.words))}</text></g>')
        return lines, marks


def _flaw_width(text: str) -> float:
    return text_width(text, LABEL_SIZE, bold=True)


def _rows(rows: list[str], x: float, step: int) -> str:
    """``rows`` as tspans under one another, each centred on ``x``."""
    return "".join(f'<tspan x="{x:.1f}" dy="{0 if k == 0 else step}">{_e(row)}</tspan>'
                   for k, row in enumerate(rows))


def _headline(picture: IntervalPicture) -> str:
    start, stop = picture.host[picture.start], picture.host[picture.stop]
    where = f" (line {start.line} to line {stop.line})" if start.line and stop.line else ""
    return f"What your timer measured{where}"


def _marker(kind: str, x: float, y: float) -> str:
    """A shape per kind of event (the label under it says the same in words)."""
    cls = 'class="sg-host-mark"'
    if kind in ("timer start", "timer stop", "clock read"):
        return f'<rect {cls} x="{x - 2:.1f}" y="{y - 12:.0f}" width="4" height="24" rx="1"/>'
    if kind.startswith("call"):
        return f'<circle {cls} cx="{x:.1f}" cy="{y:.0f}" r="7"/>'
    if kind == "compile":
        return f'<path {cls} d="M{x:.1f},{y - 9:.0f} l9,9 l-9,9 l-9,-9 z"/>'
    if kind == "placement":
        return f'<rect {cls} x="{x - 7:.1f}" y="{y - 7:.0f}" width="14" height="14"/>'
    if kind in ("wait", "readback"):
        return f'<path {cls} d="M{x - 7:.1f},{y - 8:.0f} h14 l-14,16 h14 z"/>'
    if kind == "host work":  # the unexplained host time: a segment of its own
        return (f'<rect class="sg-host-mark sg-unexplained" x="{x - 14:.1f}" y="{y - 6:.0f}" '
                'width="28" height="12" rx="2"/>')
    if kind == "no readback":  # where a readback belongs, and none is: an empty outline
        return (f'<path class="sg-missing" d="M{x - 7:.1f},{y - 8:.0f} h14 l-14,16 h14 z"/>')
    if kind in ("print", "sleep", "eager", "host callback"):
        return f'<path {cls} d="M{x:.1f},{y - 9:.0f} l8,16 h-16 z"/>'
    return "".join(f'<circle {cls} cx="{x + dx:.1f}" cy="{y:.0f}" r="2"/>'
                   for dx in (-7, 0, 7))  # events left out: three dots


# --------------------------------------------------------------------------- distributions


def sample_label(name: str) -> str:
    """A samples field's name in words: ``first_call_s`` -> ``first call``."""
    return name.removesuffix("_s").replace("_", " ")


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def distributions_svg(samples: Mapping[str, Sequence[float]], *,
                      ident: str = "sg-distributions", style: bool = True) -> str:
    """Each list of samples (seconds) as a row of dots on one shared axis, with its median.

    The axis is in milliseconds, logarithmic when the samples span more than a factor of
    :data:`LOG_RATIO` (first calls compile: they are often 100x the warm ones)."""
    ident = safe_id(ident)
    rows = [(name, [float(v) for v in values if math.isfinite(v)])
            for name, values in samples.items()]
    rows = [(name, values) for name, values in rows if values]
    everything = [v for _, values in rows for v in values]
    width, left, right, row_h, top = 760.0, 150.0, 40.0, 58.0, 44.0
    plot_w = width - left - right
    height = top + row_h * max(1, len(rows)) + 64
    log = bool(everything) and min(everything) > 0 and (
        max(everything) / min(everything) > LOG_RATIO)
    lo, hi, ticks = _axis(everything, log)

    def x_of(value: float) -> float:
        if hi == lo:
            return left + plot_w / 2
        if log:
            return left + (math.log10(value) - math.log10(lo)) / (
                math.log10(hi) - math.log10(lo)) * plot_w
        return left + (value - lo) / (hi - lo) * plot_w

    scale = "log scale" if log else "linear scale"
    names = " and ".join(sample_label(n) for n, _ in rows) or "no"
    title = f"Your {names} samples on one axis (milliseconds, {scale})"
    desc_lines = [title + "."]
    for name, values in rows:
        listed = ", ".join(f"{v * 1e3:.3f}" for v in values)
        desc_lines.append(f"{sample_label(name)}: {len(values)} samples (ms): {listed}; "
                          f"median {_median(values) * 1e3:.3f} ms.")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="sg-pic sg-distributions" '
             f'id="{ident}" role="img" aria-labelledby="{ident}-title" '
             f'aria-describedby="{ident}-desc" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" data-scale="{scale}">',
             f'<title id="{ident}-title">{_e(title)}</title>',
             f'<desc id="{ident}-desc">{_e(chr(10).join(desc_lines))}</desc>']
    if style:
        parts.append(f"<style>{STYLE}</style>")
    parts.append(f'<text class="sg-strong" x="12" y="22">{_e(title)}</text>')
    axis_y = top + row_h * max(1, len(rows)) + 8
    for tick in ticks:
        x = x_of(tick)
        parts.append(f'<line class="sg-grid" x1="{x:.1f}" y1="{top:.0f}" x2="{x:.1f}" '
                     f'y2="{axis_y:.0f}"/><text class="sg-small sg-axis-tick" x="{x:.1f}" '
                     f'y="{axis_y + 16:.0f}" text-anchor="middle">{_e(_ms(tick))}</text>')
    parts.append(f'<line class="sg-axis" x1="{left:.0f}" y1="{axis_y:.0f}" '
                 f'x2="{width - right:.0f}" y2="{axis_y:.0f}"/>'
                 f'<text class="sg-small sg-axis-label" x="{left + plot_w / 2:.0f}" '
                 f'y="{axis_y + 34:.0f}" text-anchor="middle">milliseconds per sample, '
                 f"{scale}, one axis for both</text>")
    for r, (name, values) in enumerate(rows):
        mid = top + row_h * r + row_h / 2
        median = _median(values)
        mx = x_of(median)
        row = [f'<g class="sg-row sg-row-{r % 3}" data-samples="{_e(name)}" '
               f'data-count="{len(values)}">',
               f'<text class="sg-lane-label" x="12" y="{mid - 2:.0f}">'
               f"{_e(sample_label(name))}</text>",
               f'<text class="sg-small" x="12" y="{mid + 13:.0f}">{len(values)} samples</text>']
        for i, value in enumerate(values):
            jitter = ((i * 7) % 5 - 2) * 4.0
            row.append(f'<circle class="sg-dot" cx="{x_of(value):.1f}" cy="{mid + jitter:.1f}" '
                       f'r="5.5"><title>{_e(sample_label(name))} sample {i + 1}: '
                       f"{value * 1e3:.3f} ms</title></circle>")
        words = f"median {median * 1e3:.3f} ms"
        flip = mx + 5 + text_width(words, SMALL_SIZE) > width - 4  # no room right: left of it
        row.append(f'<line class="sg-median" x1="{mx:.1f}" y1="{mid - 18:.0f}" x2="{mx:.1f}" '
                   f'y2="{mid + 18:.0f}"/><text class="sg-small sg-median-label" '
                   f'x="{mx - 5 if flip else mx + 5:.1f}" y="{mid - 16:.0f}" '
                   f'text-anchor="{"end" if flip else "start"}">{words}</text>')
        row.append("</g>")
        parts.append("".join(row))
    parts.append("</svg>")
    return "\n".join(parts)


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:g} ms" if ms >= 0.001 or ms == 0 else f"{ms:.1e} ms"


def _axis(values: list[float], log: bool) -> tuple[float, float, list[float]]:
    """(low, high, ticks) of the shared axis, in seconds."""
    if not values:
        return 0.0, 1e-3, [0.0, 1e-3]
    lo, hi = min(values), max(values)
    if log:
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return 10.0 ** first, 10.0 ** last, [10.0 ** k for k in range(first, last + 1)]
    if hi == lo:
        lo, hi = lo * 0.9, hi * 1.1 if hi else 1e-3
    lo = min(lo, 0.0) if lo < (hi - lo) else lo
    step = _nice((hi - lo) / 5)
    start = math.floor(lo / step) * step
    end = math.ceil(hi / step) * step
    ticks = [start + k * step for k in range(round((end - start) / step) + 1)]
    return start, end, ticks


def _nice(raw: float) -> float:
    exponent = math.floor(math.log10(raw)) if raw > 0 else 0
    base = raw / 10 ** exponent
    for nice in (1.0, 2.0, 2.5, 5.0, 10.0):
        if base <= nice:
            return nice * 10 ** exponent
    return 10.0 ** (exponent + 1)
