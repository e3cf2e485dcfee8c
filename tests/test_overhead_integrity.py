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

TIMER_TUPLE_REPLACED = """
import time

cell = time.perf_counter.__closure__[0]
REAL = time.get_clock_info  # any builtin: the real clock is the tuple's builtin of that name
cell.cell_contents = tuple(
    (lambda: 0.0) if type(item) is type(REAL) and item.__name__ == "perf_counter" else item
    for item in cell.cell_contents)  # a clock that never moves
""" + LOOP

GLOBAL_REBOUND = """
import time
import jax

# The jit hook's module globals are the hooks' module: _record_call looks this name up.
jax.jit.__globals__["_is_tracing"] = lambda leaves: False
""" + LOOP

# The grader's recorder, reached the way forge_traceback_walk.py reaches it.
_RECORDER = """
import time

RECORDER = time.perf_counter.__closure__[0].cell_contents[0]
"""

SENT_FROM_LEARNER_CODE = {
    # Each of the hooks' operations (TIMER 11, RETURN 12, SITED 13), sent with the core's
    # own send from learner code, as a hook would send it.
    "timer": "RECORDER._send((11, 'perf_counter', RECORDER.learner_files))",
    "sited": ("RECORDER._send((13, 'wait', {'how': 'block_until_ready', 'arrays': [out], "
              "'site': None}, 'arrays', 2, RECORDER.learner_files))"),
    "return": "RECORDER._send((12, 1, [out]))",
    # The codes of the operations that once set the latest call's outputs (3) and
    # recorded a readiness check (4) with no sender of their own: a cloned hook could
    # pass for their sender (tests/corpus/integrity/forge_called_from_cloned_hook.py).
    "former called": "RECORDER._send((3, 1, [out]))",
    "former ready": "RECORDER._send((4, 1))",
    # The wait hook's own code, in a function of the learner's with the core's send as its
    # "original", sends a clock read from a frame running that code (the installed hooks'
    # cells are untouched): a hook code sends only the kinds registered for it.
    "wait hook's code sends a timer": (
        "import types; hook = type(out).block_until_ready; "
        "cells = dict(zip(hook.__code__.co_freevars, hook.__closure__)); "
        "cells['original'] = types.CellType(RECORDER._send); "
        "types.FunctionType(hook.__code__, hook.__globals__, 'fake', None, tuple("
        "cells[name] for name in hook.__code__.co_freevars))("
        "(11, 'perf_counter', 1.0, RECORDER.learner_files))"),
    "late registration": (
        "RECORDER.register({synchronized_samples.__code__: frozenset({'timer'})})"),
}

STR_SUBCLASS_FILES = """
import time

RAN = []


class Name(str):
    def __eq__(self, other):
        RAN.append("eq")
        return str.__eq__(self, other)

    def __hash__(self):
        RAN.append("hash")
        return str.__hash__(self)


RECORDER = time.perf_counter.__closure__[0].cell_contents[0]
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


def test_replacing_the_timer_hooks_captured_tuple_is_tampering() -> None:
    report = _grade(TIMER_TUPLE_REPLACED)
    assert report.cause == "tampered", report.summary


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


# The timer hook's own code, run with a closure of the learner's making whose clock runs
# at a quarter of the speed (a 4x "speedup"). The cell checks cannot see it: the hook's
# own cell is untouched. The core reads the clock itself, so the readings, and the
# samples made from them, are the real ones.
CLONED_TIMER_HOOK = """
import time
import types

hook = time.perf_counter
recorder, clock, original, cls, send, timer = hook.__closure__[0].cell_contents
ORIGIN = original()


def quarter_speed():
    return ORIGIN + (original() - ORIGIN) / 4


clone = types.FunctionType(hook.__code__, hook.__globals__, hook.__name__, None,
                           (types.CellType((recorder, clock, quarter_speed, cls, send, timer)),))


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = clone()
        out = fn(*args)
        out.block_until_ready()
        samples.append(clone() - start)
    return out, samples
"""


def test_a_hooks_code_run_with_the_learners_clock_still_reads_the_real_clock() -> None:
    # Before the core read the clock itself, the recorded readings were the fake ones:
    # the probe's samples showed a quarter of the work and covers-device-work failed
    # (at half speed the forged 2x speedup passed every check).
    report = _grade(CLONED_TIMER_HOOK)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.cause == "graded", report.summary
    assert report.status == "passed", details
