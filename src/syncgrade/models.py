"""The grade report: the one data structure every renderer and platform adapter reads.

Immutable pydantic models with a ``schema_version``. A learner failure is data here; only
a grader fault raises. Check ids are the public ones from the curriculum contract.

What a report's ``status`` means (``cause`` says why, in one machine-readable word):

- ``passed``: every check passed; full marks.
- ``failed``: graded, short of full marks. Everything the learner can fix lands here,
  including a file that does not parse (``syntax_error``), an empty or unreadable file
  (``unreadable``), a time, memory, CPU or output limit hit by the learner's code, a crash,
  and code that tampered with the grader (``tampered``, never any points).
- ``error``: the grader itself failed (``cause == "grader_fault"``); no verdict on the
  learner, zero points, ``grading.internal_error`` says what broke. Retry or report it.

The models enforce that these cannot contradict: a passed check earns all its points and
any other none; ``score`` and ``max_score`` are the sums of the checks' points and
``max_points``; ``status`` is ``passed`` exactly when the report has full marks, which
only cause ``graded`` can have, and ``error`` exactly when the cause is ``grader_fault``.
So a run that timed out or crashed never has full marks: its ``runs`` check fails.

Schema versions are ``MAJOR.MINOR``. A new optional field bumps MINOR; removing or
renaming a field, changing a type, or adding a value to an enumeration (``status``,
``cause``, ``visibility``) bumps MAJOR. Reports are validated with ``extra="forbid"``:
syncgrade rejects unknown fields and another MAJOR version; see docs/platforms.md for
what other consumers should do.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = "2.2"

CheckStatus = Literal["passed", "failed", "skipped"]
ReportStatus = Literal["passed", "failed", "error"]
Cause = Literal[
    "graded",         # the checks ran on what the code returned
    "syntax_error",   # Python could not parse the file
    "unreadable",     # empty, binary or not UTF-8: nothing to run
    "timeout",        # the learner's code hit the wall-clock limit
    "memory_limit",   # ... the memory limit
    "cpu_limit",      # ... the CPU-time limit
    "output_limit",   # ... the cap on results, trace events or output
    "crashed",        # the process running the code died or exited early
    "tampered",       # the code altered or reached into the grader: nothing trusted
    "grader_fault",   # the grader itself failed (status "error")
]
Visibility = Literal["visible", "hidden", "after_due_date"]


BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069\u2028\u2029")
"""Characters that reorder or break the text around them where they are shown (bidi
embeddings, overrides, isolates and marks, line and paragraph separators): "Trojan
source" in a quoted line, or a message that reads backwards."""


def _shown(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the control picture: ESC is "␛", CR is "␍"
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"\\u{code:04x}"  # C1 controls and bidi characters, as Python writes them


def inert(text: str) -> str:
    """``text`` with every character that would act instead of being shown made visible:
    C0 and C1 control characters but newline and tab (an ANSI escape that clears the
    screen shows as "␛[2J"; a carriage return as "␍", after "\\r\\n" became "\\n") and
    the :data:`BIDI_CONTROLS` (as ``\\u202e``). Idempotent: what it writes acts on
    nothing. Every string of a report goes through it (:class:`_Frozen`), so no renderer,
    terminal, page or platform obeys what a learner's output, exception or names hold."""
    if text.isprintable() or not _ACTING.search(text):  # C loops: a 64 KiB excerpt
        return text
    return _ACTING.sub(lambda match: _shown(match.group()), text.replace("\r\n", "\n"))


def quoted_line(source_lines: Sequence[str] | None, line: int | None) -> str:
    """The learner's own line ``line`` (1-based) of ``source_lines``, stripped and
    :func:`inert`, as every renderer quotes it beside a report; ``""`` when there is no
    such line. The lines ride beside the report, not in it, so they are made inert here."""
    if not line or not source_lines or not 0 < line <= len(source_lines):
        return ""
    return inert(source_lines[line - 1].strip())


_ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f"
                     + "".join(sorted(BIDI_CONTROLS)) + "]")
