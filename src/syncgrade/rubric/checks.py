"""Reusable checks. Each is a pure function ``(ctx, **params) -> Outcome``.

Parameters name which grader call a check reads (``call``), where in the returned value the
result or samples are (``result``/``samples``, a path of indexes and keys), and which
reference to compare with. Semantics: docs/checks.md. Messages never show hidden inputs or
expected values: shapes and counts the learner was told are fine, numbers are not.

The helpers they share (which intervals to judge, line numbers, timelines) are public in
:mod:`syncgrade.rubric.intervals`; every check and its parameters are listed in
docs/authoring.md.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from syncgrade.analysis import CPU_CLOCKS, Interval, SampleMatch, analyse, waits_on_output
from syncgrade.models import Evidence
from syncgrade.rubric import tolerance
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.intervals import (
    Verdict,
    callee_name,
    flaw_facts,
    function_of,
    judged_intervals,
    line_of,
    no_intervals,
    on_line,
    places_of,
    sample_match,
    samples_at,
    timed_intervals,
    with_timeline,
)
from syncgrade.trace import Call, Given, NameProblem, Placement, Wait
from syncgrade.values import JaxArray, Opaque, is_finite_positive, is_number

UNIT_NAMES = {1e3: "milliseconds", 1e6: "microseconds", 1e9: "nanoseconds"}


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
            return Outcome.fail(
                f"`{fn}` raised {err.type}{on_line(err.line)}: {_first_line(err.message)}",
                "Run `python submission.py` to reproduce it; the grader calls your function "
                "with other inputs of the same kind, so avoid fixed shapes or sizes.",
                Evidence(facts={"line": err.line, "error": err.type, "call": call_id}),
            )
    return Outcome.ok("Your file loads and every call returned.")


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


# --------------------------------------------------------------------------- results


def numpy_match(ctx: Context, call: str, result: ValuePath, reference: str,
                backend: str | None = None, kind: str = "array") -> Outcome:
    """The result agrees with the grader's float64 NumPy reference on hidden inputs, element
    by element, within what float32 rounding allows on the child's backend (``backend``
    overrides it, e.g. ``tolerance.HOST`` for a NumPy result). The allowance is derived in
    ``rubric/tolerance.py`` and is never tighter than the lesson's atol=rtol=2e-5 check.
    ``kind``: ``"numpy"`` when the statement asks for the result on the host, as a NumPy
    array (a device ``jax.Array`` then fails); ``"array"`` accepts either."""
    got = ctx.value(call, result)
    expected = tolerance.as_expected(ctx.references[reference])
    if isinstance(got, Opaque):
        return Outcome.fail(f"The result could not be read back: {got.reason}.",
                            "Return a JAX or NumPy array.")
    if kind == "numpy" and (isinstance(got, JaxArray) or not isinstance(got, np.ndarray)):
        what = "a device `jax.Array`" if isinstance(got, JaxArray) else _describe(got)
        return Outcome.fail(
            f"The result is {what}, but this exercise asks for the result on the host, as "
            "a NumPy array.",
            "Bring the output back inside each sample (e.g. `np.asarray(out)`) and return "
            "that NumPy array.", Evidence(facts={"got": type(got).__name__}))
    if np.iscomplexobj(got):
        return Outcome.fail("The result holds complex numbers.",
                            "Return the real float32 array your function computed.")
    try:
        array = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return Outcome.fail(f"The result is a {type(got).__name__}, not an array.",
                            "Return the array your function computed.")
    if array.shape != expected.shape:
        # Only a result that is the reference over-reduced is fixed by fixing its shape:
        # then `shape` leads; any other values fail here on their own.
        over_reduced = array.shape == () and _same_total(array, np.asarray(expected))
        return Outcome.fail(
            f"{shape_difference(array.shape, expected.shape)}, so it cannot match the "
            "reference.", _SHAPE_HINT,
            Evidence(facts={"got_ndim": array.ndim, "expected_ndim": len(expected.shape),
                            **flaw_facts("result shape" if over_reduced else "", None)}),
        )
    if not np.all(np.isfinite(array)):
        return Outcome.fail("The result contains NaN or infinite values.",
                            "Check the computation on the inputs you were given.")
    if backend is None:
        backend = ctx.hello.backend if ctx.hello is not None else "unknown"
    diff = tolerance.compare(array, expected, backend)
    if diff.count:
        facts = {"mismatched": diff.count, "total": diff.total,
                 "largest_error": float(f"{diff.error:.2g}"),
                 "allowed_there": float(f"{diff.allowed:.2g}")}
        return Outcome.fail(
            f"{diff.count} of {diff.total} values differ from an independent NumPy reference; "
            f"the largest difference is {diff.error:.1e} where float32 rounding allows at "
            f"most {diff.allowed:.1e}.", _mismatch_hint(got), Evidence(facts=facts),
        )
    return Outcome.ok("The result matches an independent NumPy reference on hidden inputs.")


def _same_total(scalar: np.ndarray, expected: np.ndarray) -> bool:
    """Whether a scalar result is the sum of the reference's values (the right computation
    reduced over every axis), within float32 rounding of that sum."""
    total = float(np.sum(np.asarray(expected, dtype=np.float64)))
    scale = float(np.sum(np.abs(np.asarray(expected, dtype=np.float64)))) or 1.0
    return bool(np.isfinite(scalar).all()) and abs(float(scalar) - total) <= 1e-4 * scale


def _mismatch_hint(got: Any) -> str:
    """What to change when the values differ: a low-precision dtype is named, since its
    rounding alone is larger than float32's."""
    dtype = getattr(got, "source_dtype", None) or getattr(getattr(got, "dtype", None),
                                                            "name", "")
    if dtype in ("float16", "bfloat16") or str(dtype).startswith("float8"):
        return (f"Your result is {dtype}, whose rounding alone is larger than float32 allows: "
                "keep the computation and the returned array in float32.")
    return ("Check your function against NumPy on your own inputs first (e.g. "
            "`np.testing.assert_allclose(result, expected, atol=2e-5, rtol=2e-5)`), and return "
            "the output of the call you timed, computed from the arguments you were given.")


