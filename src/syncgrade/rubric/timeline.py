"""Draw a learner interval as a timeline of their own lines: the lesson's picture.

:func:`draw` gives the text timeline; :func:`picture` gives the same interval as data
(:class:`~syncgrade.models.IntervalPicture`: host lane, device lane, measured interval,
flaw marks) for :mod:`syncgrade.picture` to draw. Both come from one walk over the
interval (:func:`_walk`), so the picture's labels and notes are the text timeline's words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from dataclasses import dataclass

from syncgrade.analysis import (
    CPU_CLOCKS,
    NS_CLOCKS,
    Analysis,
    Interval,
    waits_on_output,
)
from syncgrade.models import (
    DeviceWork,
    Evidence,
    FlawMark,
    IntervalPicture,
    PictureEvent,
    Timeline,
    TimelineEntry,
)
from syncgrade.protocol import JAX_OWN_CONVERSION
from syncgrade.trace import (
    READBACK_WAYS,
    Call,
    Compile,
    Eager,
    Event,
    HostCallback,
    Placement,
    Return,
    Site,
    Sleep,
    TimerRead,
    Wait,
    Write,
)

MAX_INSIDE = 24
"""Entries drawn between start and stop; a longer interval keeps its first and last ones
(a report must stay small however many events a learner's interval holds)."""

STILL_RUNNING = "the timed work was still running when the timer stopped"
LATE_WAIT = "this wait came after the timer stopped"
OTHER_WAIT = "waits, but not on the timed output"
COMPILES = "the function compiles here"
PLACES = "the inputs move to the device here"
COPIES = "NumPy data is copied to the device here"
HOST_WORK = "your own host work, timed too"
UNEXPLAINED = "host CPU time that is neither the timed call nor its wait"
LATE_READBACK = "the result comes back to the host only after the timer stopped"
NO_READBACK = "the result is not brought back to the host before the timer stops"


def _line(site: Site, file: str) -> int | None:
    """The learner's line of ``site``; none for a site outside the learner's ``file``
    (a timeline names the learner's own lines only)."""
    return site[1] if site and site[0] == file else None


Namer = Callable[[Call], str]
"""How the learner's code names a call's callable (``"fn"``), ``""`` when it has none."""


def _trace_name(event: Call) -> str:
    return event.name


@dataclass(frozen=True)
class _Marked:
    """The sequence numbers of an interval's events that its timeline marks, found once
    per interval (testing each event against the interval's lists again made drawing an
    interval of a few thousand events take seconds)."""

    waits_on_output: frozenset[int]
    host_work: frozenset[int]

    @classmethod
    def of(cls, interval: Interval) -> _Marked:
        return cls(frozenset(w.seq for w in interval.waits_on_timed_output()),
                   frozenset(e.seq for e in interval.host_activity()))


def _entry(event: Event, marked: _Marked, file: str,
           name: Namer = _trace_name) -> TimelineEntry | None:
    if isinstance(event, Call):
        what = "call" if not event.numpy_args else "call with NumPy arguments"
        note = COPIES if event.numpy_args else ""
        called = name(event)
        return TimelineEntry(what=what, detail=f"{called}(...) dispatched" if called
                             else "the timed function, dispatched",
                             line=_line(event.site, file), note=note)
    if isinstance(event, Wait):
        if event.how == JAX_OWN_CONVERSION:
            return None  # explained CPU time, but no wait of the learner's to draw
        on_output = event.seq in marked.waits_on_output
        return TimelineEntry(
            what="wait", detail=event.how, line=_line(event.site, file),
            note="waits for the timed output" if on_output
            else OTHER_WAIT,
        )
    if isinstance(event, Placement):
        return TimelineEntry(what="placement", detail="jax.device_put",
                             line=_line(event.site, file),
                             note=PLACES)
    if isinstance(event, Compile):
        return TimelineEntry(what="compile", detail=event.event.replace("_", " "),
                             line=_line(event.site, file), note=COMPILES)
    if isinstance(event, TimerRead):
        return TimelineEntry(what="clock read", detail=event.clock, line=_line(event.site, file))
    if isinstance(event, HostCallback) and event.seq in marked.host_work:
        return TimelineEntry(what="host callback", detail="Python on the host, inside the call",
                             line=event.line or _line(event.site, file), note=HOST_WORK)
    if isinstance(event, (Write, Sleep, Eager)) and event.seq in marked.host_work:
        what, detail = (("print", f"writes to {event.stream}") if isinstance(event, Write)
                        else ("sleep", "time.sleep") if isinstance(event, Sleep)
                        else ("eager", f"{event.fun}, outside jit"))
        return TimelineEntry(what=what, detail=detail, line=_line(event.site, file),
                             note=HOST_WORK)
    return None


@dataclass(frozen=True)
class _Step:
    """One entry of the timeline and the trace event it draws (``None``: the gap)."""

    entry: TimelineEntry
    event: Event | None
    kind: str
    after_stop: bool = False
    repeats: int = 1  # the same host work, one right after another, drawn once


FLAW_NOTES = {
    "still running": STILL_RUNNING, "late wait": LATE_WAIT, "other wait": OTHER_WAIT,
    "compile": COMPILES, "placement": PLACES, "numpy arguments": COPIES,
    "host work": HOST_WORK, "unexplained": UNEXPLAINED,
    "late readback": LATE_READBACK, "no readback": NO_READBACK,
}
"""The flaws a picture can mark, by name, each with the text timeline's note for it.
``with_timeline(..., flaws=...)`` names the ones a check is about (default: all)."""

WAITING_FLAWS = ("still running", "late wait", "other wait")
PHASE_FLAWS = {
    "input placement": ("placement", "numpy arguments"), "compilation": ("compile",),
    "device execution": WAITING_FLAWS, "output wait": WAITING_FLAWS,
    "host transfer": ("late readback", "no readback"),
}
"""The flaws that put a phase into an interval or leave it out, by phase name."""
WARM_PHASES = frozenset({"dispatch", "device execution", "output wait"})
"""The default interval (as :data:`syncgrade.rubric.contract.WARM`): one warm call, waited."""
_LANE = {"still running": "device", "late wait": "host", "other wait": "host",
         "compile": "host", "placement": "host", "numpy arguments": "host",
         "host work": "host", "unexplained": "host", "late readback": "host",
         "no readback": "host"}


def _kind(event: Event | None, entry: TimelineEntry) -> str:
    if event is None:
        return entry.what if entry.what in ("host work", "no readback") else "gap"
    if isinstance(event, Wait) and event.how in READBACK_WAYS:
        return "readback"
    if isinstance(event, Call):
        return "call"
    return entry.what


def _walk(interval: Interval, analysis: Analysis, file: str,
          name: Namer = _trace_name, phases: Collection[str] = WARM_PHASES,
          host_cpu: bool = False) -> list[_Step]:
    """The interval's events in order, then where a late wait happened, if any. ``name``:
    how a call's callable is named (default: the name the trace recorded). When
    ``phases`` hold ``host transfer`` and nothing read the timed output back inside, the
    missing readback is a step of its own before the stop (or the late one is named so).
    ``host_cpu``: draw the interval's unexplained host CPU time as a segment of its own
    (``interval-clean``'s drawing of the interval it fails; see :func:`_with_unexplained`)."""
    steps = [_Step(TimelineEntry(what="timer start", detail=interval.start.clock,
                                 line=_line(interval.start.site, file)),
                   interval.start, "timer start")]
    inside = _inside(interval, file, name)
    steps.extend(_shortened(_with_unexplained(interval, inside) if host_cpu else inside,
                           interval))
    late = _late_wait(interval, analysis)
    transfer = ("host transfer" in phases and bool(interval.calls)
                and not interval.readbacks_of_timed_output())
    late_readback = transfer and late is not None and late.how in READBACK_WAYS
    if transfer and not late_readback:
        entry = TimelineEntry(what="no readback", detail="the result stays on the device",
                              line=None, note=NO_READBACK)
        steps.append(_Step(entry, None, "no readback"))
    ready = interval.ready_at_stop
    stop_note = ""
    if ready is False:
        stop_note = STILL_RUNNING
    elif ready:
        stop_note = "the timed work was complete"
    steps.append(_Step(TimelineEntry(what="timer stop", detail=interval.stop.clock,
                                     line=_line(interval.stop.site, file), note=stop_note),
                       interval.stop, "timer stop"))
    if late is not None:
        entry = TimelineEntry(what="readback" if late_readback else "wait", detail=late.how,
                              line=_line(late.site, file),
                              note=LATE_READBACK if late_readback else LATE_WAIT)
        steps.append(_Step(entry, late, _kind(late, entry), after_stop=True))
    return steps


def _inside(interval: Interval, file: str, name: Namer) -> list[_Step]:
    """The steps between the reads, in causal order: a compilation inside a call (between
    the call and its return) is drawn before that call, which dispatches only once it is
    compiled, so no step comes before its cause. The same wait, sleep, eager operation or
    clock read on one line, again and again, is one step that says how many times."""
    compiles_seen = False
    inside: list[_Step] = []
    open_calls: dict[int, int] = {}  # a call's seq -> its step's index, until it returns
    in_callbacks = interval.inside_host_callbacks
    marked = _Marked.of(interval)
    for event in interval.inside:
        if event.seq in in_callbacks:
            continue  # drawn as the host callback it is part of
        if isinstance(event, Return):
            open_calls.pop(event.call, None)
            continue
        if isinstance(event, Compile):
            if compiles_seen:
                continue  # one compile line is enough; jax reports several stages
            compiles_seen = True
        entry = _entry(event, marked, file, name)
        if entry is None or (entry.what == "print" and inside
                             and inside[-1].entry.what == "print"
                             and inside[-1].entry.line == entry.line):
            continue  # one print writes several times: drawn once
        if (inside and isinstance(event, (Wait, Sleep, Eager, TimerRead))
                and inside[-1].entry == entry and entry.note != "waits for the timed output"):
            last = inside[-1]
            inside[-1] = _Step(last.entry, last.event, last.kind, repeats=last.repeats + 1)
            continue
        step = _Step(entry, event, _kind(event, entry))
        if isinstance(event, Compile) and open_calls:
            at = max(open_calls.values())  # the innermost call still running compiles
            inside.insert(at, step)
            open_calls = {seq: i + (i >= at) for seq, i in open_calls.items()}
            continue
        if isinstance(event, Call):
            open_calls[event.seq] = len(inside)
        inside.append(step)
    return _callbacks_in_calls([s if s.repeats == 1 else _Step(
        s.entry.model_copy(update={"detail": f"{s.entry.detail} ({s.repeats} times)"}),
        s.event, s.kind) for s in inside])


def _callbacks_in_calls(steps: list[_Step]) -> list[_Step]:
    """``steps`` with each host callback drawn right after the call it ran inside: a
    call is recorded once it returned, after the callback runs it made inline, but it
    was dispatched first."""
    ordered: list[_Step] = []
    waiting: list[_Step] = []
    for step in steps:
        if isinstance(step.event, HostCallback):
            waiting.append(step)
            continue
        ordered.append(step)
        if isinstance(step.event, Call):
            ordered += waiting
            waiting = []
    return ordered + waiting


def _with_unexplained(interval: Interval, inside: list[_Step]) -> list[_Step]:
    """``inside`` with the interval's unexplained host CPU time as a segment of its own,
    where most of it went, when it is above the interval's bound. Only ``interval-clean``
    draws it, for the interval it fails: that check judges the bound on the whole list,
    and one interval over it by a loaded machine's noise is no flaw to draw for another
    check."""
    unexplained = interval.unexplained_cpu_ns
    gap = interval.unexplained_gap()
    if unexplained is None or not interval.over_cpu_bound or gap is None:
        return inside
    whose = "your code's threads" if interval.threads_did_most else "your code"
    entry = TimelineEntry(what="host work",
                          detail=f"{unexplained / 1e6:.1f} ms of CPU time in {whose}",
                          line=None, note=UNEXPLAINED)
    step = _Step(entry, None, "host work")
    before, after = gap[0], gap[1]
    at = next((i + 1 for i, s in enumerate(inside) if s.event is before),
              next((i for i, s in enumerate(inside) if s.event is after),
                   0 if before is interval.start else len(inside)))
    return [*inside[:at], step, *inside[at:]]


def draw(interval: Interval, analysis: Analysis, file: str) -> Timeline:
    """The interval's events in order, then where a late wait happened, if any."""
    return _timeline(interval, _walk(interval, analysis, file), file)


def _timeline(interval: Interval, steps: list[_Step], file: str) -> Timeline:
    return Timeline(file=file, entries=[s.entry for s in steps], seconds=interval.seconds,
                    ready_at_stop=interval.ready_at_stop)


def draw_both(interval: Interval, analysis: Analysis, file: str,
              flaws: Collection[str] | None = None,
              phases: Collection[str] = WARM_PHASES,
              name: Namer = _trace_name,
              host_cpu: bool = False) -> tuple[Timeline, IntervalPicture]:
    """The text timeline and the picture of ``interval``, from one walk (see
    :func:`picture` for ``flaws`` and ``phases``; ``name``: how the learner's code names
    a call's callable, for the words of a call and its device work; ``host_cpu``: see
    :func:`_walk`)."""
    steps = _walk(interval, analysis, file, name, phases, host_cpu)
    return (_timeline(interval, steps, file),
            _picture(interval, analysis, steps, file, flaws, phases, name))


def picture(interval: Interval, analysis: Analysis, file: str,
            flaws: Collection[str] | None = None,
            phases: Collection[str] = WARM_PHASES) -> IntervalPicture:
    """The interval as data for a picture (see :class:`~syncgrade.models.IntervalPicture`).

    ``flaws``: which of :data:`FLAW_NOTES` the picture marks; each mark is put at the
    event whose text timeline note it is. By default, every event that contradicts an
    interval of ``phases`` (the measurement contract's phases, :data:`WARM_PHASES` unless
    the exercise declares others): work still running at the stop or waited for after it;
    a wait on another array when nothing waited for the timed output; a compilation
    unless ``compilation`` is declared; a placement or NumPy arguments unless ``input
    placement`` is."""
    return draw_both(interval, analysis, file, flaws, phases)[1]


def _picture(interval: Interval, analysis: Analysis, steps: list[_Step], file: str,
             flaws: Collection[str] | None, phases: Collection[str],
             name: Namer = _trace_name) -> IntervalPicture:
    stop = next(i for i, s in enumerate(steps) if s.event is interval.stop)
    host = [PictureEvent(kind=s.kind, label=s.entry.what, detail=s.entry.detail,
                         line=s.entry.line, note=s.entry.note,
                         seconds=_measured(interval, s.event),
                         after_stop=s.after_stop) for s in steps]
    device = _device(interval, analysis, steps, stop, name)
    if flaws is None:
        flaws = _contradicting(phases, waited=any(w.timed and w.state == "ready"
                                                  for w in device))
    return IntervalPicture(
        file=file, host=host, device=device, start=0, stop=stop, seconds=interval.seconds,
        ready_at_stop=interval.ready_at_stop, flaws=_flaws(steps, flaws))


def _contradicting(phases: Collection[str], waited: bool) -> set[str]:
    """The flaws an interval of ``phases`` cannot have (see :func:`picture`)."""
    flaws = {"still running", "late wait", "host work", "unexplained"}
    if not waited:
        flaws.add("other wait")
    if "compilation" not in phases:
        flaws.add("compile")
    if "input placement" not in phases:
        flaws.update({"placement", "numpy arguments"})
    if "host transfer" in phases:
        flaws.update({"late readback", "no readback"})
    return flaws


def _measured(interval: Interval, event: Event | None) -> float | None:
    """Seconds from the start read, for a clock read of the start's clock family (a CPU
    clock and a wall clock, or float seconds and integer nanoseconds, are no pair)."""
    start = interval.start
    if not isinstance(event, TimerRead) or any(
            (start.clock in family) != (event.clock in family)
            for family in (NS_CLOCKS, CPU_CLOCKS)):
        return None
    if event is start:
        return 0.0
    seconds = Interval(start=start, stop=event, index=interval.index).seconds
    return seconds if math.isfinite(seconds) else None


def _where(steps: list[_Step], event: Event) -> int | None:
    """The index of ``event``'s step; the gap's when the event was left out."""
    gap = None
    for i, step in enumerate(steps):
        if step.event is event:
            return i
        if step.kind == "gap":
            gap = i
    return gap


def _device(interval: Interval, analysis: Analysis, steps: list[_Step],
            stop: int, name: Namer = _trace_name) -> list[DeviceWork]:
    """The work of each call drawn (and of the timed call, the interval's last, even when
    it is in the gap), from its dispatch to the event at which it was known ready."""
    if not interval.calls:
        return []
    last = interval.calls[-1].call
    drawn = [s.event for s in steps if isinstance(s.event, Call) and s.event is not last]
    work: list[DeviceWork] = []
    timed_ready: int | None = None
    for call in [last, *reversed(drawn)]:  # the timed call first: earlier ones lean on it
        at = _where(steps, call)
        if at is None:
            continue
        called = name(call)
        label = f"{called}(...) on the device" if called else "the timed function on the device"
        if call is last:
            state, ready_at, known_by = _timed_state(interval, analysis, steps, stop)
            timed_ready = ready_at if state == "ready" else None
        else:
            own = waits_on_output(analysis.index, call, interval.stop.seq, proven_ready=False)
            ready_at = _where(steps, own[0]) if own else None
            if ready_at is not None:
                state, known_by = "ready", "a wait on its output returned"
            elif timed_ready is not None:
                state, ready_at = "ready", timed_ready
                known_by = "the timed call after it was ready (the device runs calls in order)"
            else:
                state, known_by = "not known", "nothing waited for it"
        work.append(DeviceWork(dispatched_at=at, ready_at=ready_at, state=state,
                               known_by=known_by, timed=call is last, label=label))
    return sorted(work, key=lambda w: w.dispatched_at)


def _timed_state(interval: Interval, analysis: Analysis, steps: list[_Step],
                 stop: int) -> tuple[str, int | None, str]:
    late = next((i for i, s in enumerate(steps) if s.after_stop), None)
    if interval.ready_at_stop is False:
        return ("still running at the stop", late,
                "not ready at the stop read" + ("; a wait after the stop returned later"
                                                if late is not None else ""))
    waited = interval.waits_on_timed_output()
    ready_at = _where(steps, waited[0]) if waited else None
    if ready_at is not None:
        return "ready", ready_at, "a wait on the timed output returned"
    if interval.ready_at_stop:
        return "ready", stop, "found ready at the stop read"
    return "not known", late, "nothing waited for the timed output before the stop"


def _flaws(steps: list[_Step], wanted: Collection[str] | None) -> list[FlawMark]:
    names = list(FLAW_NOTES) if wanted is None else [n for n in FLAW_NOTES if n in wanted]
    marks = []
    for i, step in enumerate(steps):
        for name in names:
            if step.entry.note == FLAW_NOTES[name]:
                marks.append(FlawMark(at=i, lane=_LANE[name], words=step.entry.note))
    return marks


def _shortened(entries: list[_Step], interval: Interval) -> list[_Step]:
    """At most about :data:`MAX_INSIDE` entries, in their order, each run of left-out ones
    replaced by one entry that says how many it stands for.

    What the picture's marks and device lane point at is never left out (a left-out
    timed call would put its device work at a gap): the timed call (the interval's last)
    and a compilation drawn right before it, the first wait on the timed output, the
    unexplained-time segment, and the first entry of each flaw note. The rest of the room
    goes to the first entries and then the last ones, as a reader scans an interval."""
    if len(entries) <= MAX_INSIDE:
        return entries
    keep = _must_keep(entries, interval)
    room = MAX_INSIDE - len(keep)
    others = [i for i in range(len(entries)) if i not in keep]
    head = max(room, 0) * 2 // 3
    keep.update(others[:head])
    tail = max(room, 0) - head
    if tail:
        keep.update(others[-tail:])
    shortened: list[_Step] = []
    skipped = 0
    for i, step in enumerate(entries):
        if i in keep:
            if skipped:
                shortened.append(_gap(skipped))
                skipped = 0
            shortened.append(step)
        else:
            skipped += 1
    if skipped:
        shortened.append(_gap(skipped))
    return shortened


def _must_keep(entries: list[_Step], interval: Interval) -> set[int]:
    """The indices :func:`_shortened` never leaves out (see there)."""
    keep: set[int] = set()
    timed = interval.calls[-1].call if interval.calls else None
    waited = interval.waits_on_timed_output()
    first_wait = waited[0] if waited else None
    notes_seen: set[str] = set()
    for i, step in enumerate(entries):
        if step.event is not None and step.event in (timed, first_wait):
            keep.add(i)
            if step.event is timed and i and entries[i - 1].kind == "compile":
                keep.add(i - 1)
        elif step.event is None:
            keep.add(i)  # the unexplained-time segment
        elif step.entry.note and step.entry.note not in notes_seen:
            notes_seen.add(step.entry.note)
            keep.add(i)
    return keep


def _gap(skipped: int) -> _Step:
    entry = TimelineEntry(what="...", detail=f"{skipped} more events", line=None,
                          note="left out of this picture")
    return _Step(entry, None, "gap")


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


# --------------------------------------------------------------------------- every flaw marked

CHECK_MARKS: dict[str, tuple[str, int, str]] = {
    # By the flaw a check saw (its ``flaw`` fact, :data:`syncgrade.rubric.intervals.FLAWS`):
    # the kind of host event the mark goes at, which one of that kind (0 the first, 1 the
    # second, -1 the last), and the words, the text timeline's note there.
    "jit disabled": ("call", 0, "runs op by op: jit is disabled for this call"),
    "another callable": ("call", 0, "calls another callable than the one handed to you"),
    "host transfer": ("readback", 0, "reads the output back to the host, timed too"),
    "warm-up not waited": ("timer start", 0, "starts before the warm-up's work was waited on"),
    "inputs not ready": ("timer start", 0, "starts before the inputs were known ready"),
    "numpy inputs": ("call", 0, "NumPy inputs: copied to the device inside the call"),
    "input placement": ("call", 0, "its inputs are placed inside the interval"),
    "compilation": ("call", 0, "compiles inside the interval"),
    "no output wait": ("timer stop", 0, "stops before the output was waited on"),
    "result shape": ("call", 0, "returns another shape than the exercise asks for"),
    "host work": ("timer stop", 0, "your own host work is timed too"),
    "call not timed": ("timer start", 0, "no call between this start and its stop"),
    "no readback": ("timer stop", 0, "stops before the output was read back to the host"),
    # By check id, for a check that names no flaw.
    "times-the-call": ("call", 1, "a second call, timed too"),
    "donates-input": ("call", 0, "does not donate its input"),
    "jitted": ("call", 0, "traced and compiled again for this sample"),
    "first-call-includes-compile": ("call", 0, "compiles nothing: already compiled"),
    "placement-included": ("call", 0, "an input was placed before the timer started"),
    "boundary-matches": ("timer stop", 0, "measures other phases than you declared"),
}
"""Where a failing check marks its flaw when the picture's own marks (:data:`FLAW_NOTES`,
the events that contradict the declared phases) found none: the interval can look clean
(a warm-up never waited on, another callable, a second call, a missing donation) while
the check failed on it. Every failing interval check then marks its flaw, in the picture
and in the text timeline (:func:`marked`)."""
STATIC_MARK = ("call", 0, "called with another static value than this list's setting")
"""``times-the-call`` with one call: the call's static argument was another setting's."""
FALLBACK_MARK = ("timer start", 0, "this interval is where the check failed")


def marked(evidence: Evidence, check_id: str) -> Evidence:
    """``evidence`` of a failed check, its flaw marked: unchanged when it draws no
    interval or its picture marks a flaw already; else one mark (:data:`CHECK_MARKS`, by
    the ``flaw`` fact, then by ``check_id``) at that event of the picture, whose words
    become the note of the same event in the picture and in the text timeline (the
    picture's host events are the timeline's entries, one for one)."""
    picture, timeline = evidence.interval, evidence.timeline
    if picture is None or picture.flaws:
        return evidence
    kinds = [event.kind for event in picture.host]
    flaw = evidence.facts.get("flaw")
    kind, nth, words = CHECK_MARKS.get(flaw if isinstance(flaw, str) else "",
                                       CHECK_MARKS.get(check_id, FALLBACK_MARK))
    if check_id == "times-the-call" and flaw is None and kinds.count("call") < 2:
        kind, nth, words = STATIC_MARK
    at = _nth(kinds, kind, nth, picture.start)
    host = list(picture.host)
    host[at] = host[at].model_copy(update={"note": words})
    lane = "measurement" if check_id == "boundary-matches" else "host"
    update: dict[str, object] = {"interval": picture.model_copy(update={
        "host": host, "flaws": [FlawMark(at=at, lane=lane, words=words)]})}
    if timeline is not None and len(timeline.entries) == len(host):
        entries = list(timeline.entries)
        entries[at] = entries[at].model_copy(update={"note": words})
        update["timeline"] = timeline.model_copy(update={"entries": entries})
    return evidence.model_copy(update=update)


def _nth(kinds: list[str], kind: str, nth: int, default: int) -> int:
    """The index of the ``nth`` event of ``kind`` (the last one when there are fewer;
    ``-1``: the last), else ``default``."""
    found = [i for i, k in enumerate(kinds) if k == kind]
    if not found:
        return default
    return found[nth] if -len(found) <= nth < len(found) else found[-1]