"""Every character :func:`inert` shows: C0 but newline (0x0a) and tab (0x09), DEL, C1,
and the :data:`BIDI_CONTROLS`."""


def _inert_value(value: Any) -> Any:
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, list | tuple):
        return type(value)(_inert_value(item) for item in value)
    if isinstance(value, dict):
        return {inert(k) if isinstance(k, str) else k: _inert_value(v)
                for k, v in value.items()}
    return value


class _Frozen(BaseModel):
    """Every model of a report: immutable, no unknown field, and inert text.

    Every string field (in lists and dicts too) goes through :func:`inert` when a model
    is made, and a model nested in another is validated again when the outer one is made
    (``revalidate_instances``), so a check changed with ``model_copy(update=...)`` is made
    inert as the report is assembled."""

    model_config = ConfigDict(frozen=True, extra="forbid", revalidate_instances="always")

    @field_validator("*", mode="before")
    @classmethod
    def _inert(cls, value: Any) -> Any:
        return _inert_value(value)


class TimelineEntry(_Frozen):
    """One event of a learner interval, in order, for the picture of what the timer saw."""

    what: str = Field(description="timer start, call, wait, placement, compile, timer stop…")
    detail: str = ""
    line: int | None = Field(None, description="the learner's line, when the event is theirs")
    note: str = Field("", description="why this event matters to the check")


class Timeline(_Frozen):
    """The learner's first offending interval, drawn from their own code."""

    file: str
    entries: list[TimelineEntry]
    seconds: float | None = None
    ready_at_stop: bool | None = Field(
        None, description="were the timed outputs complete when the timer stopped?"
    )


class PictureEvent(_Frozen):
    """One event of the host lane of an interval picture, in the order it happened.

    ``label``, ``detail`` and ``note`` are the words of the text timeline's entry for the
    same event (:class:`TimelineEntry` ``what``, ``detail`` and ``note``)."""

    kind: str = Field(description="timer start, timer stop, call, compile, placement, wait, "
                      "readback, clock read, print, sleep, eager, host callback, host work (the "
                      "interval's unexplained host CPU time, as a segment of its own), or gap "
                      "(events left out of the picture)")
    label: str = Field(description="the text timeline's `what` for this event")
    detail: str = ""
    line: int | None = Field(None, description="the learner's line, when the event is theirs")
    note: str = Field("", description="the text timeline's note for this event")
    seconds: float | None = Field(
        None, description="clock reads only: measured seconds from the start read; every "
        "other event has no time and is placed by order only")
    after_stop: bool = Field(False, description="happened after the timer stopped")


class DeviceWork(_Frozen):
    """A call's work on the device lane: from its dispatch to the moment it was known to be
    ready. Never a duration: only which host events bound it."""

    dispatched_at: int = Field(description="index in `host` of the call that dispatched it")
    ready_at: int | None = Field(
        None, description="index in `host` of the event at which it was known ready (a wait "
        "that returned, or the stop read with a readiness record); none when not known")
    state: str = Field(description="`ready`, `still running at the stop` (the output was "
                       "not ready at the stop read), or `not known`")
    known_by: str = Field("", description="how readiness is known, in words")
    timed: bool = Field(description="the timed call (the interval's last call)")
    label: str = ""


class FlawMark(_Frozen):
    """Where the picture marks the flaw, with the text timeline's words for it."""

    at: int = Field(description="index in `host` of the event the flaw is at")
    lane: str = Field(description="host, device or measurement")
    words: str = Field(description="the text timeline's note at that event")


class IntervalPicture(_Frozen):
    """The interval as data, for drawing it: the host lane's events in order, the device
    lane's work, the measured interval and the flaw marks. Only clock reads have measured
    times; everything else is placed by order only."""

    file: str
    host: list[PictureEvent]
    device: list[DeviceWork] = []
    start: int = Field(0, description="index in `host` of the start read")
    stop: int = Field(description="index in `host` of the stop read")
    seconds: float | None = Field(None, description="the measured interval, in seconds")
    ready_at_stop: bool | None = None
    flaws: list[FlawMark] = []