_SHAPE_HINT = ("Compare the axes your computation keeps with the result the exercise README "
               "describes (for example one value per row): reduce exactly the axis it names, "
               "and return the output of that computation.")


def shape_difference(got: tuple[int, ...], expected: tuple[int, ...]) -> str:
    """How two shapes differ, in words that name axes, never their sizes: the sizes come
    from hidden inputs (messages must not reveal them)."""
    if got == ():
        return ("The result is a scalar (the reduction ran over every axis), but one value "
                f"per element of a {len(expected)}-axis result is expected"
                if expected else "The result is a scalar")
    if len(got) != len(expected):
        return (f"The result has {len(got)} ax{'i' if len(got) == 1 else 'e'}s, but the "
                f"exercise asks for {len(expected)}")
    wrong = [str(i) for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b]
    return (f"The result has the right number of axes, but the length of axis "
            f"{', '.join(wrong)} differs from what the hidden inputs give")


def shape(ctx: Context, call: str, result: ValuePath, reference: str) -> Outcome:
    """The result's shape equals the reference's; a failure names axes, never sizes."""
    got = ctx.value(call, result)
    expected = tuple(np.shape(ctx.references[reference]))
    got_shape = tuple(getattr(got, "shape", np.shape(got) if is_number(got) else ()))
    if got_shape != expected:
        return Outcome.fail(
            f"{shape_difference(got_shape, expected)}.", _SHAPE_HINT,
            Evidence(facts={"got_ndim": len(got_shape), "expected_ndim": len(expected),
                            **flaw_facts("result shape", None)}),
        )
    return Outcome.ok(f"The result has the expected shape ({len(expected)} "
                      f"ax{'i' if len(expected) == 1 else 'e'}s).")


# --------------------------------------------------------------------------- samples


def sample_count(ctx: Context, call: str, samples: ValuePath, count: int) -> Outcome:
    """Exactly ``count`` samples, each a finite positive float, in seconds."""
    value = ctx.value(call, samples)
    if not isinstance(value, (list, tuple)):
        return Outcome.fail(f"The samples are {_describe(value)}, not a list.",
                            "Return the samples as a list of floats.")
    if len(value) != count:
        return Outcome.fail(
            f"You returned {len(value)} samples; the grader asked for repeats={count}.",
            "Take exactly `repeats` samples, one per timed call.",
            Evidence(facts={"got": len(value), "expected": count}),
        )
    bad = [i for i, v in enumerate(value) if not is_finite_positive(v)]
    if bad:
        return Outcome.fail(
            f"Sample {bad[0] + 1} of {len(value)} is {_describe(value[bad[0]])}, not a finite "
            "positive number.",
            "Each sample is a stop reading minus a start reading, as a float of seconds.",
        )
    if any(isinstance(v, JaxArray) for v in value):
        return Outcome.fail("Some samples are JAX arrays.", "Return plain floats.")
    match = sample_match(ctx, call, samples)
    factor = match.factor if match is not None else None
    if factor is None:
        factor = _probe_factor(ctx, call, [float(v) for v in value])
    if factor and factor > 1:
        unit = UNIT_NAMES[factor]
        return Outcome.fail(
            f"Your samples look like {unit}: they are about {factor:g} times the intervals "
            "the grader measured.",
            "Report seconds: drop the unit conversion (or divide `perf_counter_ns` "
            "differences by 1e9).", Evidence(facts={"unit_factor": factor}),
        )
    return Outcome.ok(f"{count} finite, positive samples in seconds.")


