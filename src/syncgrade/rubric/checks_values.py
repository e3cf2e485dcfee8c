"""Checks of the values the learner's functions return: results against the grader's NumPy
reference, their shape, the layout of a nested return value, the sample lists' count and
units, and the learner's own NumPy reference (exercise-5). Each is a pure function
``(ctx, **params) -> Outcome``; semantics: docs/checks.md. Messages never show hidden
inputs or expected values: shapes and counts the learner was told are fine, numbers are
not.

- ``numpy-match``, ``shape``: the result against the grader's float64 NumPy reference.
- ``sample-count``: the samples are a list of the requested count, in seconds.
- ``list_length``: a nested return value's layout, checked before its items.
- ``reference-is-numpy``: the learner's reference agrees with the grader's and ran on the
  host with NumPy only: no JAX dispatch, compilation, placement or readback of a JAX array
  happened while it ran, and it returned a NumPy result.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from syncgrade.models import Evidence
from syncgrade.rubric import intervals as iv
from syncgrade.rubric import tolerance
from syncgrade.rubric.base import Context, Outcome, ValuePath
from syncgrade.rubric.compose import lower_first
from syncgrade.rubric.intervals import flaw_facts, sample_match
from syncgrade.trace import Call, Compile, Event, Placement, Wait
from syncgrade.values import JaxArray, Opaque, is_finite_positive, is_number

UNIT_NAMES = {1e3: "milliseconds", 1e6: "microseconds", 1e9: "nanoseconds"}


# --------------------------------------------------------------------------- results


def numpy_match(ctx: Context, call: str, result: ValuePath, reference: str,
                backend: str | None = None, kind: str = "array",
                drawn: ValuePath | None = None, drawn_reference: str = "",
                draw: str = "") -> Outcome:
    """The result agrees with the grader's float64 NumPy reference on hidden inputs, element
    by element, within what float32 rounding allows on the child's backend (``backend``
    overrides it, e.g. ``tolerance.HOST`` for a NumPy result). The allowance is derived in
    ``rubric/tolerance.py`` and is never tighter than the lesson's atol=rtol=2e-5 check.
    ``kind``: ``"numpy"`` when the statement asks for the result on the host, as a NumPy
    array (a device ``jax.Array`` then fails); ``"array"`` accepts either. ``drawn``,
    ``drawn_reference``, ``draw``: for an exercise whose learner draws the input from
    arguments it is handed (exercise-4), see :func:`drawn_hint`."""
    own_draw = drawn_hint(ctx, call, drawn, drawn_reference, draw)
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
            "reference.", own_draw or _SHAPE_HINT,
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
            f"most {diff.allowed:.1e}.", own_draw or _mismatch_hint(got),
            Evidence(facts=facts),
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


def drawn_hint(ctx: Context, call: str, drawn: ValuePath | None, drawn_reference: str,
               draw: str) -> str | None:
    """For an exercise whose learner draws the input from arguments it is handed and
    returns it (``drawn``: where in ``call``'s return value; ``drawn_reference``: the
    reference holding the input that draw gives; ``draw``: the statement's code for it,
    e.g. ``rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)``): when the
    returned input is a NumPy array other than that draw (another size, another
    generator), the hint that quotes the draw, since no other change makes the result
    match. ``None`` when not declared, or the input is that draw (the result's own
    computation is then what differs), or it cannot be read. Names no hidden value."""
    if drawn is None or not drawn_reference or not draw:
        return None
    got = ctx.value(call, drawn)
    expected = np.asarray(ctx.references[drawn_reference])
    if not isinstance(got, np.ndarray) or (
            got.shape == expected.shape and np.array_equal(got, expected)):
        return None
    return ("The input you returned is not the one the statement's draw gives: draw it "
            f"exactly as the README says, from the arguments you were given (`{draw}`), "
            "and compute the result from it.")


def shape(ctx: Context, call: str, result: ValuePath, reference: str,
          drawn: ValuePath | None = None, drawn_reference: str = "",
          draw: str = "") -> Outcome:
    """The result's shape equals the reference's; a failure names axes, never sizes.
    ``drawn``, ``drawn_reference``, ``draw``: see :func:`drawn_hint`."""
    got = ctx.value(call, result)
    expected = tuple(np.shape(ctx.references[reference]))
    got_shape = tuple(getattr(got, "shape", np.shape(got) if is_number(got) else ()))
    if got_shape != expected:
        return Outcome.fail(
            f"{shape_difference(got_shape, expected)}.",
            drawn_hint(ctx, call, drawn, drawn_reference, draw) or _SHAPE_HINT,
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


# --------------------------------------------------------------------------- layout


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


# --------------------------------------------------------------------------- reference-is-numpy


def reference_is_numpy(ctx: Context, call: str, result: ValuePath, reference: str) -> Outcome:
    """The learner's reference matches the grader's, is a NumPy result, and no JAX work
    happened while it ran (the hidden shapes are new to the child, so any ``jax.numpy``
    operation on them traces and compiles, which the trace shows). Agreement uses
    ``numpy-match``'s derived tolerance for a float32 result computed on the host."""
    fn = iv.function_of(ctx, call)
    jax_work = _jax_work(ctx, ctx.analysis(call).events)
    if jax_work is not None:
        what, event = jax_work
        line = iv.line_in_function(ctx, fn, iv.line_of(event))
        return Outcome.fail(
            f"`{fn}` used JAX{iv.on_line(line)} ({what}), so it is not an "
            "independent NumPy check: a bug in JAX code could hide in both results.",
            "Compute the reference with `numpy` functions on the host arrays only (`np.sum`, "
            "`@`, `np.einsum`, ...); don't call `jax`, `jnp` or jitted functions in it.",
        )
    if isinstance(ctx.value(call, result), JaxArray):
        return Outcome.fail(
            f"`{fn}` returned a JAX array: the reference must be computed and returned "
            "by NumPy on the host.",
            "Use `numpy` on the host arrays and return the NumPy array it gives.",
        )
    agrees = numpy_match(ctx, call, result, reference, backend=tolerance.HOST)
    if agrees.status != "passed":
        own = {k: v for k, v in agrees.evidence.facts.items()
               if k not in ("flaw", "at_line", "follows")}  # the reference's, not the result's
        return Outcome.fail(f"`{fn}` does not agree with the grader's own reference: "
                            f"{lower_first(agrees.message)}", agrees.hint,
                            agrees.evidence.model_copy(update={"facts": own}))
    return Outcome.ok(f"`{fn}` computes with NumPy only and agrees with an independent "
                      "reference.")


def _jax_work(ctx: Context, events: tuple[Event, ...]) -> tuple[str, Event] | None:
    """The first sign of JAX work in a trace, described for the learner (a jitted
    function by the learner's own name for it, :func:`~syncgrade.rubric.intervals.callee_name`)."""
    for event in events:
        if isinstance(event, Call):
            called = iv.callee_name(ctx, event)
            return (f"a call of the jitted function {called}" if called != iv.TIMED_FUNCTION
                    else "a call of a jitted function"), event
        if isinstance(event, Compile):
            return "a `jax.numpy` operation that JAX traced and compiled", event
        if isinstance(event, Placement):
            return "`jax.device_put`", event
        if isinstance(event, Wait):
            return "a JAX array read back to the host", event
    return None
