"""What the cheaper hot path records, and in what order (issue 10, figure 4).

The hooks now do nothing before a jitted call's dispatch and nothing after a wait: a call
is recorded in one send once it returned, a wait before it waits (withdrawn if it raises),
and a subtraction of clock reads is appended to a list the core takes with the call's
frame. These tests trace real submissions through the child (``trace_support.trace``) and check
that the event log still says what happened, in the order it happened:

- a compilation inside a call lies between the call and its return;
- a wait that raised is not a wait;
- a pair of reads subtracted several times is one pair, and every interval has its pair;
- a run of prints is one write event, so output outside the timed intervals costs what
  printing costs (issue 35), and a print inside an interval is still seen there;
- a run of clock reads (a busy-wait) keeps its first few reads and its latest, and every
  timed interval keeps both its reads and its pair;
- a log too long for the parent (a time-based warm-up of a cheap program) is thinned
  between its head and tail, keeps every timed interval whole, and names only events
  it holds;
- jax's own NumPy conversions of shape tuples while it traces a new shape are not the
  learner's waits; the learner's own conversions are, through jax's tree utilities too.
"""

from __future__ import annotations

from typing import Any

from trace_support import trace

from syncgrade.child import recorder
from syncgrade.courses import get_exercise
from syncgrade.protocol import JAX_OWN_CONVERSION
from syncgrade.trace import Call, CallFrame, Compile, Return, TimerRead, Wait, Write

LOOP = """
import time

import jax
import jax.numpy as jnp


def synchronized_samples(fn, args, repeats):
    # BEFORE
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        # SUBTRACT
        samples.append(stop - start)
    return out, samples
"""

NEW_JIT_INSIDE = LOOP.replace("    # BEFORE\n", """\
    doubled = jax.jit(lambda a: a * 2.0)
    doubled(args[0]).block_until_ready()  # COMPILES HERE
""")

WAIT_THAT_RAISES = LOOP.replace("    # BEFORE\n", """\
    gone = fn(*args)
    gone.block_until_ready()
    gone.delete()
    try:
        gone.block_until_ready()  # RAISES HERE
    except Exception:
        pass
""")

DEBUG_PRINTS = LOOP.replace("    # BEFORE\n", """\
    for i in range(5000):
        print("debug", i)  # A RUN HERE
""").replace("        out.block_until_ready()\n", """\
        out.block_until_ready()
        print("inside")  # INSIDE HERE
""")

NEW_SHAPE_TRACED = LOOP.replace("    # BEFORE\n", """\
    rows = jax.jit(lambda a: a[:, None] * jnp.arange(a.shape[0])[:, None, None])  # BODY
    rows(args[0]).block_until_ready()  # TRACES HERE
    np.array(out_list := [1.0, 2.0])  # OWN LIST HERE
    jax.tree_util.tree_map(np.asarray, rows(args[0]))  # TREE READBACK HERE
""").replace("import jax\n", "import jax\nimport numpy as np\n", 1)

BUSY_WAIT = LOOP.replace("        start = time.perf_counter()\n", """\
        begun = time.perf_counter()
        while time.perf_counter() - begun < 0.02:  # BUSY HERE
            pass
        start = time.perf_counter()
""")

BUSY_PAD_INSIDE = LOOP.replace("        out.block_until_ready()\n", """\
        out.block_until_ready()
        padded = time.perf_counter()
        while time.perf_counter() - padded < 0.005:  # PAD HERE
            pass
""")

CHEAP_WARM_UP_AROUND = LOOP.replace("    # BEFORE\n", """\
    tiny = jax.jit(lambda a: a + 1.0)

    def keep_busy(seconds):
        x = jnp.zeros((4,))
        begun = time.perf_counter()
        while time.perf_counter() - begun < seconds:
            x = tiny(x)
            x.block_until_ready()

    keep_busy(0.5)
""").replace("    return out, samples\n", "    keep_busy(0.5)\n    return out, samples\n")

SUBTRACTED_THRICE = LOOP.replace("        # SUBTRACT\n", """\
        stop - start
        stop - start
""")


