"""The cheaper instrumentation still catches what it caught before (issue 10, figure 4).

Each check the hot path made cheaper is attacked here the way it must still catch, graded
end to end on exercise-1:

- the timer hooks keep their state in one closure cell holding a tuple (one identity check
  per clock, not four): replacing that tuple is tampering;
- module globals are re-checked with one ``itemgetter`` call per module dict: rebinding a
  global a hook uses is tampering;
- the core finds the learner's line itself (no ``sys._getframe`` in the hooks) and checks
  the code that sent each event: a clock read, a sited event or a return sent from learner
  code is tampering;
- the hot hooks send to the core themselves, without a ``Recorder`` method frame: a hook
  code is accepted as a sender only of the event kinds registered for it (a wait hook
  made to send a clock read is tampering), and the registration is accepted only before
  the hooks are protected (a learner's late registration is tampering);
- the core compares filenames only with exact ``str`` learner files: a learner's str
  subclass put into ``learner_files`` never runs its methods inside the core.

``tests/corpus/integrity/forge_closure_patch.py`` (a wait hook's cell) and
``forge_globals_patch.py`` (a helper rebound through ``__globals__``) cover the other
closures and the numpy hook's global.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import syncgrade

LOOP = """
def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
"""

# A str subclass that notes each time one of its methods runs (RAN).
_STR_SUBCLASS = """
RAN = []


class Name(str):
    def __eq__(self, other):
        RAN.append("eq")
        return str.__eq__(self, other)

    def __hash__(self):
        RAN.append("hash")
        return str.__hash__(self)
"""

# A clock hook only sends a clock-read message to the core, which reads the clock itself.
# A clock name the core does not read is refused, and a str subclass as the name never
# runs its methods inside the core.
CLOCK_NAME_FORGED = """
import time
""" + _STR_SUBCLASS + """

HOOK = time.perf_counter
SEND = HOOK.__closure__[HOOK.__code__.co_freevars.index("send")].cell_contents
NAME = Name("perf_counter")
del RAN[:]
""" + LOOP.replace(
    "        out.block_until_ready()\n",
    "        out.block_until_ready()\n"
    "        SEND((11, 'a clock the core does not have'))\n"
    "        SEND((11, NAME))\n").replace(
    "    return out, samples\n",
    "    print('LEARNER-METHODS-RAN', len(RAN))\n"
    "    return out, samples\n")

GLOBAL_REBOUND = """
import time
import jax

# The jit hook's module globals are the hooks' module: _record_call looks this name up.
jax.jit.__globals__["_is_tracing"] = lambda leaves: False
""" + LOOP

# The grader's recorder, reached through a hook's closure (jax.device_put's).
_RECORDER = """
import time

import jax

PLACEMENT = jax.device_put
RECORDER = PLACEMENT.__closure__[PLACEMENT.__code__.co_freevars.index("recorder")].cell_contents
"""

SENT_FROM_LEARNER_CODE = {
    # Each of the hooks' operations (RETURN 12, SITED 13), sent with the core's own send
    # from learner code, as a hook would send it. (A clock read, TIMER 11, is what the
    # installed clocks send themselves: from learner code it is a clock read; see
    # test_a_clock_read_sent_straight_to_the_core_is_an_ordinary_read.)
    "sited": ("RECORDER._send((13, 'wait', {'how': 'block_until_ready', 'arrays': [out], "
              "'site': None}, 'arrays', 2, RECORDER.learner_files))"),
    "return": "RECORDER._send((12, 1, [out]))",
    # A whole call (CALL 15), a compilation (COMPILE 18) and the withdrawal of a wait
    # (CANCEL 17), each sent as its hook sends it.
    "call": "RECORDER._send((15, 'fn', [], 0, [out], 2, RECORDER.learner_files))",
    "compile": ("RECORDER._send((18, {'event': 'backend_compile_duration', 'fun': 'fn'}, "
                "RECORDER.learner_files))"),
    "cancel": "RECORDER._send((17, 1))",
    # The former subtraction operation (16): pairs now go through a list, never a send.
    "former pair": "RECORDER._send((16, 1, 2, 0.0, 0.0))",
    # The codes of the operations that once set the latest call's outputs (3) and
    # recorded a readiness check (4) with no sender of their own: a cloned hook could
    # pass for their sender (tests/corpus/integrity/forge_called_from_cloned_hook.py).
    "former called": "RECORDER._send((3, 1, [out]))",
    "former ready": "RECORDER._send((4, 1))",
    # The wait hook's own code, in a function of the learner's with the core's send as its
    # "original", sends a call's record from a frame running that code (the installed
    # hooks' cells are untouched): a hook code sends only the kinds registered for it.
    "wait hook's code sends a call": (
        "import types; hook = type(out).block_until_ready; "
        "cells = dict(zip(hook.__code__.co_freevars, hook.__closure__)); "
        "cells['original'] = types.CellType(RECORDER._send); "
        "types.FunctionType(hook.__code__, hook.__globals__, 'fake', None, tuple("
        "cells[name] for name in hook.__code__.co_freevars))("
        "(15, 'fn', [], 0, [], 2, RECORDER.learner_files))"),
    "late registration": (
        "RECORDER.register({synchronized_samples.__code__: frozenset({'wait'})}, [], {}, {})"),
}

STR_SUBCLASS_FILES = """
import time

