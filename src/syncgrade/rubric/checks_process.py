"""Checks of the learner's program as a program: it runs, and its own check fails when
it should. Each is a pure function ``(ctx, **params) -> Outcome``; semantics:
docs/checks.md. Messages never show hidden inputs or expected values.

- ``runs``: the file loads, the required names exist with the required parameters, and
  every grader call returns without raising and within the limits.
- ``verification-catches-errors``: the learner's own correctness check must be able to fail.

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

import re
from collections.abc import Mapping
from typing import Any

from syncgrade.models import Evidence
from syncgrade.rubric.base import Context, Outcome, Skip
from syncgrade.rubric.intervals import function_of, on_line
from syncgrade.trace import CallFrame, NameProblem

# --------------------------------------------------------------------------- runs


_SYNTAX_PLACE = re.compile(r"\.?\s*\([^()]*, line \d+\)\s*$")
"""The "(file.py, line 3)" Python appends to a syntax error: the message names the line."""


def runs(ctx: Context, calls: tuple[str, ...]) -> Outcome:
    """The file loads, the names exist with the right parameters, every call returns."""
    if ctx.load is None:
        return _broken(ctx, "Your file did not finish loading")
    if ctx.load.error is not None:
        err = ctx.load.error
        if err.type in ("SyntaxError", "IndentationError", "TabError"):
            where = f"line {err.line}" if err.line else "that line"
            name = ctx.display_name
            run = (f", then run `python {name}` to check" if name.endswith(".py")
                   and "`" not in name else ", then grade it again")
            return Outcome.fail(
                f"Python could not read your file: {err.type}{on_line(err.line)}: "
                f"{_SYNTAX_PLACE.sub('', _first_line(err.message))}.",
                f"Fix the syntax on {where}{run}.",
                Evidence(facts={"line": err.line, "error": err.type}),
            )
        if err.type == "MemoryError":
            return _out_of_memory("Importing your file", err.line)
        if _MAIN_THREAD_ONLY.search(err.message):
            return _needs_the_main_thread("Importing your file", err.type, err.line,
                                          _first_line(err.message), None)
        return Outcome.fail(
            f"Importing your file raised {err.type}{on_line(err.line)}: {_first_line(err.message)}",
            "Keep top-level code to imports and definitions; put experiments under "
            "`if __name__ == \"__main__\":`.",
            Evidence(facts={"line": err.line, "error": err.type}),
        )
    if ctx.load.problems:
        return _name_problems(ctx, ctx.load.problems)
    for call_id in calls:
        frame = ctx.frames.get(call_id)
        if frame is None:
            return _broken(ctx, f"The grader's call of `{function_of(ctx, call_id)}` did "
                                "not finish")
        if frame.grader_error:
            # The engine raises for a rubric fault first (engine.unbuilt_calls), so this is
            # a learner's change to grader or library state. The child's text may name
            # grader internals (workload names): show only the exception type.
            kind = frame.grader_error.split(":", 1)[0][:60]
            return Outcome.fail(
                f"The grader could not prepare its call of `{function_of(ctx, call_id)}` "
                f"({kind}): your code changed the grader's or a library's state.",
                "Do not import or modify `syncgrade`, and do not replace or patch functions "
                "of `jax`, `numpy` or `time` at import or in your functions.",
                Evidence(facts={"call": call_id, "error": kind}),
            )
        if frame.error is not None:
            err = frame.error
            fn = function_of(ctx, call_id)
            if err.type == "MemoryError":
                return _out_of_memory(f"`{fn}`", err.line)
            if _DELETED.search(err.message):
                return Outcome.fail(
                    f"`{fn}` used an array that a call had already consumed{on_line(err.line)}"
                    f" ({err.type}: {_first_line(err.message).rstrip('.')}): a jitted "
                    "function with donated arguments (`donate_argnums`) takes its input's "
                    "buffer, and the array is deleted when the call returns.",
                    "Never use an array again after passing it to a donating call: place a "
                    "fresh input for each call (`x = jax.device_put(x_host)`, inside the "
                    "loop) and keep the output (`x = step(x)`) if you need the result.",
                    Evidence(facts={"line": err.line, "error": err.type, "call": call_id,
                                    "donated": True}),
                )
            if _MAIN_THREAD_ONLY.search(err.message):
                return _needs_the_main_thread(f"`{fn}`", err.type, err.line,
                                              _first_line(err.message), call_id)
            return Outcome.fail(
                f"`{fn}` raised {err.type}{on_line(err.line)}: {_first_line(err.message)}",
                "Run `python submission.py` to reproduce it; the grader calls your function "
                "with other inputs of the same kind, so avoid fixed shapes or sizes.",
                Evidence(facts={"line": err.line, "error": err.type, "call": call_id}),
            )
    return Outcome.ok("Your file loads and every call returned.")


_MAIN_THREAD_ONLY = re.compile(r"\bmain thread\b", re.IGNORECASE)
"""An error that says it needs Python's main thread, whatever raised it
(``signal.signal``: "signal only works in main thread of the main interpreter",
``signal.set_wakeup_fd``, an event loop's signal handlers, a GUI toolkit): learner code
runs on a worker thread of the grading child (docs/security.md, "Learner code in the same
process"), so such code fails only while grading, and "run it yourself to reproduce it"
would send the learner after an error their machine does not show."""


def _needs_the_main_thread(what: str, error_type: str, line: int | None, words: str,
                           call_id: str | None) -> Outcome:
    """``runs`` fails for code that works only on Python's main thread: say so, and
    that the grader needs no timeout of the learner's."""
    facts: dict[str, Any] = {"line": line, "error": error_type, "main_thread": True}
    if call_id is not None:
        facts["call"] = call_id
    return Outcome.fail(
        f"{what} raised {error_type}{on_line(line)}: {words.rstrip('.')}. The grader runs "
        "your code on a thread other than Python's main one, where code that needs the "
        "main thread cannot run (signal handlers: `signal.signal`, an alarm timeout).",
        "Remove what needs the main thread: the grader already stops a run that takes too "
        "long, so your benchmark needs no timeout of its own.",
        Evidence(facts=facts),
    )


_DELETED = re.compile(r"(Array|[Bb]uffer) has been deleted|donated")
"""jax's words for an array used after a donating call consumed it ("Array has been
deleted with shape=...", "INVALID_ARGUMENT: ... Buffer has been deleted or donated")."""


def _name_problems(ctx: Context, problems: list[NameProblem]) -> Outcome:
    """Every name the file should define and does not, or defines with other parameters,
    in one message (the first one's facts, as before, plus how many there are)."""
    said: list[str] = []
    hints: list[str] = []
    for problem in problems:
        required = next((r for r in ctx.exercise.required if r.name == problem.name), None)
        expected = (f"`{problem.name}({required.params})`" if required and required.params
                    else f"`{problem.name}`")
        if problem.problem == "missing":
            said.append(f"Your file does not define {expected}.")
            hints.append("Check the spelling of the name; the exercise README gives the "
                         "exact signature.")
        else:
            said.append(f"`{problem.name}` cannot be called as {expected}: {problem.detail}.")
            hints.append("Keep the parameters exactly as the exercise README gives them.")
    first = problems[0]
    facts: dict[str, Any] = ({"missing": first.name} if first.problem == "missing"
                             else {"name": first.name})
    if len(said) > 1:
        facts["problems"] = len(said)
    return Outcome.fail(" ".join(said), " ".join(dict.fromkeys(hints)), Evidence(facts=facts))


def _first_line(text: str, limit: int = 160) -> str:
    """The first line of a learner's exception message, shortened. Assertion messages
    (``assert_allclose``) dump values computed from hidden inputs on later lines."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _out_of_memory(who: str, line: int | None) -> Outcome:
    return Outcome.fail(
        f"{who} hit the memory limit{on_line(line)} (MemoryError).",
        "Avoid building very large arrays or keeping every output.",
        Evidence(facts={"line": line, "error": "MemoryError"}),
    )


def _broken(ctx: Context, what: str) -> Outcome:
    """`runs` failed because the child stopped: say why (time, memory, exit, signal)."""
    reason, hint = ctx.termination
    message = f"{what}: {reason}." if reason else f"{what}."
    return Outcome.fail(message, hint or "Run `python submission.py` to see what happens.",
                        Evidence(facts={"stopped": reason or None}))


# --------------------------------------------------------------------------- verification


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
