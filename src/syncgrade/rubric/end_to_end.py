"""End-to-end checks (exercise-8): the opposite policy of ``placement-excluded``.

A request interval must *contain* what a warm kernel interval must exclude: the placement
of every host input and the readback of the output. Both read the same interval analysis
as the exclusion checks (``Interval.placements``, ``Interval.implicit_transfers``,
``Interval.readbacks_of_timed_output``); only the verdict is reversed.
"""

from __future__ import annotations

from syncgrade.analysis import Interval
from syncgrade.rubric import intervals as iv
from syncgrade.rubric.base import Context, Outcome, ValuePath
from syncgrade.trace import READBACK_WAYS, Wait


def placed_inside(interval: Interval) -> frozenset[int]:
    """Tokens of the arrays that a placement inside the interval moved from the host, leaf
    by leaf (re-putting an already placed array in the same ``device_put`` moves nothing)."""
    return frozenset(token for p in interval.host_placements for token in p.host_arrays)


def unplaced_inputs(interval: Interval) -> list[int]:
    """Inputs of the interval's timed calls that were not placed inside the interval
    (NumPy arguments are transferred by the call itself, so they count as placed)."""
    placed = placed_inside(interval)
    return [token for timed in interval.calls for token in timed.call.inputs
            if token not in placed]


def placement_included(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """Every interval places every input its timed call uses."""
    try:
        intervals = iv.timed_intervals(ctx, call, samples)
    except iv.Verdict as verdict:
        return verdict.outcome
    for index, interval in enumerate(intervals):
        missing = unplaced_inputs(interval)
        if not missing:
            continue
        total = sum(len(t.call.inputs) + t.call.numpy_args for t in interval.calls)
        where = iv.on_line(iv.line_of(interval.calls[0].call))
        if len(missing) == total:
            what = (f"none of the inputs of the call{where} is placed inside the timer: they "
                    "were put on the device before the sample started")
        else:
            verb = "was" if len(missing) == 1 else "were"
            what = (f"{len(missing)} of the {total} inputs of the call{where} {verb} placed on "
                    "the device before the sample started")
        return Outcome.fail(
            f"In interval {index + 1}, {what}, so the request's input placement is not "
            "measured.",
            "Inside the timed region, place every host input on the device "
            "(`jax.device_put(a, device)` for each) and call `fn` on those placed arrays.",
            iv.with_timeline(ctx, call, interval, unplaced=len(missing), inputs=total),
        )
    return Outcome.ok("Every interval places all host inputs on the device.")


def readback_included(ctx: Context, call: str, samples: ValuePath | None = None) -> Outcome:
    """Every interval copies its timed call's output to the host before the stop."""
    try:
        intervals = iv.timed_intervals(ctx, call, samples)
    except iv.Verdict as verdict:
        return verdict.outcome
    for index, interval in enumerate(intervals):
        if interval.readbacks_of_timed_output():
            continue
        late = _later_readback(ctx, call, interval)
        reason = (f"the output is converted to NumPy only after the timer stopped "
                  f"(line {late})" if late else "the output is never converted to NumPy "
                  "inside the timer")
        return Outcome.fail(
            f"In interval {index + 1}, {reason}: the sample leaves out bringing the result "
            "back to the host.",
            "Convert the call's output to a NumPy array (for example `np.asarray(out)`) "
            f"before the line that stops the timer (line {iv.line_of(interval.stop)}).",
            iv.with_timeline(ctx, call, interval),
        )
    return Outcome.ok("Every interval brings the output back to the host before stopping.")


def _later_readback(ctx: Context, call: str, interval: Interval) -> int | None:
    """The learner line of a readback of this interval's output after its stop, if any."""
    outputs = set(interval.calls[-1].outputs)
    for event in ctx.analysis(call).events:
        if (isinstance(event, Wait) and event.seq > interval.stop.seq
                and event.how in READBACK_WAYS and outputs.intersection(event.arrays)):
            return iv.line_of(event)
    return None