class AnswerPicture(_Frozen):
    """A concept answer (exercise-2) as data for a picture, drawn against the snippet it is
    about: the snippet's lines as the learner reads them, the two that read the clock, and
    the phases the learner said its interval waits for. Never the answer key: a wrong
    answer is marked as a whole, in the check message's words."""

    snippet: str = Field(description="the snippet's name, e.g. `A`")
    lines: list[str] = Field(description="the snippet's code, line by line, as the stub "
                             "shows it")
    start: int = Field(description="index in `lines` of the line that starts the timer")
    stop: int = Field(description="index in `lines` of the line that stops the timer")
    answer: list[str] = Field(description="the phases the learner listed")
    verdict: str = Field("", description="what is wrong with the answer, in the check "
                         "message's words; empty when it matches")


class Evidence(_Frozen):
    """What a check saw. Never contains hidden inputs or expected values."""

    facts: dict[str, str | int | float | bool | None] = {}
    timeline: Timeline | None = None
    interval: IntervalPicture | None = Field(
        None, description="the same interval as `timeline`, as data for a picture (2.1)")
    answer: AnswerPicture | None = Field(
        None, description="a concept answer against its snippet, for a picture (2.2)")
    samples: dict[str, list[float]] | None = Field(
        None, description="the learner's own reported samples (seconds) by field name, "
        "at most 100 of each, for a picture of their distributions (2.1)")


class CheckResult(_Frozen):
    id: str = Field(description="stable check id from EXERCISES.md")
    title: str
    status: CheckStatus
    points: float
    max_points: float
    message: str = Field(description="what happened, kind and specific")
    hint: str = Field("", description="what to change (empty when passed)")
    evidence: Evidence = Evidence()
    visibility: Visibility = Field(
        "visible", description="who may see this check's details: `visible` to learners "
        "now, `hidden` (pass/fail and a learner-safe hint only), or `after_due_date`")
    follows: list[str] = Field(
        [], description="the failed checks, shown above or below this one (the checks keep "
        "the exercise's order), that this one fails only because of: fixing them is known "
        "to fix it, and its `hint` says so and where they are (2.2)")
    same_interval_as: str | None = Field(
        None, description="a failed check shown above whose drawing of the same interval "
        "every format shows; this check refers to it instead of drawing it again (2.2)")

    @model_validator(mode="after")
    def _points_match_status(self) -> CheckResult:
        if not (math.isfinite(self.points) and math.isfinite(self.max_points)):
            raise ValueError(f"check {self.id}: points and max_points must be finite")
        if self.max_points < 0:
            raise ValueError(f"check {self.id}: max_points {self.max_points} is negative")
        earned = self.max_points if self.status == "passed" else 0.0
        if not same_points(self.points, earned):
            raise ValueError(f"check {self.id} is {self.status} but has {self.points} of "
                             f"{self.max_points} points (a passed check earns all its "
                             "points, any other none)")
        return self


POINTS_TOLERANCE = 1e-9
"""How far two point totals may differ from float rounding and still be the same."""


def same_points(a: float, b: float) -> bool:
    """Whether two point totals are equal up to float rounding."""
    return math.isclose(a, b, rel_tol=POINTS_TOLERANCE, abs_tol=POINTS_TOLERANCE)


class StreamExcerpt(_Frozen):
    text: str
    truncated: bool
    total_bytes: int


class Provenance(_Frozen):
    syncgrade_version: str
    rubric_version: str
    python_version: str | None = None
    jax_version: str | None = None
    jaxlib_version: str | None = None
    numpy_version: str | None = None
    backend: str | None = None
    device: str | None = None


class Protection(_Frozen):
    name: str
    applied: bool
    detail: str = ""