import jax
""" + _STR_SUBCLASS + """

PLACEMENT = jax.device_put
RECORDER = PLACEMENT.__closure__[PLACEMENT.__code__.co_freevars.index("recorder")].cell_contents
RECORDER.learner_files = frozenset({Name("submission.py")})
del RAN[:]  # building the frozenset hashed it, in learner code


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    print("LEARNER-METHODS-RAN", len(RAN))
    return out, samples
"""


def _grade(source: str) -> syncgrade.GradeReport:
    return syncgrade.grade("exercise-1", source=source, display_name="submission.py",
                           timeout=120)


def test_a_forged_clock_name_is_tampering_and_runs_no_learner_method() -> None:
    report = _grade(CLOCK_NAME_FORGED)
    assert report.cause == "tampered", report.summary
    lines = [line for line in report.stdout.text.splitlines()
             if line.startswith("LEARNER-METHODS-RAN")]
    assert lines, report.stdout.text[-2000:]
    assert all(line == "LEARNER-METHODS-RAN 0" for line in lines), lines


def test_rebinding_a_global_a_hook_uses_is_tampering() -> None:
    report = _grade(GLOBAL_REBOUND)
    assert report.cause == "tampered", report.summary


@pytest.mark.parametrize("route", sorted(SENT_FROM_LEARNER_CODE))
def test_an_event_sent_from_learner_code_is_tampering(route: str) -> None:
    forged = SENT_FROM_LEARNER_CODE[route]
    source = _RECORDER + LOOP.replace(
        "        out.block_until_ready()\n",
        f"        out.block_until_ready()\n        {forged}\n")
    report = _grade(source)
    assert report.cause == "tampered", (route, report.summary)


def test_the_same_loop_without_the_forged_send_is_not_tampering() -> None:
    # The control for the test above: reaching the recorder alone is not reported.
    report = _grade(_RECORDER + LOOP)
    assert report.cause == "graded", report.summary


def test_a_str_subclass_in_learner_files_never_runs_inside_the_core() -> None:
    report = _grade(STR_SUBCLASS_FILES)
    assert report.cause in ("graded", "tampered"), report.summary
    lines = [line for line in report.stdout.text.splitlines()
             if line.startswith("LEARNER-METHODS-RAN")]
    assert lines, report.stdout.text[-2000:]
    assert all(line == "LEARNER-METHODS-RAN 0" for line in lines), lines


# The installed clock only sends a clock-read message, so learner code that sends that
# message itself takes an ordinary clock read: the core reads the clock (no value comes
# from the sender), finds the reader's line and records it, and the grade is the same as
# with time.perf_counter(). Before the core read the clocks, a timer hook's code run with a
# closure of the learner's making (types.FunctionType) could hand the core a slowed clock:
# a forged 2x speedup once got full marks.
STRAIGHT_TO_THE_CORE = _RECORDER + LOOP.replace(
    "time.perf_counter()", "RECORDER._send((11, 'perf_counter'))")


def test_a_clock_read_sent_straight_to_the_core_is_an_ordinary_read() -> None:
    report = _grade(STRAIGHT_TO_THE_CORE)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.cause == "graded", report.summary
    assert report.status == "passed", details


# The list the hooks append the learner's subtractions to is reachable from learner code
# (through any hook's globals). What the core takes from it is checked there.
_PAIRS = """
import time

import jax

PAIRS = jax.device_put.__globals__["PAIRS"]
"""


@pytest.mark.parametrize("entry", [
    "(1, 2, 0.0, 5.0)",  # reads never made, or not with these values
    "(start.seq, start.seq + 1, float(start), 5.0)",  # a real start, a made-up stop
    "'not a pair'",
])
def test_a_pair_entry_that_is_not_two_real_reads_is_tampering(entry: str) -> None:
    source = _PAIRS + LOOP.replace(
        "        out.block_until_ready()\n",
        f"        out.block_until_ready()\n        PAIRS.append({entry})\n")
    report = _grade(source)
    assert report.cause == "tampered", (entry, report.summary)


def test_a_pair_of_real_reads_added_by_hand_is_what_subtracting_them_records() -> None:
    # The learner holds both readings: appending their pair says what ``stop - start``
    # would have said, so it is not tampering and the grade is the loop's own.
    source = _PAIRS + LOOP.replace(
        "        samples.append(time.perf_counter() - start)\n",
        "        stop = time.perf_counter()\n"
        "        PAIRS.append((start.seq, stop.seq, float(start), float(stop)))\n"
        "        samples.append(float(stop) - float(start))\n")
    report = _grade(source)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.cause == "graded", report.summary
    assert report.status == "passed", details


BACKGROUND_CLOCKS = (Path(__file__).parents[2] / "exercises"
                     / "exercise-1" / "corpus" / "correct" / "background_clock_thread.py")


def test_a_learner_thread_reading_clocks_never_crashes_the_grade() -> None:
    # The core is a generator: a send while another thread was inside it raised
    # "generator already executing", in the learner's code or in the grader's own control
    # step (the child exited, 0/10). Every send now holds the recorder's lock. Before, this
    # correct submission failed in two grades of three; three in a row must pass.
    for _ in range(3):
        report = syncgrade.grade("exercise-1", BACKGROUND_CLOCKS, timeout=120)
        details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
        assert report.status == "passed", details
