"""``verification-catches-errors``: the learner's own correctness check must be able to fail.

The rubric calls the learner function once with the right workload (``right``: it must not
raise) and once per subtly wrong setup (``wrong``: each must raise ``AssertionError``). The
wrong calls are not part of ``runs``: raising there is the behaviour asked for, so this
check reads their frames directly. A reference computed by the function under test, a
tolerance loose enough to pass a 0.1% error, a reference computed from the device copies of
the data, or a swallowed assertion all let a wrong setup return normally.

When the check runs is the lesson's rule, "check an independent NumPy result before
comparing timings": the AssertionError must reach the caller, so the timings of a wrong
setup are never returned. Checking right after the warm-up (before any sample) is the
recommended style; checking the last timed result after the samples, as the lesson's own
reference does, is as good. A check inside a timed interval is host work inside a sample,
which the interval checks fail.
"""

from __future__ import annotations

from collections.abc import Mapping

from syncgrade.models import Evidence
from syncgrade.rubric.base import Context, Outcome, Skip
from syncgrade.trace import CallFrame

_WHERE = "the output of `compiled_predict`"
_HINT = ("Compare with a NumPy reference computed from the host copies, e.g. "
         "`np.testing.assert_allclose(np.asarray(out), np.tanh(larger_host @ w_host), "
         "atol=2e-5, rtol=2e-5)`, and let the `AssertionError` reach the caller.")


def _at(line: int | None) -> str:
    return f" on line {line}" if line else ""


def _frame(ctx: Context, call: str) -> CallFrame:
    """The call's frame whether or not it raised; :class:`Skip` when it is missing."""
    if not ctx.loaded:
        raise Skip("the submission did not load")
    frame = ctx.frames.get(call)
    if frame is None:
        raise Skip("the grader's call did not finish")
    if frame.grader_error:  # the learner changed grader state: `runs` says so
        raise Skip("the grader could not prepare this call: your code changed grader state")
    return frame


def _right_call(ctx: Context, call: str) -> Outcome | None:
    """A failing outcome when the check rejects the correct workload, else ``None``."""
    frame = _frame(ctx, call)
    if frame.error is None:
        return None
    if frame.error.type != "AssertionError":
        raise Skip("the call with the correct function raised an error (see `runs`)")
    return Outcome.fail(
        f"Your check raised AssertionError{_at(frame.error.line)} although "
        f"{_WHERE} was correct: it rejects right results.",
        "Compare the warm result with `np.tanh(larger_host @ w_host)` on the same input you "
        "placed, with atol=2e-5 and rtol=2e-5.",
        Evidence(facts={"line": frame.error.line, "call": call}),
    )


def _wrong_call(ctx: Context, call: str, flaw: str, cause: str) -> Outcome | None:
    """A failing outcome when the wrong setup ``call`` did not raise AssertionError.

    The lesson's rule: the check runs on the timed function's result and raises *before
    the timings are used* (returned, compared, reported). An AssertionError that reaches
    the caller does that wherever it came from, after the warm-up (the recommended place)
    or after the samples (the lesson's own reference). A check inside a timed interval is
    host work inside a sample: the interval checks fail it, not this one."""
    frame = _frame(ctx, call)
    if frame.error is not None and frame.error.type == "AssertionError":
        return None
    if frame.error is not None:
        return Outcome.fail(
            f"When {flaw}, your function raised {frame.error.type}{_at(frame.error.line)} "
            "instead of AssertionError.",
            "Signal a mismatch with `np.testing.assert_allclose` (or `assert`), which "
            "raise AssertionError; make sure nothing else fails on the way.",
            Evidence(facts={"line": frame.error.line, "error": frame.error.type, "call": call}),
        )
    return Outcome.fail(f"When {flaw}, your function returned normally: {cause}", _HINT,
                        Evidence(facts={"call": call}))


def verification_catches_errors(
    ctx: Context, right: str, wrong: Mapping[str, tuple[str, str]]
) -> Outcome:
    """``right`` returned without raising, and every call in ``wrong`` (call id ->
    (what was wrong, the likely cause), both learner-facing) raised AssertionError."""
    rejected = _right_call(ctx, right)
    if rejected is not None:
        return rejected
    for call, (flaw, cause) in wrong.items():
        missed = _wrong_call(ctx, call, flaw, cause)
        if missed is not None:
            return missed
    return Outcome.ok("Your check accepted the correct function and raised AssertionError "
                      f"for each of the {len(wrong)} subtly wrong setups.")
