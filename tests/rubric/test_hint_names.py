"""Hints that lead to the fix (issue 35, item 5), on hand-written traces: each names what
to change in the exercise's own words and on the learner's own lines. Pure: no child.

- another callable timed: the handed-over parameter's name (``compiled_predict``, what
  ``make_fn()`` returns), the learner's own call rewritten to call it;
- a timer started after the loop's call: ``warmup-excluded`` follows ``times-the-call``;
- no wait where the measurement includes the readback: the readback is the wait;
- a result from another draw of the input (exercise-4): the statement's draw quoted.

The corpus counterpart (each hint, applied to a flawed file, fixes it) is
tests/courses/test_hint_fixes.py."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from builders import call, compile_event, context, pair, read, ret, trace, wait

from syncgrade.rubric import checks as c
from syncgrade.rubric.base import Context
from syncgrade.rubric.handed import Handed, call_example, handed

EX4_SOURCE = (
    "def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):",
    "    start = time.perf_counter()",
    "    result = predict(larger, w)",
    "    result.block_until_ready()",
    "    samples.append(time.perf_counter() - start)",
)


def _with_source(ctx: Context, lines: tuple[str, ...]) -> Context:
    return dataclasses.replace(ctx, source_lines=lines)


def _other_callable() -> list[Any]:
    """One interval (lines 2 to 5) timing a jit the grader did not hand over."""
    timed = {**call([1, 2], 3, name="predict"), "fn": 0}
    return trace(read(1.0, 2), timed, ret(2, [9]), wait([9], 4), read(1.5, 5), pair(1, 5))


def test_the_handed_callable_is_named_as_the_learner_or_the_statement_names_it() -> None:
    ex4 = context("exercise-4", [])
    assert handed(ex4, "main") == Handed("compiled_predict", factory=False)
    renamed = ("def changed_workload(cp, w_host, w, rows, rng, device, repeats):", "    pass")
    assert handed(_with_source(ex4, renamed), "main") == Handed("cp", factory=False)
    assert handed(context("exercise-7", []), "main") == Handed("make_fn", factory=True)
    assert handed(context("exercise-5", []), "bench") is None  # times the learner's own jit


def test_the_learners_call_is_rewritten_to_call_the_handed_one() -> None:
    given = Handed("compiled_predict", factory=False)
    assert call_example("    result = predict(larger, w)", "predict", given) == (
        "compiled_predict(larger, w)")
    assert call_example("host = np.asarray(request(*args))", "request",
                        Handed("fn", False)) == "fn(*args)"
    assert call_example("out = f(x) + f(y)", "f", given) == ""  # which one: not said
    assert call_example("out = make_fn()(x)", "", given) == ""
    assert call_example("anything", "fn", Handed("make_fn", True)) == "fn = make_fn()"


def test_another_callable_timed_names_the_exercises_own_parameter() -> None:
    ctx = _with_source(context("exercise-4", _other_callable()), EX4_SOURCE)
    outcome = c.times_the_call(ctx, "main")
    assert outcome.status == "failed"
    assert "(`predict`), not `compiled_predict`, the function the grader" in outcome.message
    assert "Call `compiled_predict` itself" in outcome.hint
    assert "`compiled_predict(larger, w)`" in outcome.hint
    assert "fn(*args)" not in outcome.hint


def test_a_factorys_callables_are_named_by_the_factory() -> None:
    outcome = c.times_the_call(context("exercise-7", _other_callable()), "main")
    assert outcome.status == "failed"
    assert "not what `make_fn()` returns" in outcome.message
    assert "`make_fn()`" in outcome.hint and "compiled_predict" not in outcome.hint


def _timer_after_call(warm_up: bool) -> list[Any]:
    """Two samples whose timer starts after the loop's call on line 10 (reads on 11 and
    13); ``warm_up``: an unwaited warm-up call on line 5 first."""
    head = [call([1, 2], 5), ret(1, [4])] if warm_up else []
    n = len(head)
    return trace(*head,
                 call([1, 2], 10), ret(n + 1, [5]), read(1.0, 11), wait([5], 12),
                 read(1.5, 13),
                 call([1, 2], 10), ret(n + 6, [6]), read(2.0, 11), wait([6], 12),
                 read(2.5, 13), pair(n + 3, n + 5), pair(n + 8, n + 10))


def test_a_timer_started_after_the_loops_call_is_one_mistake() -> None:
    ctx = context("exercise-1", _timer_after_call(warm_up=False))
    timed = c.times_the_call(ctx, "main")
    warm = c.warmup_excluded(ctx, "main")
    assert timed.status == warm.status == "failed"
    assert timed.hint == ("Start the clock just before the call on line 10 and stop it "
                          "after waiting.")
    assert timed.evidence.facts["flaw"] == "call not timed"
    assert warm.evidence.facts["follows"] == "call not timed"
    assert "call on line 10" in warm.hint and "warm-up" not in warm.hint


def test_an_unwaited_warm_up_before_an_empty_interval_keeps_its_own_hint() -> None:
    ctx = context("exercise-1", _timer_after_call(warm_up=True))
    warm = c.warmup_excluded(ctx, "main")
    assert warm.status == "failed"
    assert "follows" not in warm.evidence.facts
    assert "Wait on the warm-up's output" in warm.hint


def _no_wait() -> list[Any]:
    return trace(read(1.0, 14), call([1, 2], 16), ret(2, [9]), read(1.5, 17), pair(1, 4))


def test_where_the_readback_is_measured_it_is_the_wait_the_hint_asks_for() -> None:
    readback = c.sync_before_stop(context("exercise-8", _no_wait()), "main")
    assert readback.status == "failed"
    assert "`np.asarray(out)`" in readback.hint and "block_until_ready" not in readback.hint
    assert readback.evidence.facts["follows"] == "no readback"
    missing = c.readback_included(context("exercise-8", _no_wait()), "main")
    assert missing.evidence.facts["flaw"] == "no readback"
    plain = c.sync_before_stop(context("exercise-1", _no_wait()), "main")
    assert "`out.block_until_ready()`" in plain.hint and "follows" not in plain.evidence.facts


DRAW = "rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)"


def _drawn(returned_input: np.ndarray, result: np.ndarray) -> Context:
    references = {"predict": np.tanh(np.ones((4, 3))), "larger_host": np.ones((4, 2))}
    return context("exercise-4", [], decoded=(returned_input, result, []),
                   references=references)


def test_a_result_of_another_draw_quotes_the_statements_draw() -> None:
    params: dict[str, Any] = {"drawn": (0,), "drawn_reference": "larger_host", "draw": DRAW}
    fewer_rows = _drawn(np.ones((3, 2)), np.ones((3, 3)))
    assert f"(`{DRAW}`)" in c.shape(fewer_rows, "main", (1,), "predict", **params).hint
    other_values = _drawn(np.zeros((4, 2)), np.zeros((4, 3)))
    assert f"(`{DRAW}`)" in c.numpy_match(other_values, "main", (1,), "predict",
                                          **params).hint
    # The right draw: what differs is the computation, and the hint says so as before.
    own_bug = c.numpy_match(_drawn(np.ones((4, 2)), np.zeros((4, 3))), "main", (1,),
                            "predict", **params)
    assert own_bug.status == "failed" and DRAW not in own_bug.hint


def test_a_warm_up_of_another_callable_names_a_factory_only_where_there_is_one() -> None:
    """Exercise-7 hands over `make_fn`; exercise-1 hands over `fn` itself, and its hint
    has no `make_fn()` to name."""
    events = trace(call([1, 2], 1), ret(1, [5]), wait([5], 1), read(1.0, 2),
                   compile_event(3), call([1, 2], 3), ret(6, [9]), wait([9], 4),
                   read(1.5, 5), pair(4, 9))
    hints = {exercise: c.warmup_excluded(context(exercise, events), "main").hint
             for exercise in ("exercise-1", "exercise-7")}
    assert all("Warm up the very callable you time" in hint for hint in hints.values())
    assert "(or `make_fn()`)" in hints["exercise-7"]
    assert "make_fn" not in hints["exercise-1"]
