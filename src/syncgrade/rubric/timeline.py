"""Draw a learner interval as a timeline of their own lines: the lesson's picture."""

from __future__ import annotations

from syncgrade.analysis import Analysis, Interval
from syncgrade.models import Timeline, TimelineEntry
from syncgrade.trace import Call, Compile, Event, Placement, Site, TimerRead, Wait

MAX_INSIDE = 24
"""Entries drawn between start and stop; a longer interval keeps its first and last ones
(a report must stay small however many events a learner's interval holds)."""


def _line(site: Site, file: str) -> int | None:
    """The learner's line of ``site``; none for a site outside the learner's ``file``
    (a timeline names the learner's own lines only)."""
    return site[1] if site and site[0] == file else None


def _entry(event: Event, interval: Interval, file: str) -> TimelineEntry | None:
    if isinstance(event, Call):
        what = "call" if not event.numpy_args else "call with NumPy arguments"
        note = "NumPy data is copied to the device here" if event.numpy_args else ""
        return TimelineEntry(what=what, detail=f"{event.name}(...) dispatched",
                             line=_line(event.site, file), note=note)
    if isinstance(event, Wait):
        on_output = event in interval.waits_on_timed_output()
        return TimelineEntry(
            what="wait", detail=event.how, line=_line(event.site, file),
            note="waits for the timed output" if on_output
            else "waits, but not on the timed output",
        )
    if isinstance(event, Placement):
        return TimelineEntry(what="placement", detail="jax.device_put",
                             line=_line(event.site, file),
                             note="the inputs move to the device here")
    if isinstance(event, Compile):
        return TimelineEntry(what="compile", detail=event.event.replace("_", " "),
                             line=_line(event.site, file), note="the function compiles here")
    if isinstance(event, TimerRead):
        return TimelineEntry(what="clock read", detail=event.clock, line=_line(event.site, file))
    return None


def draw(interval: Interval, analysis: Analysis, file: str) -> Timeline:
    """The interval's events in order, then where a late wait happened, if any."""
    entries = [TimelineEntry(what="timer start", detail=interval.start.clock,
                             line=_line(interval.start.site, file))]
    compiles_seen = False
    inside: list[TimelineEntry] = []
    for event in interval.inside:
        if isinstance(event, Compile):
            if compiles_seen:
                continue  # one compile line is enough; jax reports several stages
            compiles_seen = True
        entry = _entry(event, interval, file)
        if entry is not None:
            inside.append(entry)
    entries.extend(_shortened(inside))
    ready = interval.ready_at_stop
    stop_note = ""
    if ready is False:
        stop_note = "the timed work was still running when the timer stopped"
    elif ready:
        stop_note = "the timed work was complete"
    entries.append(TimelineEntry(what="timer stop", detail=interval.stop.clock,
                                 line=_line(interval.stop.site, file), note=stop_note))
    late = _late_wait(interval, analysis)
    if late is not None:
        entries.append(TimelineEntry(what="wait", detail=late.how, line=_line(late.site, file),
                                     note="this wait came after the timer stopped"))
    return Timeline(file=file, entries=entries, seconds=interval.seconds, ready_at_stop=ready)


def _shortened(entries: list[TimelineEntry]) -> list[TimelineEntry]:
    """At most :data:`MAX_INSIDE` entries: the first two thirds and the last third, with
    one entry that says how many were left out."""
    if len(entries) <= MAX_INSIDE:
        return entries
    head, tail = MAX_INSIDE * 2 // 3, MAX_INSIDE // 3
    skipped = len(entries) - head - tail
    gap = TimelineEntry(what="...", detail=f"{skipped} more events", line=None,
                        note="left out of this picture")
    return [*entries[:head], gap, *entries[-tail:]]


def _late_wait(interval: Interval, analysis: Analysis) -> Wait | None:
    if not interval.calls:
        return None
    outputs = set(interval.calls[-1].outputs)
    for event in analysis.events:
        if event.seq <= interval.stop.seq:
            continue
        if isinstance(event, TimerRead):
            return None  # the next interval began: no late wait for this one
        if isinstance(event, Wait) and outputs.intersection(event.arrays):
            return event
    return None