class GradingInfo(_Frozen):
    """How the grading itself went: time taken, limits, the sandbox's protections."""

    seconds: float
    timeout_s: float
    termination: str = "exited"
    protections: list[Protection] = []
    tampered: list[str] = Field([], description="grader hooks the submission replaced")
    internal_error: str | None = Field(None, description="set only when the grader failed")


class GradeReport(_Frozen):
    schema_version: str = Field(description="MAJOR.MINOR of this schema; required, and a "
                                "reader rejects another MAJOR")
    exercise: str
    title: str
    submission: str = Field(description="the graded file as the learner named it (the "
                            "API's display_name): never a platform's path")
    status: ReportStatus = Field(description="passed: full marks; failed: graded, not full "
                                 "marks (learner-fixable, see cause); error: the grader "
                                 "failed, no verdict")
    cause: Cause = Field(description="why the report has this status, in one word")
    score: float
    max_score: float
    summary: str
    checks: list[CheckResult] = Field(description="in the exercise's order, the same in "
                                      "every grade of the exercise whatever failed")
    stdout: StreamExcerpt
    stderr: StreamExcerpt
    grading: GradingInfo
    provenance: Provenance

    @field_validator("schema_version")
    @classmethod
    def _same_major(cls, version: str) -> str:
        major = SCHEMA_VERSION.split(".")[0]
        # MAJOR.MINOR exactly ("2" or "2.x" is no version), as the published schema's pattern.
        head, dot, minor = version.partition(".")
        if head != major or not (dot and minor.isascii() and minor.isdigit()):
            raise ValueError(f"schema_version {version!r} is not readable by this syncgrade "
                             f"(it reads {major}.x)")
        return version

    @model_validator(mode="after")
    def _consistent(self) -> GradeReport:
        """Score, status and cause cannot contradict each other (see the module doc)."""
        if not (math.isfinite(self.score) and math.isfinite(self.max_score)):
            raise ValueError("score and max_score must be finite")
        if not same_points(self.score, sum(c.points for c in self.checks)):
            raise ValueError(f"score {self.score} is not the sum of the checks' points")
        if not same_points(self.max_score, sum(c.max_points for c in self.checks)):
            raise ValueError(f"max_score {self.max_score} is not the sum of the checks' "
                             "max_points")
        if self.score > self.max_score and not same_points(self.score, self.max_score):
            raise ValueError(f"score {self.score} is above max_score {self.max_score}")
        full = same_points(self.score, self.max_score)
        if (self.status == "passed") != full or (full and self.cause != "graded"):
            raise ValueError(f"status {self.status!r} contradicts {self.score:g}/"
                             f"{self.max_score:g} with cause {self.cause!r}: `passed` is "
                             "exactly full marks, and full marks only with cause `graded`")
        if (self.status == "error") != (self.cause == "grader_fault"):
            raise ValueError(f"status {self.status!r} contradicts cause {self.cause!r}: "
                             "`error` is exactly cause `grader_fault`")
        if self.status == "error" and self.score != 0:
            raise ValueError("a report of a grader fault has no points")
        return self

    def check(self, check_id: str) -> CheckResult:
        for result in self.checks:
            if result.id == check_id:
                return result
        raise KeyError(check_id)

    def _repr_html_(self) -> str | None:
        """The report as HTML for Jupyter and Colab, drawn by the renderer
        :mod:`syncgrade.picture.html` registers when it is imported (``syncgrade.grade``
        and :mod:`syncgrade.notebook` import it); ``None`` (plain text) before that. The
        models never import a renderer: renderers are leaves above them."""
        return HTML_RENDERERS[-1](self) if HTML_RENDERERS else None


HTML_RENDERERS: list[Callable[[GradeReport], str]] = []
"""Renderers of a report as an HTML fragment, registered by the renderer modules
(:func:`register_html_renderer`); the last one registered draws ``_repr_html_``."""


def register_html_renderer(render: Callable[[GradeReport], str]) -> None:
    """Make ``render`` draw :meth:`GradeReport._repr_html_` (idempotent)."""
    if render not in HTML_RENDERERS:
        HTML_RENDERERS.append(render)