def samples_measured(ctx: Context, call: str, samples: ValuePath,
                     exclusive_of: tuple[ValuePath, ...] = ()) -> Outcome:
    """Every returned sample is ``stop - start`` of two clock readings the learner's code
    took during this call: matched by value to a distinct pair of reads (start before stop,
    same clock family), in one unit for the whole list, up to float noise or rounding to
    the microsecond. A sample that is made up, kept from another run, scaled or padded
    matches no pair. The unit itself is ``sample-count``'s business, and so are samples
    that are not finite positive numbers (this check is then skipped). ``exclusive_of``:
    other sample lists of the call whose read pairs are taken first (see
    :func:`sample_match`)."""
    values = samples_at(ctx, call, samples)
    if not values or not all(math.isfinite(v) and v > 0 for v in values):
        raise Skip("the samples are not finite positive numbers (see `sample-count`)")
    match = sample_match(ctx, call, samples, exclusive_of)
    if match is None:
        raise Skip("the samples are not a list of numbers (see `sample-count`)")
    n = len(values)
    reads = ctx.analysis(call).index.reads
    cpu = _cpu_clock(match, {read.clock for read in reads.values()})
    if cpu is not None:
        label = "time." + cpu.replace("(", "(time.")
        whose = "this thread" if "thread" in cpu.lower() else "this process"
        return Outcome.fail(
            f"Your samples come from `{label}`, which counts CPU time of {whose}, not the "
            "time spent waiting for the device: use `time.perf_counter()`.",
            "Read `time.perf_counter()` just before the call and again after waiting for its "
            "output: a CPU-time clock stands still while your code waits.",
            Evidence(facts={"samples": n, "clock": cpu}),
        )
    if match.complete:
        return Outcome.ok(f"Each of the {n} samples is the difference of two clock readings "
                          "your code took.")
    missing = match.unmatched
    if len(missing) == 1:
        which = f"Sample {missing[0] + 1} of {n} is not the difference"
    else:
        listed = [str(i + 1) for i in missing[:4]]
        names = ", ".join(listed[:-1]) + f" and {listed[-1]}"
        more = f" (and {len(missing) - 4} more)" if len(missing) > 4 else ""
        which = f"Samples {names}{more} of {n} are not differences"
    # Only what the grader saw: a clock it does not record may still have been read.
    no_reads = "" if reads else " (the grader saw no clock read in this call)"
    return Outcome.fail(
        f"{which} of two clock readings your code took{no_reads}: each sample must be "
        "stop - start of one timed call, unchanged.",
        "Append exactly `stop - start` for each timed call, where both are clock readings "
        "taken around that call: no made-up, copied, scaled or padded values.",
        Evidence(facts={"samples": n, "unmatched": len(missing),
                        "first_unmatched": missing[0] + 1}),
    )


def _cpu_clock(match: SampleMatch, clocks: set[str]) -> str | None:
    """The CPU-time clock the samples come from: the clock of a sample's matched read pair,
    or, with no sample matched, the clock read when only CPU-time clocks were read."""
    matched = [iv.stop.clock for iv in match.intervals if iv is not None]
    if matched:
        return next((clock for clock in matched if clock in CPU_CLOCKS), None)
    return min(clocks) if clocks and clocks <= CPU_CLOCKS else None


def _probe_factor(ctx: Context, call: str, values: list[float]) -> float | None:
    """For a probe call: the unit factor if the median sample is ~1e3/1e6/1e9 x the
    probe's known duration (a factor of 30 either way is still that unit)."""
    known = ctx.frame(call).probe_seconds
    if not known or not values:
        return None
    ratio = sorted(values)[len(values) // 2] / known
    for factor in (1e9, 1e6, 1e3):
        if ratio > factor / 30:
            return factor
    return None


def _describe(value: Any) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, Opaque):  # a value that could not travel: say what it was
        return str(value)
    return f"a {type(value).__name__}" if not is_number(value) else f"{value!r}"


# --------------------------------------------------------------------------- intervals


def times_the_call(ctx: Context, call: str, samples: ValuePath | None = None,
                   calls: int = 1, fn: str | None = None, static: tuple[Any, ...] | None = None,
                   host_transfer: bool = True) -> Outcome:
    """Every timed interval contains exactly ``calls`` jitted calls (one by default; ``k``
    for a sample that times a chain of ``k`` dependent calls), and, where the contract
    says what is timed (:mod:`syncgrade.rubric.contract`):

    - each is a call of the callable the grader handed over (``fn=None``, by identity:
      a copy of the lesson's function, a new ``jax.jit(fn)`` or an AOT-compiled ``fn``
      is another callable), or of the jit of the learner's function named ``fn``, or
      (``fn=""``) of any jit of the learner's own: never a callable the grader handed;
    - with the ``static`` argument values, when given;
    - the samples are in the order they were taken;
    - no read of the timed output back to the host inside, unless ``host_transfer``."""
    if calls < 1:
        raise ValueError(f"calls must be at least 1, not {calls}")
    intervals = judged_intervals(ctx, call, samples)
    name = function_of(ctx, call)
    if not intervals:
        return no_intervals(name)
    # Static values belong to one list: judged only on the intervals its samples name.
    matched = samples is not None and intervals == _matched_intervals(ctx, call, samples)
    for index, interval in enumerate(intervals):
        found = [(flaw, problem) for flaw, problem in (
            ("", _count_problem(interval, index, calls)),
            ("jit disabled", _jit_disabled_problem(interval, index)),
            ("another callable" if fn is None else "",
             _identity_problem(ctx, interval, index, fn, None)),
            ("", _static_problem(interval, index, static if matched else None)),
            ("host transfer", None if host_transfer else _readback_problem(interval, index)),
        ) if problem is not None]
        if found:
            flaw, (message, hint) = found[0]
            return Outcome.fail(message, hint, with_timeline(
                ctx, call, interval, calls=len(interval.calls),
                **flaw_facts(flaw, interval)))
    order = _order_problem(ctx, call, samples)
    if order is not None:
        return order
    what = "exactly one call" if calls == 1 else f"exactly {calls} calls"
    return Outcome.ok(f"Each of the {len(intervals)} intervals times {what}.")