def _main_frame(source: str) -> CallFrame:
    frames = trace(get_exercise("exercise-1"), source, display_name="submission.py",
                          timeout=120)
    return frames["main"]


def _line_of(source: str, marker: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1)
                if marker in line)


def test_a_compilation_inside_a_call_lies_between_the_call_and_its_return() -> None:
    frame = _main_frame(NEW_JIT_INSIDE)
    line = _line_of(NEW_JIT_INSIDE, "COMPILES HERE")
    calls = [e for e in frame.events if isinstance(e, Call) and e.site
             and e.site[1] == line]
    assert len(calls) == 1, frame.events
    call = calls[0]
    returns = [e for e in frame.events if isinstance(e, Return) and e.call == call.seq]
    compiles = [e for e in frame.events if isinstance(e, Compile)]
    assert len(returns) == 1
    inside = [c for c in compiles if call.seq < c.seq < returns[0].seq]
    assert inside, [(e.kind, e.seq) for e in frame.events[:20]]
    assert all(c.site is not None and c.site[1] == line for c in inside)
    # Numbered one after another: nothing else came between the call and its return.
    assert returns[0].seq == call.seq + len(inside) + 1


def test_a_wait_that_raised_is_not_recorded() -> None:
    frame = _main_frame(WAIT_THAT_RAISES)
    line = _line_of(WAIT_THAT_RAISES, "RAISES HERE")
    waits = [e for e in frame.events if isinstance(e, Wait)]
    assert waits, "the other waits are recorded"
    assert not [w for w in waits if w.site and w.site[1] == line], waits
    # The wait just before it, which returned, is.
    assert [w for w in waits if w.site and w.site[1] == line - 3], waits


def test_each_subtracted_pair_of_reads_is_one_pair_event() -> None:
    frame = _main_frame(SUBTRACTED_THRICE)
    pairs = [(e.start, e.stop) for e in frame.events if e.kind == "pair"]
    reads = [e.seq for e in frame.events if e.kind == "timer"]
    assert len(pairs) == len(set(pairs)) == len(reads) // 2
    assert sorted(pairs) == [(reads[i], reads[i + 1]) for i in range(0, len(reads), 2)]


def _thinned_busy_wait(source: str, marker: str) -> list[Any]:
    """The main call's events for ``source``, whose busy-wait (its reads on the line
    marked ``marker``) reads the clock thousands of times, after asserting what thinning
    keeps: every sample's start and stop reads, paired as the learner subtracted them;
    of the busy-wait's reads only each run's first READ_RUN_KEPT and its latest; and no
    pair naming a read the log dropped."""
    events = _main_frame(source).events
    reads = [e for e in events if isinstance(e, TimerRead)]

    def on(marked: str) -> list[TimerRead]:
        line = _line_of(source, marked)
        return [r for r in reads if r.site and r.site[1] == line]

    starts, stops = on("start = time.perf_counter()"), on("stop = time.perf_counter()")
    assert len(starts) == len(stops) > 1
    assert len(on(marker)) <= len(starts) * (recorder.READ_RUN_KEPT + 1)
    pairs = {(e.start, e.stop) for e in events if e.kind == "pair"}
    assert {(a.seq, b.seq) for a, b in zip(starts, stops, strict=True)} <= pairs
    kept = {r.seq for r in reads}
    assert all(a in kept and b in kept for a, b in pairs)
    return events


def test_a_busy_wait_keeps_a_few_reads_and_every_interval_keeps_its_pair() -> None:
    # 20 ms of reads (thousands) before each sample.
    _thinned_busy_wait(BUSY_WAIT, "BUSY HERE")


def test_a_busy_wait_inside_a_sample_keeps_the_samples_pair() -> None:
    # The run of reads starts inside the sample and runs on into its stop read and the
    # next sample's start read: the stop read is one of the dropped, and comes back
    # because the learner's subtraction pairs it with the start read the log holds (the
    # busy-wait's own subtractions, from a read inside the run, bring none of the rest
    # back: still thinned), in its place by number.
    events = _thinned_busy_wait(BUSY_PAD_INSIDE, "PAD HERE")
    assert [e.seq for e in events] == sorted(e.seq for e in events)


