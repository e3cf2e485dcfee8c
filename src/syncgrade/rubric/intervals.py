"""The public building blocks for writing a check about timed intervals.

Every check of the timed intervals (:mod:`syncgrade.rubric.checks_intervals`,
:mod:`~syncgrade.rubric.checks_phases`, and those of :mod:`~syncgrade.rubric.checks_report`
and :mod:`~syncgrade.rubric.checks_values` that read intervals) is made of these; a new
check should be too (docs/authoring.md, "Writing a check in your course"; a course reaches
this module as ``syncgrade.rubric.intervals``):

- :func:`judged_intervals`: the intervals a check judges (the ones the returned samples
  are the differences of; every recorded interval when the samples match none);
- :func:`timed_intervals`: those that contain a call, or an early :class:`Verdict`;
- :func:`sample_match` / :func:`samples_at`: which read pairs the samples are, and the
  samples themselves;
- :func:`line_of`, :func:`on_line`, :func:`function_of`, :func:`with_timeline`: the pieces
  of a learner-facing message (a line number, the learner function's name, a drawing of
  the interval).

All are pure functions of a :class:`~syncgrade.rubric.base.Context`; none runs learner
code. Semantics of "interval", "timed call" and sample matching: docs/checks.md.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterable
from typing import Any

from syncgrade.analysis import Analysis, Interval, SampleMatch
from syncgrade.models import Evidence
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.timeline import WARM_PHASES, draw_both
from syncgrade.trace import Call
from syncgrade.values import is_number

__all__ = [
    "Verdict", "call_left_out", "callee_name", "flaw_facts", "function_of",
    "judged_intervals", "line_of", "no_intervals", "on_line", "passing_picture", "places_of",
    "sample_match", "samples_at", "timed_intervals", "with_timeline",
]


class Verdict(Exception):
    """Carries a finished :class:`Outcome` out of a helper: a check catches it and returns
    ``verdict.outcome`` (see :func:`timed_intervals`)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def samples_at(ctx: Context, call: str, samples: ValuePath) -> list[float]:
    """The list of numbers at ``samples`` in ``call``'s return value, as floats; raises
    :class:`Skip` when it is not a list of numbers (``sample-count`` reports that)."""
    value = ctx.value(call, samples)
    if not isinstance(value, (list, tuple)) or not all(is_number(v) for v in value):
        raise Skip("the samples are not a list of numbers (see `sample-count`)")
    return [float(v) for v in value]


def sample_match(ctx: Context, call: str, samples: ValuePath,
                 exclusive_of: tuple[ValuePath, ...] = ()) -> SampleMatch | None:
    """Which of ``call``'s clock-read pairs each returned sample is the difference of (see
    :meth:`syncgrade.analysis.Analysis.match`); ``None`` when the samples are not a list of
    numbers. Read pairs matched by the sample lists at ``exclusive_of`` (each matched in
    turn, excluding those before it) are taken: two lists never share an interval."""
    analysis = ctx.analysis(call)
    taken: frozenset[tuple[int, int]] = frozenset()
    for other in exclusive_of:
        try:
            taken |= analysis.match(samples_at(ctx, call, other), taken).keys
        except Skip:
            continue
    try:
        values = samples_at(ctx, call, samples)
    except Skip:
        return None
    return analysis.match(values, taken)


def judged_intervals(ctx: Context, call: str, samples: ValuePath | None) -> list[Interval]:
    """The intervals a check judges: those the returned samples are the differences of,
    one per sample, in sample order; every recorded interval when ``samples`` is ``None``
    or the samples name none (made-up or altered samples are ``samples-measured``'s
    failure, and every interval is still judged)."""
    analysis = ctx.analysis(call)
    if samples is None:
        return list(analysis.intervals)
    match = sample_match(ctx, call, samples)
    if match is None or not match.complete:
        return list(analysis.intervals)
    return match.matched


