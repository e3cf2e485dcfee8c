"""Each recorded operation's own span, as the real child records it (issue 33): an
``is_ready()`` poll loop is one wait from its first poll, a compiled program's host callback
is recorded at every run with the learner's line that made it, and a GC pause leaves out the
learner's own ``gc.callbacks`` entries. Real submissions through the child
(``trace_support.trace``); assertions on event order and stamps, never on durations."""

from __future__ import annotations

import pytest
from trace_support import trace

from syncgrade.analysis import analyse
from syncgrade.courses import get_exercise
from syncgrade.trace import CallFrame, GcPause, HostCallback, Wait

POLL = """
import time

import jax
import jax.numpy as jnp

# Tens of milliseconds of device work: pending when the first poll comes.
spin = jax.jit(lambda x: jax.lax.fori_loop(0, 3000, lambda i, c: jnp.sin(c) * 1.0001, x))


def synchronized_samples(fn, args, repeats):
    x = jnp.ones((4096,), jnp.float32)
    spin(x).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = spin(x)
        while not out.is_ready():  # POLLS HERE
            pass
        samples.append(time.perf_counter() - start)
    return fn(*args), samples
"""

CALLBACK = """
import time

import jax
import numpy as np


def _host(a):
    return np.asarray(a) * 2


def synchronized_samples(fn, args, repeats):
    doubled = jax.jit(lambda a: jax.pure_callback(  # CALLBACK HERE
        _host, jax.ShapeDtypeStruct(a.shape, a.dtype), a))
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = doubled(fn(*args))
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
"""

GC_CALLBACK = """
import gc
import time

import numpy as np


def _on_gc(phase, info):
    if phase == "start":
        np.asarray([0.0])  # RECORDED HERE
    else:
        np.asarray([1.0])  # RECORDED HERE TOO


def synchronized_samples(fn, args, repeats):
    gc.callbacks.REGISTER
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        gc.collect(0)
        samples.append(time.perf_counter() - start)
    gc.callbacks.remove(_on_gc)
    return out, samples
"""


def _main_frame(source: str) -> CallFrame:
    return trace(get_exercise("exercise-1"), source, timeout=120)["main"]


def _line_of(source: str, marker: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1)
                if marker in line)


def test_a_poll_loop_that_ends_ready_is_one_wait_from_its_first_poll() -> None:
    frame = _main_frame(POLL)
    line = _line_of(POLL, "POLLS HERE")
    intervals = analyse(frame.events).intervals
    assert intervals
    spans = []
    for interval in intervals:
        polls = [w for w in interval.waits if w.how == "is_ready"]
        assert len(polls) == 1 and polls[0].site is not None and polls[0].site[1] == line
        assert polls == interval.waits_on_timed_output()
        call = interval.calls[-1]
        assert call.ret is not None and call.ret.cpu is not None
        span = polls[0].cpu_span
        if span is not None:  # none: the first poll found the output ready already
            assert call.ret.cpu <= span[0] <= span[1]
            spans.append(span)
    assert spans, "every first poll found tens of milliseconds of work done"


def test_every_run_of_a_host_callback_is_recorded_inside_its_interval() -> None:
    frame = _main_frame(CALLBACK)
    line = _line_of(CALLBACK, "CALLBACK HERE")
    intervals = analyse(frame.events).intervals
    assert intervals
    for interval in intervals:
        runs = interval.host_callbacks
        assert len(runs) == 1 and runs[0].line == line
        assert runs[0].cpu_span is not None
        assert interval.host_activity() == runs
    assert all(isinstance(e, HostCallback) for e in frame.events if e.kind == "callback")


@pytest.mark.parametrize("register", ["insert(0, _on_gc)", "append(_on_gc)"])
def test_a_gc_pause_leaves_out_the_learners_own_gc_callbacks(register: str) -> None:
    # The learner's entry, put first or last in gc.callbacks after the grader's, runs a
    # recorded operation at the start and at the end of every collection: each lies
    # outside the pause, and the entry is called once per phase, as without the grader.
    source = GC_CALLBACK.replace("REGISTER", register)
    frame = _main_frame(source)
    lines = {_line_of(source, "RECORDED HERE"), _line_of(source, "RECORDED HERE TOO")}
    marks = [e for e in frame.events if isinstance(e, Wait) and e.site and e.site[1] in lines]
    starts = [m for m in marks if m.site and m.site[1] == min(lines)]
    assert len(starts) * 2 == len(marks) >= 2
    pauses = [e.cpu_span for e in frame.events
              if isinstance(e, GcPause) and e.th == marks[0].th]
    assert pauses
    for mark in marks:
        span = mark.cpu_span
        assert span is not None
        for pause in pauses:
            assert pause is not None
            assert span[1] <= pause[0] or span[0] >= pause[1], (span, pause)
