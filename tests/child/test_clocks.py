"""Every clock a learner may use is a recorded clock read (issue 17).

``datetime.datetime.now()`` / ``utcnow()`` / ``today()``, ``time.clock_gettime`` and
``clock_gettime_ns`` (monotonic, realtime, raw, boottime), and the CPU-time clocks
(``time.process_time``, ``thread_time``, their ``_ns`` forms and the CPU clock ids) were
not seen: correct code timed with them failed with "it read no clock at all". Each is now
a clock read the core makes itself, and the learner's samples match their read pairs.

The probe is exact: in a fresh interpreter it installs the hooks on a real core, runs
snippets of learner code (file ``learner.py``) one recorded call each, and hands back each
call's events, the samples the snippet computed and a few facts. The core still reads
every clock itself, and a datetime made by hand with a real read's ``seq`` forges
nothing: it records no pair, and one whose recorded values are forged too is tampering.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from pydantic import TypeAdapter

from syncgrade.analysis import CPU_CLOCKS, NS_CLOCKS, analyse
from syncgrade.trace import Event, TimerRead

_EVENTS: TypeAdapter[list[Any]] = TypeAdapter(list[Event])

SNIPPETS = {
    "datetime": """
import time
from datetime import datetime, timezone
a = datetime.now(); time.sleep(0.002); b = datetime.now()
c = datetime.now(timezone.utc); time.sleep(0.002); d = datetime.now(tz=timezone.utc)
e = datetime.utcnow(); time.sleep(0.002); f = datetime.utcnow()
g = datetime.today(); time.sleep(0.002); h = datetime.today()
SAMPLES = [(b - a).total_seconds(), (d - c).total_seconds(), (f - e).total_seconds(),
           (h - g).total_seconds()]
""",
    "clock_gettime": """
import time
SAMPLES = []
for name in ("CLOCK_MONOTONIC", "CLOCK_REALTIME", "CLOCK_MONOTONIC_RAW", "CLOCK_BOOTTIME"):
    if hasattr(time, name):
        t0 = time.clock_gettime(getattr(time, name)); time.sleep(0.002)
        t1 = time.clock_gettime(getattr(time, name))
        n0 = time.clock_gettime_ns(getattr(time, name)); time.sleep(0.002)
        n1 = time.clock_gettime_ns(getattr(time, name))
        SAMPLES += [t1 - t0, (n1 - n0) / 1e9]
if hasattr(time, "CLOCK_TAI"):  # not a recorded clock: read as ever, not recorded
    assert time.clock_gettime(time.CLOCK_TAI) > 0
""",
    "cpu": """
import time
def spin():  # CPU work (a clock read per turn would be recorded too)
    sum(range(100_000))
SAMPLES = []
for clock in (time.process_time, time.thread_time):
    t0 = clock(); spin(); SAMPLES.append(clock() - t0)
for clock in (time.process_time_ns, time.thread_time_ns):
    t0 = clock(); spin(); SAMPLES.append((clock() - t0) / 1e9)
t0 = time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID); spin()
SAMPLES.append(time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID) - t0)
""",
    "timeit": """
import timeit
SAMPLES = timeit.repeat("sum(range(1000))", number=1, repeat=2)  # TIMEIT STRING
SAMPLES += timeit.repeat(lambda: sum(range(1000)), number=1, repeat=2)  # TIMEIT LAMBDA
""",
    "behaviour": """
import copy, datetime as dm, pickle
from datetime import datetime
class Mine(datetime):
    pass
a = datetime.now(); m0 = Mine.now(); m1 = Mine.now()
FACTS = {
    "repr": repr(datetime(2020, 1, 2, 3, 4, 5, 6)),
    "type is module's": type(a) is dm.datetime and datetime is dm.datetime,
    "C datetime is a datetime": isinstance(dm.datetime.min, datetime)
        and issubclass(type(dm.datetime.min), datetime) and isinstance(a, dm.date),
    "pickles": pickle.loads(pickle.dumps(a)) == a
        and pickle.loads(pickle.dumps(dm.datetime.min)) == dm.datetime.min,
    "copies": copy.deepcopy(a) == a and copy.copy(a) == a,
    "subclass reads": type(m0) is Mine and (m1 - m0).total_seconds() >= 0,
    "plain arithmetic": str(datetime(2020, 1, 2) - datetime(2020, 1, 1)),
}
# Arithmetic with a datetime that is no reading records no pair.
a - datetime(2020, 1, 1); datetime(2020, 1, 1) - a; a - dm.timedelta(1)
SAMPLES = []
""",
    "forged seq": """