def timed_intervals(ctx: Context, call: str, samples: ValuePath | None) -> list[Interval]:
    """The judged intervals that contain at least one call of a jitted function. Raises
    :class:`Verdict` (a failure, :func:`no_intervals`) when there is no interval at all,
    and :class:`Skip` when no interval contains a call (``times-the-call`` reports that)."""
    intervals = judged_intervals(ctx, call, samples)
    if not intervals:
        raise Verdict(no_intervals(function_of(ctx, call)))
    timed = [i for i in intervals if i.calls]
    if not timed:
        raise Skip("no timed interval contains a call of a jitted function")
    return timed


def no_intervals(function: str) -> Outcome:
    """The failure for a learner function in which no two clock reads were subtracted."""
    return Outcome.fail(
        f"No timed interval was found in `{function}`: no two clock readings were subtracted.",
        "Read a clock (for example `time.perf_counter()`) just before the call and again "
        "after waiting for its output, and keep their difference as the sample.",
    )


def line_of(event: Any) -> int | None:
    """The learner's line number of a trace event (``None`` when it has no learner site)."""
    site = getattr(event, "site", None)
    return site[1] if site else None


def call_left_out(analysis: Analysis, interval: Interval) -> Call | None:
    """The loop's own timed call left outside ``interval``, before its start read (the
    timer starts after the call): the last jitted call before an interval that holds none,
    when the same line calls again after that interval began (a warm-up's line does not).
    ``None`` otherwise."""
    if interval.calls:
        return None
    before = [e for e in analysis.before(interval.start.seq) if isinstance(e, Call)]
    line = line_of(before[-1]) if before else None
    again = line is not None and any(
        isinstance(e, Call) and e.seq > interval.start.seq and line_of(e) == line
        for e in analysis.events)
    return before[-1] if again else None


def on_line(line: int | None) -> str:
    """``" on line 12"`` for a message, or ``""`` when the line is unknown."""
    return f" on line {line}" if line else ""


