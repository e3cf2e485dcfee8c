"""warmup-excluded and inputs-ready on hand-written traces: what the learner is told, and
that an unwaited warm-up (a sleep in place of a wait) fails. Pure: no child process."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from builders import Events, context, given, pair, ret, trace

from syncgrade.analysis import analyse
from syncgrade.courses import get_exercise
from syncgrade.rubric import checks as c
from syncgrade.rubric.base import Context, Outcome
from syncgrade.rubric.intervals import callee_name

# The traces read as a longer submission: clock reads on line 10, the call on 11, ...
_AT = Events(read_line=10, call_line=11, wait_line=12, put_line=5, compile_line=11)
read, call, wait, put, compile_event = _AT.read, _AT.call, _AT.wait, _AT.put, _AT.compile_event


def _run(exercise: str, check_id: str, ctx: Context) -> Outcome:
    spec = next(s for s in get_exercise(exercise).checks if s.id == check_id)
    return spec.fn(ctx, **spec.params)


# --------------------------------------------------------------------------- warm-up


def _exercise_7(*warm_setup: dict[str, Any]) -> list[Any]:
    """A first-call interval (reads 1 and 5), then ``warm_setup``, then a warm interval
    that compiles (its call has inputs [1, 2])."""
    head = [read(0.0), call([1, 2]), ret(2, [3]), wait([3]), read(0.5)]
    n = len(head) + len(warm_setup)
    tail = [read(1.0, 20), compile_event(21), call([1, 2], 21), ret(n + 3, [9]), wait([9], 22),
            read(1.25, 23)]
    return trace(*head, *warm_setup, *tail, pair(1, 5), pair(n + 1, n + 6))


def _warm_message(events: list[Any]) -> Outcome:
    ctx = context("exercise-7", events)
    # The decoded report (a context caches decoded values): samples are the two intervals.
    ctx._values["main"] = {"first_call_s": [analyse(events).intervals[0].seconds],
                           "warm_s": [analyse(events).intervals[1].seconds]}
    return _run("exercise-7", "warmup-excluded", ctx)


def test_exercise_7_without_any_warm_up_says_so() -> None:
    outcome = _warm_message(_exercise_7())
    assert outcome.status == "failed"
    assert "no warm-up call of `fn` ran before it" in outcome.message
    assert "different arguments" not in outcome.message + outcome.hint


def test_a_warm_up_on_other_arguments_is_named_with_its_line() -> None:
    events = _exercise_7(call([7, 8], 17, numpy_args=2), ret(6, [11]), wait([11], 18))
    outcome = _warm_message(events)
    assert outcome.status == "failed"
    assert "the warm-up on line 17 ran on different arguments" in outcome.message


def test_a_warm_up_of_another_callable_on_the_same_arguments() -> None:
    events = _exercise_7(call([1, 2], 17), ret(6, [11]), wait([11], 18))
    outcome = _warm_message(events)
    assert outcome.status == "failed"
    assert "used the same arguments, but the timed call went to another callable" in (
        outcome.message)


def _timed_loop(*setup: dict[str, Any]) -> list[Any]:
    """``setup`` then one interval timing a waited call on inputs [1, 2]."""
    n = len(setup)
    return trace(*setup, read(1.0, 20), call([1, 2], 21), ret(n + 2, [9]), wait([9], 22),
                 read(1.5, 23), pair(n + 1, n + 5))


def test_an_unwaited_warm_up_fails_even_when_a_sleep_would_cover_it() -> None:
    events = _timed_loop(given([1, 2]), call([1, 2], 7), ret(2, [5]))
    outcome = c.warmup_excluded(context("exercise-5", events), call="main")
    assert outcome.status == "failed"
    assert "Nothing waited for the output of the call on line 7" in outcome.message
    assert "line 20" in outcome.message and "time.sleep" in outcome.hint


def test_a_waited_warm_up_passes_and_a_later_wait_completes_earlier_calls() -> None:
    waited = _timed_loop(given([1, 2]), call([1, 2], 7), ret(2, [5]), wait([5], 8))
    assert c.warmup_excluded(context("exercise-5", waited), call="main").status == "passed"
    chained = _timed_loop(given([1, 2]), call([1, 2], 7), ret(2, [5]), call([1, 2], 8),
                          ret(4, [6]), wait([6], 9))
    assert c.warmup_excluded(context("exercise-5", chained), call="main").status == "passed"
    only_older = _timed_loop(given([1, 2]), call([1, 2], 7), ret(2, [5]), wait([5], 8),
                             call([1, 2], 9), ret(5, [6]))
    outcome = c.warmup_excluded(context("exercise-5", only_older), call="main")
    assert outcome.status == "failed" and "call on line 9" in outcome.message


# --------------------------------------------------------------------------- inputs-ready


def test_inputs_ready_names_the_line_of_the_unwaited_placement() -> None:
    events = _timed_loop(put([1], 5), put([2], 6), wait([2], 7))
    outcome = c.inputs_ready(context("exercise-3", events), call="main")
    assert outcome.status == "failed"
    assert outcome.message.startswith("The input placed on line 5 was not waited on before "
                                      "the timer started on line 20")
    assert outcome.evidence.facts["placement_line"] == 5


def test_inputs_ready_for_handed_over_unready_arguments_names_the_timer_line() -> None:
    events = _timed_loop(given([2]))
    outcome = c.inputs_ready(context("exercise-6", events), call="main")
    assert outcome.status == "failed"
    assert "timer started on line 20" in outcome.message and "placed on line" not in (
        outcome.message)
    waited = _timed_loop(put([1], 5), given([2]), wait([1], 7))
    assert c.inputs_ready(context("exercise-3", waited), call="main").status == "passed"


# --------------------------------------------------------------------------- names


def _with_source(ctx: Context, *lines: str) -> Context:
    return dataclasses.replace(ctx, source_lines=lines)


def _called(line: str, name: str = "predict") -> str:
    """What a message calls the callable of a call recorded on ``line`` (line 1)."""
    event = trace(call([1], 1, name=name))[0]
    return callee_name(_with_source(context("exercise-1", []), line), event)


@pytest.mark.parametrize(("line", "said"), [
    ("out = fn(*args)", "`fn`"),
    ("out = fn(*args).block_until_ready()", "`fn`"),
    ("jax.block_until_ready(model(x, w))", "`model`"),
    ("result = np.asarray(self.timed(x))", "`self.timed`"),
    ("outs.append(fns[0](x))", "`fns[0]`"),
    ("out = make_fn()(*args)", "the timed function"),
    ("out = (lambda a: fn(a))(x)", "the timed function"),
    ("out = fn(prepare(x))", "the timed function"),  # two candidates, neither recorded
    ("out = predict(prepare(x))", "`predict`"),  # ... one of them the recorded name
    ("with timer(): out = step(x)", "the timed function"),
    ("for out in run(fn,", "the timed function"),
    ("out = fn(x,", "`fn`"),  # the first line of a call that goes on
])
def test_a_call_is_named_as_the_learners_line_names_it(line: str, said: str) -> None:
    assert _called(line) == said


def test_without_the_source_the_recorded_name_is_used() -> None:
    event = trace(call([1], 1, name="predict"))[0]
    assert callee_name(context("exercise-1", []), event) == "`predict`"
    odd = trace(call([1], 1, name="<lambda>"))[0]
    assert callee_name(context("exercise-1", []), odd) == "the timed function"


def test_a_missing_warm_up_names_the_function_as_the_learner_does() -> None:
    events = _exercise_7()
    for event in events:
        if getattr(event, "kind", "") == "call":
            object.__setattr__(event, "name", "predict")  # the grader's name for it
    ctx = _with_source(context("exercise-7", events),
                       *(["x = 1"] * 20), "out = fn(*args)")  # the timed call: line 21
    ctx._values["main"] = {"first_call_s": [analyse(events).intervals[0].seconds],
                           "warm_s": [analyse(events).intervals[1].seconds]}
    outcome = _run("exercise-7", "warmup-excluded", ctx)
    assert outcome.status == "failed"
    assert "no warm-up call of `fn` ran before it" in outcome.message
    assert "`predict`" not in outcome.message + outcome.hint
    assert "Call `fn` once" in outcome.hint
    assert outcome.evidence.timeline is not None
    call_entry = next(e for e in outcome.evidence.timeline.entries if e.what == "call")
    assert call_entry.detail == "fn(...) dispatched"


@pytest.mark.parametrize("line", [
    "out = " + "a." * 3000 + "fn(x)",  # deep enough to trouble a recursive unparse
    "out = " + "(" * 500 + "fn(x)" + ")" * 500,
    "out = fn(x)  # " + "x" * 500,
    "out = " + "very_long_name_" * 5 + "(x)",
])
def test_odd_lines_give_the_timed_function_never_an_error(line: str) -> None:
    assert _called(line) == "the timed function"