def _jit_disabled_problem(interval: Interval, index: int) -> tuple[str, str] | None:
    """A timed call ran with jax's ``jax_disable_jit`` on: op by op, nothing compiled, so
    the sample times no compiled program (``times-the-call`` owns this flaw; the checks
    that claim a compiled call follow it)."""
    off = next((t.call for t in interval.calls if t.call.jit_disabled), None)
    if off is None:
        return None
    return (f"Timed interval {index + 1}: jit was disabled for the call on line "
            f"{line_of(off)} (`jax.config.update(\"jax_disable_jit\", True)` or `with "
            "jax.disable_jit():`), so it ran op by op with nothing compiled: the sample "
            "does not time the compiled function.",
            "Remove the `jax_disable_jit` setting (and any `with jax.disable_jit():` around "
            "the timed code), so that each timed call runs the compiled program.")


def _matched_intervals(ctx: Context, call: str, samples: ValuePath) -> list[Interval] | None:
    match = sample_match(ctx, call, samples)
    return match.matched if match is not None and match.complete else None


def _count_problem(interval: Interval, index: int, calls: int) -> tuple[str, str] | None:
    n = len(interval.calls)
    if n == calls:
        return None
    one = calls == 1
    if n == 0:
        return (f"Timed interval {index + 1} (line {line_of(interval.start)} to line "
                f"{line_of(interval.stop)}) contains no call of the function: the timer "
                "started after the call or around nothing.",
                "Start the clock just before the call and stop it after waiting." if one
                else f"Start the clock just before the first of the {calls} calls and "
                     "stop it after waiting for the last one's output.")
    if one:
        return (f"Timed interval {index + 1} contains {n} calls: one sample should time "
                "one call.",
                "Start and stop the timer inside the loop, once per call, and call the "
                "function only once between the two reads.")
    return (f"Timed interval {index + 1} contains {n} calls: one sample should time "
            f"the {calls} calls of one chain.",
            f"Start the timer before the first call of a chain of {calls} and stop it "
            "after the last, once per sample.")


def _identity_problem(ctx: Context, interval: Interval, index: int, fn: str | None,
                      static: tuple[Any, ...] | None) -> tuple[str, str] | None:
    """The interval times the wrong callable, or the right one with other static values."""
    for timed in interval.calls:
        if _wrong_callee(timed.call, fn):
            return _callee_problem(timed.call, index, fn)
    return _static_problem(interval, index, static)


def _wrong_callee(event: Call, fn: str | None) -> bool:
    # ``fn=""`` or a name: the learner's own jit (``fn == 0``), never a callable the
    # grader handed over, whatever its name.
    if fn is None:
        return event.fn == 0
    return event.fn != 0 or (bool(fn) and event.name != fn)


def _callee_problem(event: Call, index: int, fn: str | None) -> tuple[str, str]:
    where = on_line(line_of(event))
    if fn is None:
        return (f"Timed interval {index + 1} times another callable{where}, not the "
                "function the grader handed you: a copy of it, a new `jax.jit` of "
                "it or a compiled copy is a different program.",
                "Call the function you were given, exactly as given, inside the "
                "timer (e.g. `out = fn(*args)`).")
    own = f"the jit of your `{fn}`" if fn else "a `jax.jit` of your own function"
    if event.fn != 0:
        return (f"Timed interval {index + 1} times a function the grader handed "
                f"you{where}, not {own}.",
                f"Time {own}, warmed up before the timer starts.")
    return (f"Timed interval {index + 1} times another function{where}, not the "
            f"jit of your `{fn}`.",
            f"Time the `jax.jit` of `{fn}` that you warmed up.")


def _static_problem(interval: Interval, index: int,
                    static: tuple[Any, ...] | None) -> tuple[str, str] | None:
    """The interval times a call with other static values than ``static``."""
    for timed in interval.calls:
        event = timed.call
        if static is not None and event.static != plain_static(static):
            # The values are the grader's settings: the message never names them.
            return (f"Timed interval {index + 1}{on_line(line_of(event))} calls the "
                    "function with another static argument value than the setting this "
                    "list of samples is for.",
                    "Time each setting with its own value, and return the lists in the "
                    "order the settings were given (check that the loop variable you pass "
                    "is the current one).")
    return None


def plain_static(values: Any) -> Any:
    """Declared static values as the child records them (``instrument._static_value``):
    NumPy scalars by their Python value, enum members by their value, tuples as lists;
    so ``np.int64(384)`` and ``384`` compare equal, as jax treats them (one program)."""
    if isinstance(values, (tuple, list)):
        return [plain_static(v) for v in values]
    if isinstance(values, np.generic):
        return plain_static(values.item())
    if isinstance(values, enum.Enum):
        return plain_static(values.value)
    return values