def line_in_function(ctx: Context, function: str, line: int | None) -> int | None:
    """``line`` as seen from the learner's top-level function ``function``: ``line`` itself
    when it lies in that function's body, else the line in its body that calls (directly,
    or through other functions of the file, breadth first) the function holding ``line``.
    A check about ``energy_reference`` names the call in it, not the JAX line inside the
    ``energy`` it called. ``line`` unchanged when the source cannot say (no source, a
    syntax error, a call the file's text does not show)."""
    if not line or not ctx.source_lines:
        return line
    try:
        tree = ast.parse("\n".join(ctx.source_lines))
    except (SyntaxError, ValueError, RecursionError):
        return line
    defs = {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if function not in defs:
        return line
    # The line each function reaches ``line`` from: its own when it holds it, else its
    # first call of a function that does (widened one caller at a time).
    site = {name: line for name, node in defs.items() if _spans(node, line)}
    while function not in site:
        found = {caller: at for caller, node in defs.items() if caller not in site
                 for callee in site if (at := _call_line(node, callee)) is not None}
        if not found:
            return line
        site.update(found)
    return site[function]


def _spans(node: ast.stmt, line: int) -> bool:
    end = node.end_lineno if node.end_lineno is not None else node.lineno
    return node.lineno <= line <= end


def _call_line(node: ast.AST, callee: str) -> int | None:
    """The first line in ``node`` that calls the name ``callee`` (``callee(...)``, or
    ``jax.jit(callee)``-style: the name passed on)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and any(
                isinstance(n, ast.Name) and n.id == callee
                for n in (inner.func, *inner.args)):
            return inner.lineno
    return None


def function_of(ctx: Context, call_id: str) -> str:
    """The learner function (or constant) name the grader call ``call_id`` uses."""
    for call in ctx.exercise.calls:
        if call.id == call_id:
            return call.function or call.attribute
    return call_id


NOT_CALLEES = frozenset({
    "jax", "jnp", "lax", "np", "numpy", "time", "timeit", "statistics", "math", "functools",
    "print", "float", "int", "len", "list", "tuple", "dict", "set", "sorted", "sum", "min",
    "max", "range", "enumerate", "zip", "iter", "next", "isinstance", "str", "repr",
})
"""Names whose calls are never the timed call: libraries and builtins."""
NOT_METHODS = frozenset({
    "block_until_ready", "item", "tolist", "append", "extend", "astype", "sum", "mean",
    "ravel", "reshape", "copy", "copy_to_host_async", "perf_counter", "perf_counter_ns",
})
"""Methods whose calls are never the timed call: waits, conversions, list building."""
TIMED_FUNCTION = "the timed function"
MAX_NAMED_LINE = 400
"""A longer learner line is not parsed for a name."""


def callee_name(ctx: Context, event: Call) -> str:
    """How the learner's code names the callable of the jitted call ``event``, for a
    message: the callee on the call's line, in backticks (```fn```, ```self.model```), read
    with :mod:`ast` from :attr:`Context.source_lines`; ``"the timed function"`` when the
    code has no name for it (``make_fn()(x)``) or the line holds several candidate calls.
    With the source, never the grader's own name for a callable it handed over (the
    learner may call ``predict`` ``fn``); without it (:attr:`Context.source_lines`
    empty), the function name the trace recorded."""
    line = line_of(event)
    if not ctx.source_lines:  # no source to read: the name the trace recorded
        return f"`{event.name}`" if event.name.isidentifier() else TIMED_FUNCTION
    if not line or not 0 < line <= len(ctx.source_lines):
        return TIMED_FUNCTION
    text = ctx.source_lines[line - 1].strip()
    if len(text) > MAX_NAMED_LINE:
        return TIMED_FUNCTION
    found: set[str] = set()
    for attempt in (text, text + "\n    pass", text + ")"):  # a header; a call's first line
        try:
            found = {name for node in ast.walk(ast.parse(attempt))
                     if isinstance(node, ast.Call) and (name := _callee(node.func))}
            break
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # learner text: whatever the parser makes of it, never a grader fault
    if "?" in found or any(len(name) > 40 for name in found):  # no name, or no short one
        return TIMED_FUNCTION
    if len(found) > 1 and event.name in found:
        return f"`{event.name}`"
    return f"`{found.pop()}`" if len(found) == 1 else TIMED_FUNCTION


def _callee(func: ast.expr) -> str | None:
    """The name a call's function expression gives the callable (``fn``, ``self.fn``,
    ``fns[0]``), or ``None`` for a library, builtin or method call that is never the
    timed call. An expression without a name (``make_fn()``) is ``"?"``."""
    root = func
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    if isinstance(func, ast.Attribute) and func.attr in NOT_METHODS:
        return None
    if isinstance(root, ast.Name):
        return None if root.id in NOT_CALLEES else ast.unparse(func)
    return "?" if not isinstance(func, ast.Attribute) else None


def _plain_name(ctx: Context, event: Call) -> str:
    """:func:`callee_name` without backticks, ``""`` when the code has no name for it."""
    called = callee_name(ctx, event)
    return "" if called == TIMED_FUNCTION else called.strip("`")


def with_timeline(ctx: Context, call: str, interval: Interval, *,
                  flaws: Collection[str] | None = None, host_cpu: bool = False,
                  **facts: Any) -> Evidence:
    """Evidence holding ``facts`` and a drawing of ``interval`` on the learner's lines: the
    text timeline and the same interval as data for a picture. ``flaws`` names the flaws
    the picture marks (:data:`syncgrade.rubric.timeline.FLAW_NOTES`); by default, every
    event that contradicts what ``call``'s samples are declared to measure (see
    :func:`syncgrade.rubric.timeline.picture`). ``host_cpu``: draw the interval's
    unexplained host CPU time as a segment (``interval-clean`` only)."""
    timeline, picture = draw_both(interval, ctx.analysis(call), ctx.display_name, flaws,
                                  declared_phases(ctx, call),
                                  name=lambda event: _plain_name(ctx, event),
                                  host_cpu=host_cpu)
    return Evidence(facts=facts, timeline=timeline, interval=picture)


def passing_picture(ctx: Context, call: str, samples: ValuePath | None) -> Evidence | None:
    """For a passing interval check, asked to show its picture: the drawing of the first
    judged interval that contains a call (:func:`with_timeline`, flaws marked as for a
    failure, so a picture never hides what another check failed); ``None`` when no
    judged interval contains one."""
    timed = [i for i in judged_intervals(ctx, call, samples) if i.calls]
    return with_timeline(ctx, call, timed[0]) if timed else None


def fresh_input_per_sample(ctx: Context, call: str) -> bool:
    """Whether ``call``'s timed calls donate their input (a list declared ``donates``,
    exercise-10): each call consumes its input, so every sample needs a fresh one, placed
    and waited inside the loop, before that sample's start read, not once before it."""
    return any(getattr(s, "call", None) == call and getattr(s, "donates", False)
               for s in ctx.exercise.samples)


