"""Checks on the pictures of a real report (issue 27), read from the SVG the HTML report
holds, so they hold for whatever a grade produced:

- no label is cut: no text is shortened with an ellipsis, every row of an event's words fits
  the room its neighbours leave it (``data-room``), and no text runs out of its picture,
  all measured with the layout's own font model (:mod:`syncgrade.picture.fonts`, a wide
  face: a browser's narrower one only leaves more room; the browser test measures too);
- no event is drawn before its cause: a call's own compilation (same line) comes before
  the call, and each call's device work starts at or after its dispatch, never left of a
  compilation of its line;
- every picture of up to :data:`FIT_EVENTS` host events fits a report page in a
  1200-pixel window at its natural width; a longer interval (a whole loop timed as one,
  24 events and a gap) is scaled down by the page to fit (``max-width: 100%``, checked in
  the browser test).

tests/courses/test_corpus.py runs :func:`assert_pictures_sound` on every flawed corpus
file it grades, tests/picture/test_picture_report.py on every exercise's stub.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from syncgrade.models import GradeReport
from syncgrade.picture import render_html
from syncgrade.picture import svg as layout
from syncgrade.picture.answer import code_width
from syncgrade.picture.fonts import text_width

SVG = "{http://www.w3.org/2000/svg}"
FIT = 1200.0 - 2 * 60  # a 1200-pixel window less the page's and the card's margins
FIT_EVENTS = int((FIT - layout.FIRST_X - layout.STOP_ROOM * layout.STEP
                  - layout.COLUMN / 2 - layout.RIGHT) // layout.STEP) + 1
"""The most events a picture fits in :data:`FIT` with, from the layout's own constants:
the first at ``FIRST_X``, one every ``STEP`` (the least that keeps two events'
words apart), ``STOP_ROOM`` after the stop when events follow it, half a column for the
last one's words and the right margin (8 with today's constants). It was once set by
eye at 10, then 9: exercise-1's ``background_busy_thread`` draws as many events as its
busy thread read the clock inside the interval, and drew 9 with some after the stop,
1,089 pixels: the layout was right, the bound counted without that room."""
BOLD = ("sg-strong", "sg-lane-label", "sg-flaw-words", "sg-event-label")


def pictures(report: GradeReport, *, passing: bool = False) -> list[ET.Element]:
    """Every SVG of the report's HTML page, parsed (well-formed XML, or this fails)."""
    page = render_html(report, passing=passing)
    out, at = [], 0
    while (at := page.find("<svg ", at)) >= 0:
        end = page.index("</svg>", at) + len("</svg>")
        out.append(ET.fromstring(page[at:end]))
        at = end
    return out


def _classes(node: ET.Element) -> set[str]:
    return set((node.get("class") or "").split())


def _row_width(text: str, classes: set[str]) -> float:
    if "sg-code" in classes:
        return code_width(text)
    size = layout.SMALL_SIZE if "sg-small" in classes else layout.LABEL_SIZE
    return text_width(text, size, bold=bool(classes & set(BOLD)))


def _rows(node: ET.Element) -> list[tuple[str, float]]:
    """(text, x) of each row a <text> draws: its tspans, or itself."""
    spans = list(node.iter(f"{SVG}tspan"))
    if spans:
        return [("".join(s.itertext()), float(s.get("x") or node.get("x") or 0)) for s in spans]
    return [("".join(node.itertext()), float(node.get("x") or 0))]


def assert_no_text_cut_or_outside(svg: ET.Element, where: str) -> None:
    width = float((svg.get("viewBox") or "0 0 0 0").split()[2])
    for node in svg.iter(f"{SVG}text"):
        classes = _classes(node)
        anchor = node.get("text-anchor") or "start"
        for text, x in _rows(node):
            assert "…" not in text, f"{where}: a cut label: {text!r}"
            w = _row_width(text, classes)
            left = x - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
            assert left >= -0.5 and left + w <= width + 0.5, (
                f"{where}: {text!r} runs out of its {width:.0f}-pixel picture "
                f"({left:.0f} to {left + w:.0f})")


def assert_event_words_fit(svg: ET.Element, where: str) -> None:
    for event in svg.iter(f"{SVG}g"):
        if "sg-event" not in _classes(event):
            continue
        room = float(event.get("data-room") or 0)
        for node in event.iter(f"{SVG}text"):
            for text, _ in _rows(node):
                w = _row_width(text, _classes(node))
                assert w <= room + 0.5, (
                    f"{where}: {text!r} ({w:.0f} px) is wider than the {room:.0f} px its "
                    "neighbours leave it")


def assert_causal_order(svg: ET.Element, where: str) -> None:
    """A call's own compilation (the same line) is drawn right before the call, never
    right after it, and the call's device work starts at its dispatch: after both."""
    events = {int(g.get("data-index") or 0): g for g in svg.iter(f"{SVG}g")
              if "sg-event" in _classes(g)}
    for work in svg.iter(f"{SVG}g"):
        if "sg-device-work" not in _classes(work):
            continue
        at = int(work.get("data-dispatched") or 0)
        call, line = events[at], events[at].get("data-line")
        x0 = float(work.get("data-x") or 0)
        assert call.get("data-kind") == "call", f"{where}: device work not at a call"
        assert float(call.get("data-x") or 0) <= x0 + 0.05, (
            f"{where}: the device work of line {line} starts before its dispatch")
        after = events.get(at + 1)
        assert not (after is not None and after.get("data-kind") == "compile"
                    and after.get("data-line") == line), (
            f"{where}: the call on line {line} is drawn before the compilation it waits for")
        before = events.get(at - 1)
        if before is not None and before.get("data-kind") == "compile":
            assert float(before.get("data-x") or 0) < x0, (
                f"{where}: the device work of line {line} starts before its compilation")


def assert_pictures_sound(report: GradeReport, *, passing: bool = False) -> int:
    """Every picture of ``report``'s page: no label cut or outside its picture, no event
    before its cause, and (up to :data:`FIT_EVENTS` events) a natural width that fits a
    1200-pixel window. Returns how many pictures were checked."""
    drawn = pictures(report, passing=passing)
    for n, svg in enumerate(drawn):
        where = f"{report.exercise} {report.submission}, picture {n + 1} ({svg.get('id')})"
        assert_no_text_cut_or_outside(svg, where)
        assert_event_words_fit(svg, where)
        assert_causal_order(svg, where)
        width = float((svg.get("viewBox") or "0 0 0 0").split()[2])
        events = sum(1 for g in svg.iter(f"{SVG}g") if "sg-event" in _classes(g))
        assert width <= FIT or events > FIT_EVENTS, (
            f"{where}: {width:.0f} pixels wide, more than {FIT:.0f}")
    return len(drawn)
