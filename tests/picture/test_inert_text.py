"""Text reports are inert (issue 33 item 7): what a learner's code printed, raised or named
reaches a terminal, a page or a platform with its control characters shown, never obeyed.

An ANSI escape that clears the screen and prints "All checks passed", a carriage return
that overwrites "NOT YET", a right-to-left override that reverses a quoted line: each is
made visible by the report model itself (:func:`syncgrade.models.inert`), so every
renderer inherits it; the learner's lines quoted beside a report go through
:func:`syncgrade.models.quoted_line`. ``grade watch`` shows the same text: its test
(tests/cli/test_watch.py) grades a file that prints an escape."""

from __future__ import annotations

import json

from syncgrade.models import (
    BIDI_CONTROLS,
    SCHEMA_VERSION,
    CheckResult,
    Evidence,
    GradeReport,
    GradingInfo,
    Provenance,
    StreamExcerpt,
    Timeline,
    TimelineEntry,
    inert,
    quoted_line,
)
from syncgrade.picture import render_html
from syncgrade.platforms.output import format_report
from syncgrade.render import render

CLEAR = "\x1b[2J\x1b[H"
FORGED = f"{CLEAR}\x1b[32mPASSED\x1b[0m All checks passed\r\x07"
REVERSED = "x = 1  # \u202e\u2066 ;)(tixe.sys\u2069"
NAME = "fn\u202eevil\x1b]0;title\x07"


def _acting(text: str) -> list[str]:
    """The characters of ``text`` a terminal or a browser would act on."""
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t")
            or 0x7F <= ord(c) < 0xA0 or c in BIDI_CONTROLS]


def _report() -> GradeReport:
    """A failed report whose every learner-controlled string holds controls, one of its
    checks changed after it was made (``model_copy`` does not validate)."""
    timeline = Timeline(file=f"sub{CLEAR}.py", seconds=1e-3, entries=[
        TimelineEntry(what="timer start", line=1),
        TimelineEntry(what="call", detail=f"{NAME}(...)", line=2, note=FORGED),
        TimelineEntry(what="timer stop", line=3)])
    crashed = CheckResult(id="runs", title="runs", status="failed", points=0, max_points=1,
                          message="Your code raised.", hint="Fix it.",
                          evidence=Evidence(timeline=timeline, facts={"name": NAME}))
    crashed = crashed.model_copy(update={"message": f"Your code raised ValueError: {FORGED}"})
    printed = StreamExcerpt(text=f"debug\r\n{FORGED}\n{REVERSED}\n", truncated=False,
                            total_bytes=80)
    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise="exercise-1", title="t",
        submission=f"{NAME}.py", status="failed", cause="graded", score=0, max_score=1,
        summary="1 of 1 checks failed.", checks=[crashed], stdout=printed,
        stderr=StreamExcerpt(text=f"Traceback\n{FORGED}\n", truncated=False,
                             total_bytes=40),
        grading=GradingInfo(seconds=1.0, timeout_s=60.0, tampered=[NAME]),
        provenance=Provenance(syncgrade_version="0", rubric_version="1"))


SOURCE = [f"start = time.perf_counter()  {CLEAR}", REVERSED, "stop = time.perf_counter()"]


def test_inert_shows_every_acting_character_and_keeps_lines_and_tabs() -> None:
    assert inert("a\tb\nc") == "a\tb\nc"
    assert inert(CLEAR) == "␛[2J␛[H"
    assert inert("50%\r\n") == "50%\n" and inert("50%\rdone") == "50%␍done"
    assert inert("\x9b2J\x7f") == "\\u009b2J␡"
    assert inert(REVERSED) == "x = 1  # \\u202e\\u2066 ;)(tixe.sys\\u2069"
    for text in (FORGED, REVERSED, NAME, "".join(map(chr, range(0x100)))):
        assert _acting(inert(text)) == []
        assert inert(inert(text)) == inert(text)  # idempotent


def test_every_string_of_a_report_is_inert_however_it_was_made() -> None:
    report = _report()
    assert _acting(report.model_dump_json()) == []
    assert "\\u001b" not in report.model_dump_json()  # no escape left for a JSON reader
    assert report.checks[0].message.startswith("Your code raised ValueError: ␛[2J")
    assert GradeReport.model_validate_json(report.model_dump_json()) == report


def test_the_terminal_view_shows_the_escapes_and_keeps_its_own_colour() -> None:
    report = _report()
    plain = render(report, SOURCE, width=100)
    assert _acting(plain) == []
    assert "␛[2J␛[H␛[32mPASSED␛[0m All checks passed␍␇" in plain
    assert "x = 1  # \\u202e\\u2066 ;)(tixe.sys\\u2069" in plain  # quoted and printed
    coloured = render(report, SOURCE, colour=True, width=100)
    # The only escapes are the view's own colours (SGR, reset after each).
    assert "\x1b[2J" not in coloured and "\x1b[H" not in coloured and "\r" not in coloured
    assert {c for c in _acting(coloured)} == {"\x1b"}


def test_the_page_and_platforms_show_the_escapes() -> None:
    report = _report()
    page = render_html(report, source_lines=SOURCE)
    assert _acting(page.replace("\n", "")) == []
    assert "\\u202e" in page and "␛[2J" in page
    for fmt in ("gradescope", "prairielearn", "exercism"):
        text = format_report(report, fmt, reveal=True, source_lines=SOURCE, html=fmt != "exercism")
        assert _acting(json.dumps(json.loads(text), ensure_ascii=False)) == [], fmt


def test_a_quoted_line_is_inert() -> None:
    assert quoted_line(SOURCE, 2) == inert(REVERSED)
    assert quoted_line(SOURCE, 1).endswith("␛[2J␛[H")
    assert quoted_line(SOURCE, 4) == quoted_line(None, 1) == quoted_line(SOURCE, 0) == ""
