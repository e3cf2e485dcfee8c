"""Checks about the workload itself rather than the timer around it (exercise-5, -10).

- ``jitted``: the timed calls go through a ``jax.jit`` function that is compiled once and
  reused, not an eager op-by-op computation and not a jit re-created in the loop.
- ``reference-is-numpy``: the learner's reference agrees with the grader's and ran on the
  host with NumPy only: no JAX dispatch, compilation, placement or readback of a JAX
  array happened while it ran, and it returned a NumPy result.
- ``donates-input``: every timed call donated its input: its jit was made with
  ``donate_argnums``/``donate_argnames`` and the call consumed the array (exercise-10).

Semantics: docs/checks.md. All are pure functions of the recorded trace.
"""

from __future__ import annotations

from syncgrade.analysis import Interval
from syncgrade.rubric import checks as c
from syncgrade.rubric import intervals as iv
from syncgrade.rubric import tolerance
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.compose import lower_first
from syncgrade.trace import Call, Compile, Event, Placement, Wait
from syncgrade.values import JaxArray


def jitted(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """Every interval times a call of a jitted function, and nothing is traced or
    compiled after the first interval ends (one compilation per input specialization;
    compiling in the first interval is ``warmup-excluded``'s business, not this one's)."""
    intervals = iv.judged_intervals(ctx, call, samples)
    if not intervals:
        raise Skip("no timed interval was found (see `sync-before-stop`)")
    fn = iv.function_of(ctx, call)
    if not ctx.analysis(call).calls():
        return Outcome.fail(
            f"`{fn}` never called a `jax.jit` function: the workload ran eagerly, one "
            "operation at a time, so the samples time op-by-op dispatch, not a compiled "
            "program.",
            "Compile the workload once with `jax.jit(energy)` before the timed loop and time "
            "calls of that compiled function.",
        )
    for index, interval in enumerate(intervals):
        if not interval.calls:
            return _no_jit_call(ctx, call, index, interval)
        off = next((t.call for t in interval.calls if t.call.jit_disabled), None)
        if off is not None:  # times-the-call's flaw: this failure follows it
            return Outcome.fail(
                f"Timed interval {index + 1}: jit was disabled for the call on line "
                f"{iv.line_of(off)}, so nothing was compiled: the samples time op-by-op "
                "dispatch, not a compiled program.",
                "Remove the `jax_disable_jit` setting (or the `with jax.disable_jit():`) "
                "so the `jax.jit` function compiles once and is reused.",
                iv.with_timeline(ctx, call, interval,
                                 **iv.flaw_facts("", interval, follows="jit disabled")),
            )
    recompiles = _compiles_between(ctx, call, intervals[0].stop.seq, intervals[-1].stop.seq)
    if recompiles:
        where = iv.line_of(recompiles[0])
        recompiled = _interval_holding(intervals, recompiles[0]) or intervals[-1]
        return Outcome.fail(
            f"The workload was traced and compiled again during the timed loop"
            f"{iv.on_line(where)}: the jitted function is re-created (or re-specialized) for "
            "each sample instead of being reused.",
            "Create the `jax.jit` function once, before the loop, warm it up, and call that "
            "same function in every sample (a new `jax.jit(lambda ...)` compiles anew).",
            # No flaw named: reusing one function does not warm it up, so fixing this
            # is not known to fix `warmup-excluded`, which then says its own fix.
            iv.with_timeline(ctx, call, recompiled, recompiles=len(recompiles),
                             **iv.flaw_facts("", recompiled)),
        )
    return Outcome.ok("Every sample times the same compiled `jax.jit` function.")


def _no_jit_call(ctx: Context, call: str, index: int, interval: Interval) -> Outcome:
    return Outcome.fail(
        f"Timed interval {index + 1} (line {iv.line_of(interval.start)} to line "
        f"{iv.line_of(interval.stop)}) contains no call of a `jax.jit` function: the timed "
        "work ran eagerly (or outside the timer).",
        "Time a call of the function you compiled with `jax.jit`, started just before the "
        "call and stopped after waiting for its output.",
        iv.with_timeline(ctx, call, interval),
    )


def _compiles_between(ctx: Context, call: str, after: int, before: int) -> list[Compile]:
    return [e for e in ctx.analysis(call).events
            if isinstance(e, Compile) and after < e.seq < before]


def _interval_holding(intervals: list[Interval], event: Event) -> Interval | None:
    return next((i for i in intervals if i.start.seq < event.seq < i.stop.seq), None)


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
    agrees = c.numpy_match(ctx, call, result, reference, backend=tolerance.HOST)
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


def donates_input(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """Every timed call donated an input: the jit it called was made with
    ``donate_argnums``/``donate_argnames`` (the call's recorded ``jit`` options), and the
    call consumed one of its input arrays (``donated``: the array was deleted when the
    call returned, so XLA took its buffer for the output). A donation XLA could not use
    leaves the input alive and fails too: the step then runs out of place. Judges the
    intervals the samples name (every timed one when ``samples`` is ``None``)."""
    try:
        intervals = iv.timed_intervals(ctx, call, samples)
    except iv.Verdict as verdict:
        return verdict.outcome
    for index, interval in enumerate(intervals):
        for timed in interval.calls:
            problem = _donation_problem(timed.call, index)
            if problem is not None:
                return Outcome.fail(*problem, iv.with_timeline(
                    ctx, call, interval, donated=False, **iv.flaw_facts("", interval)))
    return Outcome.ok(f"Each of the {len(intervals)} timed calls donated its input: XLA "
                      "reused the input's buffer for the output.")


def _donation_problem(event: Call, index: int) -> tuple[str, str] | None:
    """(message, hint) when the timed call ``event`` did not donate an input."""
    where = f"Timed interval {index + 1}: the call{iv.on_line(iv.line_of(event))}"
    fresh = ("and hand each timed call a fresh device copy of the input, placed and waited "
             "on before the timer starts (a donated array cannot be used again).")
    if not event.declares_donation:
        return (f"{where} does not donate its input: the `jax.jit` it calls was made "
                "without `donate_argnums`, so every call allocates a new output buffer "
                "and the sample times another program than the in-place step.",
                f"Make the jit with its input donated (`jax.jit({event.name}, "
                f"donate_argnums=0)` donates the first argument), {fresh}")
    if event.donated_inputs:
        return None
    if event.numpy_args and not event.inputs:
        return (f"{where} passes a NumPy array: jax copies it to the device inside the "
                "call and donates that copy, never an array of yours.",
                f"Place the input with `jax.device_put` before the timer starts, {fresh}")
    return (f"{where} declares its input donated, but XLA did not take the buffer: the "
            "input was still alive after the call (no output of the same shape and dtype "
            "could reuse it, and jax warned that the donated buffer was not usable).",
            "Donate the argument whose buffer the output can reuse (same shape and "
            "dtype as the result), and pass it as a device array.")