from datetime import datetime, timedelta
start = datetime.now(); stop = datetime.now()
fake = stop + timedelta(milliseconds=50)  # built by hand: no reading
type(stop).__dict__["seq"].__set__(fake, stop.seq)
type(stop).__dict__["_reading"].__set__(fake, type(stop).__dict__["_reading"].__get__(stop))
SAMPLES = [(fake - start).total_seconds()]
""",
    "forged values": """
from datetime import datetime, timedelta
start = datetime.now(); stop = datetime.now()
fake = stop + timedelta(milliseconds=50)
ns, utc = type(stop).__dict__["_reading"].__get__(stop)
type(stop).__dict__["seq"].__set__(fake, stop.seq)
type(stop).__dict__["_reading"].__set__(fake, (ns + 50_000_000, utc))
SAMPLES = [(fake - start).total_seconds()]
""",
}

_PROBE = r'''
import _thread, json, os, sys, time
import datetime as dm, pickle
import jax
from syncgrade.child import instrument, recorder as rec

SNIPPETS = json.loads(sys.argv[1])
at = instrument.ArrayImpl
read_fd, write_fd = os.pipe()
core = rec.new_core(b"k" * 32, write_fd, list(SNIPPETS), _thread.get_ident(),
                    frozenset({sys._getframe().f_code}), at.__dict__["is_ready"],
                    at.__dict__["is_deleted"], at)
recorder = rec.Recorder(core, {"learner.py"})
installation = instrument.install(recorder)
# The hook codes, as the child's main sends them (the sleep hook records its sleeps).
core.send((rec.PROTECT, instrument.hook_codes(), frozenset(), rec.EMIT_CODES, {}))
out = {"samples": {}, "facts": {}, "tampered": {}}
core.send((rec.SEND, {"type": "hello"}, None))
core.send((rec.SEND, {"type": "load", "tampered": []}, None))
for name, source in SNIPPETS.items():
    ns = {}
    core.send((rec.RESET,))
    core.send((rec.SET, True))
    exec(compile(source, "learner.py", "exec"), ns)
    core.send((rec.SET, False))
    core.send((rec.SEND, {"type": "call", "id": name}, None))
    out["samples"][name] = ns["SAMPLES"]
    out["facts"].update(ns.get("FACTS", {}))
    out["tampered"][name] = list(core.send((rec.STATUS,))[1])
core.send((rec.SEND, {"type": "end", "tampered": []}, None))
os.close(write_fd)
data = b""
while chunk := os.read(read_fd, 1 << 20):
    data += chunk
out["events"] = {}
while data:
    size = int.from_bytes(data[:4], "big")
    frame = json.loads(data[4 + 64:4 + size])
    data = data[4 + size:]
    if frame["type"] == "call":
        out["events"][frame["id"]] = frame["events"]
installation.undo()
out["facts"]["undone"] = (dm.datetime is instrument._DATETIME
                          and pickle.loads(pickle.dumps(dm.datetime.min)) == dm.datetime.min)
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def probe() -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(SNIPPETS)],
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _events(probe: dict[str, Any], name: str) -> list[Any]:
    return _EVENTS.validate_python(probe["events"][name])


def _reads(probe: dict[str, Any], name: str) -> list[TimerRead]:
    return [e for e in _events(probe, name) if isinstance(e, TimerRead)]


def _line(marker: str, snippet: str) -> int:
    return next(number for number, line in enumerate(SNIPPETS[snippet].splitlines(), 1)
                if marker in line)


def _measured(probe: dict[str, Any], name: str) -> list[tuple[int, int]]:
    """Each sample's read pair, asserting every sample matched, in seconds, a pair the
    learner subtracted."""
    samples = probe["samples"][name]
    analysis = analyse(_events(probe, name))
    match = analysis.match(samples)
    assert match.complete and match.factor == 1.0, (samples, probe["events"][name])
    assert not any(iv.inferred for iv in match.intervals if iv)
    return [(iv.start.seq, iv.stop.seq) for iv in match.intervals if iv]


def test_datetime_now_utcnow_and_today_are_recorded_clock_reads(probe: dict[str, Any]) -> None:
    reads = _reads(probe, "datetime")
    assert [r.clock for r in reads] == ["datetime.now"] * 4 + ["datetime.utcnow"] * 2 + [
        "datetime.today"] * 2
    # The system clock in nanoseconds, whole microseconds, on the learner's lines.
    assert all(type(r.value) is int and r.value % 1000 == 0 for r in reads)
    assert abs(reads[0].value / 1e9 - time.time()) < 600
    assert [r.site[1] for r in reads if r.site] == [4, 4, 5, 5, 6, 6, 7, 7]
    assert all(r.clock in NS_CLOCKS and r.clock not in CPU_CLOCKS for r in reads)
    # (t1 - t0).total_seconds() of each pair is that pair's difference, and a pair.
    assert _measured(probe, "datetime") == [(reads[i].seq, reads[i + 1].seq)
                                            for i in range(0, 8, 2)]
    assert probe["tampered"]["datetime"] == []


def test_clock_gettime_of_the_wall_clocks_is_recorded(probe: dict[str, Any]) -> None:
    reads = _reads(probe, "clock_gettime")
    names = [n for n in ("CLOCK_MONOTONIC", "CLOCK_REALTIME", "CLOCK_MONOTONIC_RAW",
                         "CLOCK_BOOTTIME") if hasattr(time, n)]
    assert [r.clock for r in reads] == [
        clock for n in names for clock in (f"clock_gettime({n})",) * 2
        + (f"clock_gettime_ns({n})",) * 2]
    assert all(type(r.value) is (int if "_ns(" in r.clock else float) for r in reads)
    assert len(_measured(probe, "clock_gettime")) == 2 * len(names)
    assert probe["tampered"]["clock_gettime"] == []  # CLOCK_TAI: read, not recorded


def test_cpu_time_clocks_are_recorded_as_cpu_clocks(probe: dict[str, Any]) -> None:
    reads = _reads(probe, "cpu")
    assert [r.clock for r in reads] == [
        "process_time", "process_time", "thread_time", "thread_time", "process_time_ns",
        "process_time_ns", "thread_time_ns", "thread_time_ns",
        "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"]
    assert all(r.clock in CPU_CLOCKS for r in reads)
    assert len(_measured(probe, "cpu")) == 5


def test_timeit_reads_are_sited_on_the_learners_line_that_called_timeit(
        probe: dict[str, Any]) -> None:
    reads = _reads(probe, "timeit")
    assert len(reads) == 8
    string, lam = _line("TIMEIT STRING", "timeit"), _line("TIMEIT LAMBDA", "timeit")
    assert [r.site for r in reads] == [("learner.py", string)] * 4 + [
        ("learner.py", lam)] * 4
    assert len(_measured(probe, "timeit")) == 4


def test_the_installed_datetime_behaves_as_datetime(probe: dict[str, Any]) -> None:
    facts = probe["facts"]
    assert facts["repr"] == "datetime.datetime(2020, 1, 2, 3, 4, 5, 6)"
    assert facts["plain arithmetic"] == "1 day, 0:00:00"
    for fact in ("type is module's", "C datetime is a datetime", "pickles", "copies",
                 "subclass reads", "undone"):
        assert facts[fact] is True, fact
    events = _events(probe, "behaviour")
    reads = [e for e in events if isinstance(e, TimerRead)]
    pairs = [(e.start, e.stop) for e in events if e.kind == "pair"]
    # Only the subclass's two readings were subtracted from each other.
    assert len(reads) == 3 and pairs == [(reads[1].seq, reads[2].seq)]
    assert probe["tampered"]["behaviour"] == []


def test_a_datetime_made_by_hand_with_a_real_reads_seq_records_no_pair(
        probe: dict[str, Any]) -> None:
    events = _events(probe, "forged seq")
    assert [e for e in events if e.kind == "pair"] == []
    assert not analyse(events).match(probe["samples"]["forged seq"]).complete
    assert probe["tampered"]["forged seq"] == []


def test_a_datetime_with_forged_read_values_is_tampering(probe: dict[str, Any]) -> None:
    assert probe["tampered"]["forged values"] == [
        "recorder: a subtraction of clock reads that were never made"]
    assert [e for e in _events(probe, "forged values") if e.kind == "pair"] == []


def test_a_timeline_names_only_lines_of_the_learners_file() -> None:
    # A site outside the learner's file (timeit's own source, as recorded before this
    # change) is no line of theirs: the timeline leaves it out rather than name it.
    from syncgrade.rubric.timeline import draw

    events = _EVENTS.validate_python([
        {"seq": 1, "kind": "timer", "clock": "perf_counter", "value": 1.0,
         "site": ["<timeit-src>", 6]},
        {"seq": 2, "kind": "call", "name": "fn", "site": ["submission.py", 11],
         "inputs": [1], "numpy_args": 0},
        {"seq": 3, "kind": "timer", "clock": "perf_counter", "value": 1.5,
         "site": ["<timeit-src>", 8]},
        {"seq": 4, "kind": "pair", "start": 1, "stop": 3},
    ])
    analysis = analyse(events)
    timeline = draw(analysis.intervals[0], analysis, "submission.py")
    assert [(e.what, e.line) for e in timeline.entries] == [
        ("timer start", None), ("call", 11), ("timer stop", None)]
