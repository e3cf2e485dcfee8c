"""The recorder core's account of the learner's threads' CPU time, on fake thread clocks
(issue 33, item 2).

Exact, no machine involved: in a fresh interpreter the probe installs the hooks on a real
core whose thread-clock reader (``recorder.THREAD_CLOCK``) is a fake, then runs learner
code (file ``learner.py``) that writes births and ends into the list the learner's
threads report to (``instrument._THREADS``), as their wrapper does, and reads the clock.
Each read's ``others`` must be the sum the rules give: live threads through their clock,
ended ones as they said at their end, never the reader, an ident reused after its thread
ended, a thread that ends between the core's look at the list and its clock read, and
malformed entries ignored.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

_PROBE = r'''
import _thread, json, os, sys
from syncgrade.child import instrument, recorder as rec

CLOCKS = {}          # fake clock id -> CPU ns
GONE = {}            # fake clock id -> the end entry its thread appends as it goes


def fake_thread_clock(clock_id):
    if clock_id in GONE:  # the thread has gone: it reported its end on its way out
        instrument._THREADS.append(GONE.pop(clock_id))
        raise OSError(22, "Invalid argument")
    return CLOCKS[clock_id]


rec.THREAD_CLOCK = fake_thread_clock  # before the core copies the module's globals
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
core.send((rec.SET, True))
exec(compile(sys.argv[1], "learner.py", "exec"),
     {"CLOCKS": CLOCKS, "GONE": GONE, "THREADS": instrument._THREADS,
      "READER": _thread.get_ident()})
core.send((rec.SET, False))
core.send((rec.SEND, {"type": "call", "id": "main"}, None))
os.close(write_fd)
data = b""
while chunk := os.read(read_fd, 1 << 20):
    data += chunk
events = []
while data:
    size = int.from_bytes(data[:4], "big")
    frame = json.loads(data[4 + 64:4 + size])
    data = data[4 + size:]
    if frame["type"] == "call":
        events = frame["events"]
installation.undo()
print(json.dumps([e.get("others") for e in events if e["kind"] == "timer"]))
'''

LEARNER = """
import time

time.perf_counter()                          # no learner thread yet: no figure
THREADS.append((1001, -11, -1))              # thread A begins
CLOCKS[-11] = 5_000_000
time.perf_counter()                          # A alive: 5 ms
CLOCKS[-11] = 8_000_000
THREADS.append((1002, -12, -1))              # thread B begins
CLOCKS[-12] = 1_000_000
time.perf_counter()                          # 8 + 1
THREADS.append((1001, -11, 9_000_000))       # A ends, having spent 9 ms
time.perf_counter()                          # 9 (ended) + 1
THREADS.append((1001, -13, -1))              # a new thread C under A's old ident
CLOCKS[-13] = 2_000_000
time.perf_counter()                          # 9 + 1 + 2
GONE[-12] = (1002, -12, 1_500_000)           # B ends while the core reads its clock
time.perf_counter()                          # 9 + 1.5 + 2
THREADS.append((READER, -14, -1))            # the reading thread is a learner's
CLOCKS[-14] = 100_000_000
THREADS.extend([("x", -15, -1), (1003, -16), [1004, -17, -1], (1005, "y", -1)])
time.perf_counter()                          # never the reader; malformed: ignored
THREADS.append((1006, None, -1))             # a thread with no clock of its own
time.perf_counter()                          # counts only once it ends
THREADS.append((1006, None, 4_000_000))
time.perf_counter()                          # 9 + 1.5 + 2 + 4
"""


def test_the_core_sums_the_learners_threads_by_the_rules() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE, LEARNER], capture_output=True,
                          text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    others: list[Any] = json.loads(done.stdout.strip().splitlines()[-1])
    ms = 1_000_000
    assert others == [None, 5 * ms, 9 * ms, 10 * ms, 12 * ms, 12_500_000, 12_500_000,
                      12_500_000, 16_500_000]
