"""The recorder core lets go of the latest call's finished outputs before a clock read's
CPU stamp, not after it: an output the learner dropped (a warm-up's
``fn(x).block_until_ready()``) is freed before the interval that read starts, where
uninstrumented code frees it, not inside it (freeing a multi-MB output can cost a
millisecond of CPU time: docs/performance.md, "Unexplained host time").

Exact, no durations: a real core in a fresh interpreter, learner code (``learner.py``) whose
outputs carry a finalizer that notes the thread's CPU time (the clock as it was before the
hooks) when the output is freed; the order of that note and the read's CPU stamp is the
claim.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

_PROBE = r'''
import _thread, json, os, sys, time, weakref
from syncgrade.child import instrument, recorder as rec

CPU = time.thread_time_ns  # the real clock, taken before the hooks replace it
at = instrument.ArrayImpl
read_fd, write_fd = os.pipe()
core = rec.new_core(b"k" * 32, write_fd, ["main"], _thread.get_ident(),
                    frozenset({sys._getframe().f_code}), at.__dict__["is_ready"],
                    at.__dict__["is_deleted"], at)
recorder = rec.Recorder(core, {"learner.py"})
installation = instrument.install(recorder)
core.send((rec.PROTECT, instrument.hook_codes(), frozenset(), rec.EMIT_CODES, {}))
core.send((rec.SEND, {"type": "hello"}, None))
core.send((rec.SEND, {"type": "load", "tampered": []}, None))
FREED = {}
core.send((rec.SET, True))
exec(compile(sys.argv[1], "learner.py", "exec"),
     {"FREED": FREED, "note": lambda name: FREED.__setitem__(name, CPU()),
      "finalize": weakref.finalize})
core.send((rec.SET, False))
core.send((rec.SEND, {"type": "call", "id": "main"}, None))
os.close(write_fd)
data = b""
while chunk := os.read(read_fd, 1 << 20):
    data += chunk
events = None
while data:
    size = int.from_bytes(data[:4], "big")
    frame = json.loads(data[4 + 64:4 + size])
    data = data[4 + size:]
    if frame["type"] == "call":
        events = frame["events"]
installation.undo()
print(json.dumps({"events": events, "freed": FREED}))
'''

LEARNER = """
import time

import jax
import jax.numpy as jnp

double = jax.jit(lambda x: x * 2)
x = jnp.ones((256,), jnp.float32)
double(x).block_until_ready()  # compiles

warm = double(x)
warm.block_until_ready()
finalize(warm, note, "warm")
del warm  # the learner lets go of it: only the recorder may still hold it
start = time.perf_counter()  # START
out = double(x)
out.block_until_ready()
finalize(out, note, "held")
stop = time.perf_counter()  # STOP
held_to_stop = out is not None
del out
after = time.perf_counter()  # AFTER
"""


@pytest.fixture(scope="module")
def probe() -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _PROBE, LEARNER], capture_output=True,
                          text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _read(probe: dict[str, Any], marker: str) -> dict[str, Any]:
    line = next(n for n, text in enumerate(LEARNER.splitlines(), 1) if marker in text)
    return next(e for e in probe["events"] if e["kind"] == "timer" and e["site"][1] == line)


def _ready_of(probe: dict[str, Any], read: dict[str, Any]) -> bool:
    return bool(next(e for e in probe["events"]
                     if e["kind"] == "ready" and e["read"] == read["seq"])["ready"])


def test_a_dropped_finished_output_is_freed_before_the_start_reads_stamp(
        probe: dict[str, Any]) -> None:
    start = _read(probe, "# START")
    # Freed before the start read's CPU stamp: outside the interval it starts.
    assert probe["freed"]["warm"] <= start["cpu"]
    assert _ready_of(probe, start)  # and the read still says the outputs were ready


def test_an_output_the_learner_holds_lives_on_and_is_ready_at_the_stop_read(
        probe: dict[str, Any]) -> None:
    stop, after = _read(probe, "# STOP"), _read(probe, "# AFTER")
    assert _ready_of(probe, stop)
    # Held by the learner until after the stop read: freed where the learner let go.
    assert stop["cpu"] <= probe["freed"]["held"] <= after["cpu"]