FRESH_INPUT_HINT = (
    "Inside the loop, once per sample and before the line that starts the timer, place a "
    "fresh copy of the input (`x = jax.device_put(x_host)`) and wait on it "
    "(`x.block_until_ready()`): each donated call consumes its input, so it cannot be "
    "placed once before the loop.")
"""The hint of a placement or readiness failure where each sample needs a fresh input
(:func:`fresh_input_per_sample`), in the exercise statement's words: "placed and ready
before the timer starts", for each sample."""


def declared_phases(ctx: Context, call: str) -> frozenset[str]:
    """The phases every list of samples ``call`` returns is declared to measure (their
    common ones: in a call that returns first-call and warm lists, the warm interval);
    :data:`~syncgrade.rubric.timeline.WARM_PHASES` when it declares none."""
    declared = [frozenset(s.phases) for s in ctx.exercise.samples
                if getattr(s, "call", None) == call and not getattr(s, "probe", False)]
    return frozenset.intersection(*declared) if declared else WARM_PHASES


FLAWS = frozenset({
    "compilation", "warm-up not waited", "inputs not ready", "numpy inputs",
    "input placement", "no output wait", "host transfer", "another callable",
    "result shape", "jit disabled", "host work", "call not timed", "no readback",
})
"""What an interval check can see wrong, in the measurement contract's words: a phase in
an interval that must not hold it (``compilation``, ``input placement``, ``host
transfer``, ``numpy inputs``: an implicit placement), work that was not finished where
it must be (``no output wait``, ``warm-up not waited``, ``inputs not ready``),
``another callable`` timed than the one handed over, a timed call run with ``jit
disabled`` (op by op, nothing compiled), a result of another ``result shape`` than the
exercise asks for, or the learner's own ``host work`` inside (a print, a sleep,
unexplained host CPU time); ``call not timed``: an interval with no call in it (the timer
started after the call, or stopped before it); ``no readback``: an interval that must read
its output back to the host and does not."""


PLACES = "places"
"""Evidence fact: the learner's lines (``,`` between them) of the timer start of EVERY
interval a failed check saw its flaw in, when it saw it in more than the one ``at_line``
names. A report gives a check a lead only when the lead saw its flaw in each of these
places (see :mod:`syncgrade.grading.present`)."""


def places_of(intervals: Iterable[Interval]) -> str:
    """The :data:`PLACES` fact for these intervals: their start lines, sorted, unique."""
    lines = sorted({line for i in intervals if (line := line_of(i.start)) is not None})
    return ",".join(str(line) for line in lines)


def flaw_facts(flaw: str, interval: Interval | None, follows: str = "") -> dict[str, Any]:
    """Evidence facts naming what a failed check saw, so that a report can show one
    mistake once (:func:`syncgrade.render.leads`): ``flaw`` (one of :data:`FLAWS`, or
    ``""``), ``at_line`` (the learner's line of ``interval``'s timer start: checks that saw
    flaws at the same line saw the same code) and ``follows``: the flaws that would explain
    this failure if another check saw them, ``;`` between flaws all needed and ``|``
    between alternatives (``"compilation; no output wait"``)."""
    names = {f.strip() for part in follows.split(";") for f in part.split("|") if f.strip()}
    unknown = sorted(({flaw} - {""} | names) - FLAWS)
    if unknown:
        raise ValueError(f"unknown flaw(s) {', '.join(unknown)}; the flaws are "
                         f"{', '.join(sorted(FLAWS))}")
    facts: dict[str, Any] = {"flaw": flaw or None,
                             "at_line": line_of(interval.start) if interval else None}
    if follows:
        facts["follows"] = follows
    return facts