def _readback_problem(interval: Interval, index: int) -> tuple[str, str] | None:
    readbacks = interval.readbacks_of_timed_output()
    if not readbacks:
        return None
    return (f"Timed interval {index + 1} also reads the output back to the host"
            f"{on_line(line_of(readbacks[0]))}: the sample includes a host transfer (and "
            "any NumPy work on it) that this measurement does not ask for.",
            "Wait with `out.block_until_ready()` inside the timer; convert or check the "
            "result with NumPy after the timer stops.")


def _order_problem(ctx: Context, call: str, samples: ValuePath | None) -> Outcome | None:
    """Samples reported in another order than they were taken (e.g. sorted)."""
    if samples is None:
        return None
    match = sample_match(ctx, call, samples)
    if match is None or not match.complete:
        return None
    starts = [iv.start.seq for iv in match.intervals if iv is not None]
    for k in range(1, len(starts)):
        if starts[k] < starts[k - 1]:
            return Outcome.fail(
                f"Sample {k + 1} was measured before sample {k}: the samples are not in the "
                "order they were taken.",
                "Append each sample as you measure it and return the list unchanged (sort a "
                "copy if you need one).",
                Evidence(facts={"sample": k + 1}),
            )
    return None


def sync_before_stop(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """Each interval waits for its own call's output before the timer stops."""
    try:
        intervals = timed_intervals(ctx, call, samples)
    except Verdict as verdict:
        return verdict.outcome
    failing = [
        (index, interval) for index, interval in enumerate(intervals)
        if not interval.waits_on_timed_output() or interval.ready_at_stop is False
    ]
    if failing:
        # Show an interval that stopped while the work was still running, if there is one:
        # that is the clearest picture of what the timer missed.
        index, interval = next(
            ((i, iv) for i, iv in failing if iv.ready_at_stop is False), failing[0])
        waited = interval.waits_on_timed_output()
        if interval.ready_at_stop is False:
            reason = "the output was still being computed when the timer stopped"
        else:
            reason = "nothing waited on the timed output before the timer stopped"
        other = [w for w in interval.waits if w not in waited]
        if not waited and other:
            reason += f" (the wait on line {line_of(other[0])} is on a different array)"
        return Outcome.fail(
            f"In interval {index + 1}, {reason}; the sample measures dispatch, not the work.",
            "Wait on the output of the call you are timing, e.g. `out.block_until_ready()`, "
            f"before the line that stops the timer (line {line_of(interval.stop)}).",
            with_timeline(ctx, call, interval, ready_at_stop=interval.ready_at_stop,
                          failing_intervals=len(failing),
                          **flaw_facts("no output wait", interval),
                          places=places_of(i for _, i in failing)),
        )
    return Outcome.ok("Every interval waits for its own output before the timer stops.")


def placement_excluded(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """No explicit placement and no NumPy argument (implicit transfer) inside an interval."""
    for index, interval in enumerate(judged_intervals(ctx, call, samples)):
        if interval.placements:
            where = line_of(interval.placements[0])
            return Outcome.fail(
                f"Interval {index + 1} contains `jax.device_put`{on_line(where)}: the sample "
                "includes moving inputs to the device.",
                "Place the inputs once, before the timed loop, and wait for them.",
                with_timeline(ctx, call, interval, **flaw_facts("input placement", interval)),
            )
        if interval.implicit_transfers:
            where = line_of(interval.implicit_transfers[0])
            return Outcome.fail(
                f"Interval {index + 1} passes NumPy arrays to a jitted function{on_line(where)}: "
                "each call copies them to the device inside the timer.",
                "Convert inputs with `jax.device_put` before the timer starts.",
                with_timeline(ctx, call, interval, **flaw_facts("numpy inputs", interval)),
            )
    return Outcome.ok("No input placement inside the timed intervals.")


def warmup_excluded(ctx: Context, call: str, samples: ValuePath | None = None,
                    static_arguments: bool = False) -> Outcome:
    """No interval contains a compilation, and the warm-up had finished when the first
    interval began: the latest jitted call before the first start read (a warm-up, a check)
    was completed by a wait on its output or on a later call's output (the device runs calls
    in dispatch order). A pause such as ``time.sleep`` is no evidence: it finishes the work
    only on a machine fast enough, and the grader does not count it as a wait.

    ``static_arguments``: the timed function has static arguments (``static_argnums``),
    so a compile after a warm-up on the very same arrays is explained first by a static
    value the warm-up did not use (the trace records arrays, not static values)."""
    intervals = judged_intervals(ctx, call, samples)
    if not intervals:
        return no_intervals(function_of(ctx, call))
    if any(t.call.jit_disabled for i in intervals for t in i.calls):
        # Op by op, each operation compiles on its first use: no warm-up question to judge.
        raise Skip("jit was disabled for the timed calls (see `times-the-call`)")
    analysis = ctx.analysis(call)
    for index, interval in enumerate(intervals):
        if interval.work_compiles:
            eager = _eager_compile(interval)
            if eager is not None:
                message, hint, follows = eager
                head = f"Interval {index + 1} includes a compilation: "
            else:
                message, hint, follows = _why_compiled(ctx, call, interval, static_arguments)
                head = f"Interval {index + 1} includes compiling the function: "
            return Outcome.fail(
                head + message, hint,
                with_timeline(ctx, call, interval,
                              **flaw_facts("compilation", interval, follows)),
            )
    first = min(intervals, key=lambda i: i.start.seq)
    before = analysis.before(first.start.seq)
    returns = analysis.returns()
    # Only the warm-up's side: a call timed in an earlier interval (another setting's
    # samples) that nobody waited on is `sync-before-stop`'s failure, and whether its work
    # is still running here is a race, not a verdict (one lead per cause).
    timed_before = {t.call.seq for i in analysis.intervals if i.start.seq < first.start.seq
                    for t in i.calls}
    dispatched = [e for e in before if isinstance(e, Call) and e.seq in returns
                  and returns[e.seq].outputs and e.seq not in timed_before]
    if dispatched and dispatched[-1].seq > _completed_upto(before, returns) and not (
            waits_on_output(analysis.index, dispatched[-1], first.start.seq,
                            analysis.index.readiness.get(first.start.seq) is True)):
        pending = dispatched[-1]
        return Outcome.fail(
            f"Nothing waited for the output of the call on line {line_of(pending)} before the "
            f"timer started on line {line_of(first.start)}: its device work can still be "
            "running inside the first sample.",
            "Wait on the warm-up's output before the timed loop, e.g. "
            "`jax.block_until_ready(out)` on what the warm-up returned; a pause such as "
            "`time.sleep` proves nothing.",
            with_timeline(ctx, call, first, pending_line=line_of(pending),
                          **flaw_facts("warm-up not waited", first)),
        )
    return Outcome.ok("Compilation happened before the first timed interval.")


def _eager_compile(interval: Interval) -> tuple[str, str, str] | None:
    """(what happened, what to change, follows) when every compilation of ``interval``'s
    timed work happened outside its jitted calls: an operation outside the timed function
    (``jnp.sum(x)`` first used inside the timer) compiled, not the function, which must not
    be blamed. ``None`` when a timed call compiled itself (or there is none)."""
    spans = [(timed.call.seq, timed.ret.seq if timed.ret else timed.call.seq)
             for timed in interval.calls]
    if not spans:
        return None
    compiles = interval.work_compiles
    names = {timed.call.name for timed in interval.calls}
    lines = {line_of(timed.call) for timed in interval.calls} - {None}
    # Inside a call (the recorder numbers a call's compilations between the call and its
    # return), named as a timed function or on a timed call's line: the timed work's own.
    if any(lo < c.seq < hi or c.fun in names or line_of(c) in lines
           for c in compiles for lo, hi in spans):
        return None
    first = compiles[0]
    name = first.fun.lstrip("_")  # jax's private helpers: `_reduce_sum` -> `reduce_sum`
    what = f"`{name}`" if name.isidentifier() else "an operation"
    return (f"{what} compiled inside the interval{on_line(line_of(first))}, outside the "
            "timed call: an operation's first use traces and compiles it, and the timer "
            "counted that.",
            "Move that operation out of the timed interval, or run it once before the timer "
            "starts so that it is compiled already.", "")


def _why_compiled(ctx: Context, call: str, interval: Interval,
                  static_arguments: bool = False) -> tuple[str, str, str]:
    """(what happened, what to change, the flaws that would explain it: see
    :func:`~syncgrade.rubric.intervals.flaw_facts`) for an interval that compiles. A
    warm-up is a call of the same function (by name) outside every interval before this
    one: none at all, one on the very arguments timed (so the timed callable is another
    jit: explained when ``times-the-call`` saw another callable timed), or one on other
    arguments (e.g. NumPy arrays instead of the placed ones)."""
    timed = interval.calls[0].call if interval.calls else None
    if timed is None:
        return ("the sample times tracing and compilation, not a warm call.",
                "Call the function once and wait for it before the timed loop.", "")
    who = callee_name(ctx, timed)
    call_it = who if ctx.source_lines else "the function"  # a hint names only the learner's
    every = analyse(ctx.frame(call).events).intervals  # the full set, also when restricted
    warmups = [e for e in ctx.analysis(call).before(interval.start.seq)
               if isinstance(e, Call) and e.name == timed.name
               and not any(i.start.seq < e.seq < i.stop.seq for i in every)]
    if not warmups:
        return (f"no warm-up call of {who} ran before it, so the timed call on line "
                f"{line_of(timed)} traced and compiled.",
                f"Call {call_it} once on the arguments you time and wait for it (e.g. "
                "`jax.block_until_ready(out)` on what it returned) before the timed loop.",
                "")
    same_args = [w for w in warmups
                 if w.inputs == timed.inputs and w.numpy_args == timed.numpy_args]
    if same_args and timed.static is not None and not any(
            w.static == timed.static for w in same_args):
        # The value itself is the grader's (a hidden setting): the message never names it.
        return ("no earlier call used the static value this interval times, so it traced "
                "and compiled (each static value is a new program).",
                f"Warm up every static value you time: call {call_it} once per value and wait "
                "for the output before timing that value.", "")
    if same_args and static_arguments and timed.static is None:
        return (f"the warm-up on line {line_of(same_args[-1])} used the same arrays, so a "
                "static argument had a value no earlier call used (each static value is a "
                "new program that traces and compiles), or the timed callable is another jit.",
                "Warm up every static value you time, with the callable you time: call it "
                "once per value and wait for the output before timing that value.", "")
    if same_args:
        return (f"the warm-up on line {line_of(same_args[-1])} used the same arguments, but "
                "the timed call went to another callable, which compiles on its own first "
                f"call (line {line_of(timed)}).",
                "Warm up the very callable you time: keep the function from `jax.jit(...)` "
                "(or `make_fn()`) in one variable and reuse it.", "another callable")
    return (f"the warm-up on line {line_of(warmups[-1])} ran on different arguments (for "
            "example NumPy arrays instead of the placed ones), so the timed call compiled "
            "again.",
            "Warm up on exactly the arguments you time (same shapes, dtypes and placement).",
            "")


def inputs_ready(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """The timed calls' inputs were ready before the first interval began. A failure names
    the line of the input's placement when the learner placed it."""
    analysis = ctx.analysis(call)
    try:
        intervals = timed_intervals(ctx, call, samples)
    except Verdict as verdict:
        return verdict.outcome
    first = min(i.start.seq for i in intervals)
    needed = set(intervals[0].calls[0].call.inputs)
    if intervals[0].calls[0].call.numpy_args:
        return Outcome.fail(
            "The timed call received NumPy arrays, so its inputs were never placed on the "
            "device before the timer started.",
            "Place the inputs with `jax.device_put(arr, device)` and wait for them first.",
            Evidence(facts=flaw_facts("numpy inputs", intervals[0])),
        )
    before = analysis.before(first)
    covered = _ready_before(before, analysis.returns())
    missing = needed - covered
    if missing:
        start = line_of(intervals[0].start)
        placements = [e for e in before if isinstance(e, Placement)]
        # The placement that moved the input from the host (leaf by leaf), else any.
        placed = ([e for e in placements if missing.intersection(e.host_arrays)]
                  or [e for e in placements if missing.intersection(e.arrays)])
        if placed:
            what = (f"The input placed on line {line_of(placed[-1])} was not waited on before the "
                    f"timer started on line {start}")
        else:
            what = ("The inputs of the first timed call were not waited on before the timer "
                    f"started on line {start}")
        return Outcome.fail(
            f"{what}, so the first sample may include finishing their placement.",
            "After placing the inputs, call `jax.block_until_ready(...)` on them (or on a "
            "warm-up call's output) before the timed loop.",
            with_timeline(ctx, call, intervals[0],
                          placement_line=line_of(placed[-1]) if placed else None,
                          **flaw_facts("inputs not ready", intervals[0], follows=(
                              "compilation|warm-up not waited|input placement"))),
        )
    return Outcome.ok("The inputs were placed and ready before the first interval.")


def _ready_before(before: list[Any], returns: dict[int, Any]) -> set[int]:
    """Array tokens known complete by the end of ``before``: handed over ready, waited on,
    or inputs of a call known complete. A wait on a call's output completes that call and,
    because the device runs calls in dispatch order, every call dispatched before it."""
    covered: set[int] = set()
    for event in before:
        if isinstance(event, (Wait, Given)):
            covered.update(event.arrays)
    completed_upto = _completed_upto(before, returns, covered)
    for event in before:
        if isinstance(event, Call) and event.seq <= completed_upto:
            covered.update(event.inputs)
    return covered


def _completed_upto(before: list[Any], returns: dict[int, Any],
                    covered: set[int] | None = None) -> int:
    """The latest call in ``before`` whose output was waited on (or handed over complete)
    within ``before``, 0 if none: that call, and every call dispatched before it, finished."""
    if covered is None:
        covered = {a for e in before if isinstance(e, (Wait, Given)) for a in e.arrays}
    return max(
        (e.seq for e in before if isinstance(e, Call)
         and covered.intersection(returns[e.seq].outputs if e.seq in returns else ())),
        default=0,
    )


def covers_device_work(
    ctx: Context, call: str, samples: ValuePath, fraction: float = 0.35,
    runs_per_sample: int = 1,
) -> Outcome:
    """With a spin workload of known duration D, every sample is at least
    ``fraction * runs_per_sample * D``.

    D is the grader's shortest estimate of one run: from the spin's rate and from
    quarter-length runs just before and after the learner's call, each scaled to the
    probe's steps (which never underestimates a real run) and each, on the CPU backend,
    the shorter of its wall time and the child's CPU time (the work itself, however busy
    the machine was: ``workloads.time_spin``). A timer that stops at dispatch
    measures well under 1% of D, so a wide margin (35%) separates it from a correct timer
    even when machine load slows down single runs.
    ``runs_per_sample``: how many runs of the probe one sample covers (a timed chain of
    ``k`` dependent calls, or a static argument that repeats the work ``k`` times).
    """
    if runs_per_sample < 1:
        raise ValueError(f"runs_per_sample must be at least 1, not {runs_per_sample}")
    frame = ctx.frame(call)
    known = frame.probe_seconds
    if not known:
        raise RuntimeError("the probe call ran without a calibrated probe")
    values = samples_at(ctx, call, samples)
    if not values:
        return Outcome.fail("No samples were returned for the probe workload.",
                            "Return one sample per call.")
    if not all(math.isfinite(v) for v in values):  # min() of a NaN is meaningless
        raise Skip("the samples are not finite numbers (see `sample-count`)")
    work = known * runs_per_sample
    shortest = min(values)
    runs = "" if runs_per_sample == 1 else f" ({runs_per_sample} runs of about " \
        f"{known * 1e3:.0f} ms)"
    facts: dict[str, Any] = {"known_ms": round(work * 1e3, 1)}
    if runs_per_sample != 1:
        facts["runs_per_sample"] = runs_per_sample
    if shortest < fraction * work:
        ratio = shortest / work
        return Outcome.fail(
            f"With a workload the grader knows takes about {work * 1e3:.0f} ms{runs}, your "
            f"shortest sample was {shortest * 1e3:.2f} ms ({ratio:.0%} of the work).",
            "The timer stops before the device finishes: wait for the output inside the "
            "interval.", Evidence(facts={
                **facts, "shortest_ms": round(shortest * 1e3, 3),
                **_no_wait_at(_sample_interval(ctx, call, samples,
                                               values.index(shortest)))}),
        )
    unwaited = _unwaited_probe_sample(ctx, call, samples)
    if unwaited is not None:
        index, interval = unwaited
        return Outcome.fail(
            f"With a workload the grader knows takes about {work * 1e3:.0f} ms{runs}, sample "
            f"{index + 1} lasted long enough, but nothing in it waited for the output before "
            f"the timer stopped{on_line(line_of(interval.stop))}: its length came from the "
            "machine being busy or from a pause, not from waiting for the device work.",
            "The timer stops before the device finishes: wait for the output inside the "
            "interval.", Evidence(facts={**facts, "unwaited_sample": index + 1,
                                         **flaw_facts("no output wait", interval)}),
        )
    return Outcome.ok(
        f"With a workload of about {work * 1e3:.0f} ms{runs}, every sample covered the "
        "device work.",
        Evidence(facts={**facts, "shortest_ms": round(shortest * 1e3, 1)}),
    )


def _sample_interval(ctx: Context, call: str, samples: ValuePath,
                     index: int) -> Interval | None:
    """The interval sample ``index`` is the difference of, when the samples match."""
    match = sample_match(ctx, call, samples)
    if match is None or not 0 <= index < len(match.intervals):
        return None
    return match.intervals[index]


def _no_wait_at(interval: Interval | None) -> dict[str, Any]:
    """The flaw facts of a probe sample too short to hold the device work, when its
    interval is known (a sample that matches no read pair has no place in the code)."""
    return flaw_facts("no output wait", interval) if interval is not None else {}


def _unwaited_probe_sample(ctx: Context, call: str, samples: ValuePath
                           ) -> tuple[int, Interval] | None:
    """(index, interval) of a probe sample whose interval times a call but holds no wait
    on its output (a sample's wall time inflated by load is not device work); ``None`` when
    every matched sample waited, or the samples match no intervals (``samples-measured``
    reports that; the duration test still applies)."""
    match = sample_match(ctx, call, samples)
    if match is None or not match.complete:
        return None
    for index, interval in enumerate(match.intervals):
        if interval is not None and interval.calls and not interval.waits_on_timed_output():
            return index, interval
    return None


def list_length(ctx: Context, call: str, value: ValuePath, count: int, name: str,
                each: str = "") -> Outcome:
    """The part of the return value at ``value`` is a list (or tuple) of ``count`` items.

    For return values that nest, e.g. one list of samples per setting: checking the outer
    list first gives a learner who returned the wrong layout a failure that says so,
    instead of every per-item check being skipped. ``name`` is how the README calls the
    part (``"samples"``); ``each`` what one item is (``"one list of samples per
    setting"``)."""
    got = ctx.value(call, value)
    what = f" ({each})" if each else ""
    if not isinstance(got, (list, tuple)):
        return Outcome.fail(f"`{name}` is {_describe(got)}, not a list{what}.",
                            f"Return `{name}` as a list of {count} items{what}.")
    if len(got) != count:
        return Outcome.fail(
            f"`{name}` has {len(got)} items; the grader expected {count}{what}.",
            f"Return exactly {count} items in `{name}`, in the order the grader gave.",
            Evidence(facts={"got": len(got), "expected": count}),
        )
    return Outcome.ok(f"`{name}` holds {count} items.")


CHECKS: dict[str, Callable[..., Outcome]] = {
    "runs": runs,
    "numpy-match": numpy_match,
    "shape": shape,
    "sample-count": sample_count,
    "samples-measured": samples_measured,
    "times-the-call": times_the_call,
    "sync-before-stop": sync_before_stop,
    "placement-excluded": placement_excluded,
    "warmup-excluded": warmup_excluded,
    "inputs-ready": inputs_ready,
    "covers-device-work": covers_device_work,
}
"""The reusable checks of this module by the id they usually serve (docs/authoring.md)."""