def test_a_long_log_is_thinned_keeping_every_interval_and_what_it_names() -> None:
    frame = _main_frame(CHEAP_WARM_UP_AROUND)
    events = frame.events
    # Half a second of a cheap program's turns before and after the timed loop: tens of
    # thousands of events, thinned to the head, the tail and the short intervals.
    assert len(events) <= recorder.LOG_THIN_AT
    seqs = {e.seq for e in events}
    calls = {e.seq for e in events if isinstance(e, Call)}
    assert all(e.call in calls for e in events if isinstance(e, Return))
    returned = {e.call for e in events if isinstance(e, Return)}
    assert all(e.seq in returned for e in events if isinstance(e, Call))
    assert all(e.read in seqs and e.call in seqs for e in events if e.kind == "ready")
    assert all(e.start in seqs and e.stop in seqs for e in events if e.kind == "pair")
    start_line = _line_of(CHEAP_WARM_UP_AROUND, "start = time.perf_counter()")
    stop_line = _line_of(CHEAP_WARM_UP_AROUND, "stop = time.perf_counter()")
    reads = [e for e in events if isinstance(e, TimerRead)]
    starts = [r.seq for r in reads if r.site and r.site[1] == start_line]
    stops = [r.seq for r in reads if r.site and r.site[1] == stop_line]
    pairs = {(e.start, e.stop) for e in events if e.kind == "pair"}
    assert len(starts) == len(stops) > 1
    assert set(zip(starts, stops, strict=True)) <= pairs
    for start, stop in zip(starts, stops, strict=True):  # each interval whole
        inside = [e for e in events if start < e.seq < stop]
        assert [type(e) for e in inside if isinstance(e, (Call, Return, Wait))] == [
            Call, Return, Wait]


def test_a_run_of_prints_is_one_write_event_and_a_print_inside_is_seen() -> None:
    frame = _main_frame(DEBUG_PRINTS)
    writes = [e for e in frame.events if isinstance(e, Write)]
    run_line = _line_of(DEBUG_PRINTS, "A RUN HERE")
    inside_line = _line_of(DEBUG_PRINTS, "INSIDE HERE")
    run = [w for w in writes if w.site and w.site[1] == run_line]
    assert len(run) == 1 and run[0].count == 5000 * 4  # "debug", " ", i, "\n"
    inside = [w for w in writes if w.site and w.site[1] == inside_line]
    starts = [e for e in frame.events if isinstance(e, TimerRead)][::2]
    assert len(inside) == len(starts) > 1  # one per interval: a clock read parts them
    assert all(w.count == 2 for w in inside)  # "inside", "\n"
    assert len(writes) == 1 + len(inside)


def test_jax_converting_shape_tuples_while_tracing_is_jaxs_own_conversion() -> None:
    # Tracing a new shape checks each shape tuple with np.array (lax._check_shapelike),
    # inside the learner's call and under its line: a picture of a compiling interval
    # showed it as "wait: numpy.array (7 times), waits, but not on the timed output".
    frame = _main_frame(NEW_SHAPE_TRACED)
    waits = [e for e in frame.events if isinstance(e, Wait) and e.site]
    on = {marker: [w for w in waits if w.site and w.site[1] == _line_of(NEW_SHAPE_TRACED, marker)]
          for marker in ("BODY", "TRACES HERE", "OWN LIST HERE", "TREE READBACK HERE")}
    # The traced body's line is the learner frame jax's conversions ran under: recorded
    # (their CPU time is explained) as jax's own, which no timeline draws.
    assert on["BODY"] and {w.how for w in on["BODY"]} == {JAX_OWN_CONVERSION}, on["BODY"]
    assert all(not w.arrays for w in on["BODY"])
    assert [w.how for w in on["TRACES HERE"]] == ["block_until_ready"], on["TRACES HERE"]
    assert [w.how for w in on["OWN LIST HERE"]] == ["numpy.array"]
    readback = [w for w in on["TREE READBACK HERE"] if w.how == "numpy.asarray"]
    assert len(readback) == 1 and readback[0].arrays
