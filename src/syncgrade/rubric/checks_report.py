"""Checks of the reports learners return: their fields (exercise-6 and exercise-7).

- ``report-schema``: the report validates against the exercise's pydantic model (and,
  where asked, survives ``json.dumps``); the failure lists every bad field.
- ``boundary-matches``: the declared boundary equals the phases measured inside every
  interval that produced one of the learner's samples.
- ``summary-stats``: reported medians and differences equal those recomputed from the
  reported samples.
- ``environment``: reported JAX version, backend and device are the child's real ones;
  in exercise-7 combined with ``workload_matches`` (shapes and dtypes of the real ``args``).
- ``first-call-includes-compile``: every first-call interval compiles and waits.

First-call and warm intervals are told apart by the samples the learner returned (each
sample is one interval's duration); when the samples cannot be matched to intervals, by
whether an interval contains a compilation. Semantics: docs/checks.md.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ValidationError

from syncgrade.analysis import (
    HALF_MICROSECOND,
    MAX_MATCHED_SAMPLES,
    PHASES,
    Interval,
    SampleMatch,
)
from syncgrade.models import Evidence
from syncgrade.rubric import intervals as iv
from syncgrade.rubric.base import Context, Outcome, Skip, ValuePath
from syncgrade.rubric.report_models import type_name
from syncgrade.rubric.timeline import PHASE_FLAWS, WAITING_FLAWS
from syncgrade.values import JaxArray, NumpyScalar, Opaque, is_number

MAX_LISTED = 6
Loc = tuple[str | int, ...]

# --------------------------------------------------------------------------- report-schema


def report_schema(ctx: Context, call: str, report: ValuePath, model: type[BaseModel],
                  json_safe: bool = False) -> Outcome:
    """The report validates against ``model``; with ``json_safe``, it also holds only
    what ``json.dumps`` accepts. The message lists each missing or ill-typed field."""
    value = ctx.value(call, report)
    found = schema_errors(value, model)
    if json_safe:
        ill_typed = {loc for loc, _ in found}
        found += [(loc, text) for loc, text in json_problems(value) if loc not in ill_typed]
    problems = grouped_problems(found)
    fn = iv.function_of(ctx, call)
    if problems:
        listed = "; ".join(problems[:MAX_LISTED])
        more = f"; and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        return Outcome.fail(
            f"The report `{fn}` returned does not have the required layout: {listed}{more}.",
            "Compare each field with the exercise README: its name, and whether it holds a "
            "float, a list of floats, text, or phase names." + (
                " The report must survive `json.dumps`: plain floats, lists and strings only."
                if json_safe else ""),
            _facts(problems),
        )
    return Outcome.ok(f"The report `{fn}` returned has every required field, well typed.")


def _facts(problems: list[str]) -> Evidence:
    return Evidence(facts={f"problem_{i + 1}": p for i, p in enumerate(problems[:20])})


def schema_errors(value: Any, model: type[BaseModel]) -> list[tuple[Loc, str]]:
    """(where, what is wrong) for each validation error of ``value`` against ``model``.
    Sets are validated in sorted order: the index an error names in a set (``boundary[0]``)
    is then the same in every grade, not the hash seed's iteration order."""
    try:
        model.model_validate(_sets_sorted(value))
    except ValidationError as exc:
        return [(tuple(e["loc"]), _problem(e)) for e in exc.errors()]
    return []


def _sets_sorted(value: Any) -> Any:
    """``value`` with every set inside it a list in a fixed order (by type, then repr);
    a model's set field accepts a list, and its items are validated in that order."""
    if isinstance(value, (set, frozenset)):
        return sorted((_sets_sorted(item) for item in value),
                      key=lambda item: (type(item).__name__, repr(item)))
    if isinstance(value, dict):
        return {key: _sets_sorted(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_sets_sorted(item) for item in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def grouped_problems(problems: list[tuple[Loc, str]]) -> list[str]:
    """One line per problem (a field path and what is wrong with it), in the order first
    found; the same problem on several items of one list is one line that names the first
    item and counts the others."""
    groups: dict[tuple[Any, ...], list[tuple[str | int, ...]]] = {}
    for loc, text in problems:
        key = (loc[:-1], text) if loc and isinstance(loc[-1], int) else (loc, text)
        groups.setdefault(key, []).append(loc)
    lines = []
    for (_parent, text), locs in groups.items():
        line = f"{field_path(locs[0])} {text}"
        if len(locs) > 1:
            line = (f"{field_path(locs[0])} (and {len(locs) - 1} more item"
                    f"{'s' if len(locs) > 2 else ''} of {field_path(locs[0][:-1])}) {text}")
        lines.append(line)
    return lines


def _problem(error: Any) -> str:
    """What is wrong with one field, phrased to follow its name."""
    got = error.get("input")
    if error["type"] == "missing":
        return "is missing"
    if error["type"] in ("array_not_float", "not_a_number"):
        return f"is {error['msg']}"
    if error["type"] == "literal_error":
        return (f"is {got!r}, not a phase name (use one of: "
                f"{', '.join(repr(p) for p in PHASES)})")
    if error["type"] in ("model_type", "dict_type"):
        return f"should be a dict, not {type_name(got)}"
    if error["type"] == "set_type" and isinstance(got, str):
        return ("is one string; it should be a list or set of phase names, e.g. "
                '`["dispatch", "device execution"]`')
    wanted = error["msg"].removeprefix("Input should be ").rstrip(".")
    return f"should be {wanted}, not {type_name(got)}"


def field_path(loc: Sequence[str | int]) -> str:
    """``("first_call_s", 2)`` -> ``"`first_call_s[2]`"``; ``()`` -> ``"the report"``."""
    if not loc:
        return "the report"
    text = ""
    for step in loc:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return f"`{text}`"


def json_problems(value: Any, loc: Loc = ()) -> list[tuple[Loc, str]]:
    """(where, why) ``json.dumps`` would reject ``value`` (decoded child values: sets come
    back as frozensets, arrays as ndarrays, NumPy scalars keep their dtype)."""
    if isinstance(value, dict):
        problems: list[tuple[Loc, str]] = []
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                problems.append((loc, f"has a key that is {type_name(key)}"))
                continue
            problems += json_problems(item, (*loc, str(key)))
        return problems
    if isinstance(value, (list, tuple)):
        return [p for i, item in enumerate(value) for p in json_problems(item, (*loc, i))]
    if isinstance(value, frozenset):
        return [(loc, "is a set, which JSON cannot hold (use a sorted list)")]
    if isinstance(value, NumpyScalar) and value.dtype != "float64":
        return [(loc, f"is {type_name(value)}, which JSON cannot hold (use float(...))")]
    if isinstance(value, (np.ndarray, Opaque)):
        return [(loc, f"is {type_name(value)}, which JSON cannot hold")]
    return []


# --------------------------------------------------------------------------- numbers


def _number(ctx: Context, call: str, path: ValuePath) -> float:
    value = ctx.value(call, path)
    if not is_number(value) or isinstance(value, JaxArray) or not math.isfinite(value):
        raise Skip(f"{field_path(path[-1:])} is not a plain number (see `report-schema`)")
    return float(value)


def _numbers(ctx: Context, call: str, path: ValuePath) -> list[float]:
    value = ctx.value(call, path)
    if not isinstance(value, (list, tuple)) or not value or not all(
            is_number(v) and math.isfinite(v) for v in value):
        raise Skip(f"{field_path(path[-1:])} is not a list of numbers (see `report-schema`)")
    return [float(v) for v in value]


# --------------------------------------------------------------------------- summary-stats


def summary_stats(ctx: Context, call: str, report: ValuePath, medians: Mapping[str, str],
                  differences: Mapping[str, tuple[str, str]], rtol: float = 1e-6) -> Outcome:
    """Each ``medians`` field is the median of its samples field; each ``differences``
    field is the first field minus the second (recomputed from the samples). A failure
    names every wrong field. Up to float noise (``rtol``) or rounding to the microsecond,
    as a sample may be (:data:`~syncgrade.analysis.HALF_MICROSECOND`, the matching's
    tolerance): a median rounded for the report (``round(median, 6)``) is that median, and
    a difference of two such medians, itself rounded, is off by up to three roundings."""
    recomputed: dict[str, float] = {}
    reported_samples = _sample_lists(ctx, call, report, medians.values())
    wrong: list[tuple[str, str, str]] = []  # (field, what is wrong, what to change)
    for field, samples_field in medians.items():
        samples = _numbers(ctx, call, (*report, samples_field))
        recomputed[field] = statistics.median(samples)
        reported = _number(ctx, call, (*report, field))
        if not math.isclose(reported, recomputed[field], rel_tol=rtol,
                            abs_tol=HALF_MICROSECOND):
            wrong.append((field, f"`{field}` is {reported:.6g}, but the median of your "
                                 f"`{samples_field}` is {recomputed[field]:.6g}",
                          f"`{field}` = `statistics.median({samples_field})`"))
    for field, (left, right) in differences.items():
        expected = recomputed[left] - recomputed[right]
        reported = _number(ctx, call, (*report, field))
        scale = max(abs(recomputed[left]), abs(recomputed[right]))
        tolerance = rtol * scale + 3 * HALF_MICROSECOND
        own = _number(ctx, call, (*report, left)) - _number(ctx, call, (*report, right))
        if any(f in (left, right) for f, _, _ in wrong) and math.isclose(
                reported, own, rel_tol=0.0, abs_tol=tolerance):
            continue  # right from the reported medians: fixing those fixes it
        if not math.isclose(reported, expected, rel_tol=0.0, abs_tol=tolerance):
            wrong.append((field, f"`{field}` is {reported:.6g}, but `{left}` minus `{right}` "
                                 f"is {expected:.6g}", f"`{field} = {left} - {right}`"))
    if wrong:
        return Outcome.fail(
            "; ".join(what for _, what, _ in wrong) + ".",
            "Compute each from the samples you report, after all samples are taken: "
            + _and(fix for _, _, fix in wrong) + " (`float(np.median(...))` works too).",
            Evidence(facts={"field": wrong[0][0], "fields": ", ".join(f for f, _, _ in wrong)},
                     samples=reported_samples),
        )
    names = ", ".join(f"`{f}`" for f in (*medians, *differences))
    return Outcome.ok(f"{names} agree with your reported samples.",
                      Evidence(samples=reported_samples))


def _and(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    listed = list(items)
    return listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + f" and {listed[-1]}"


def _sample_lists(ctx: Context, call: str, report: ValuePath,
                  fields: Iterable[str]) -> dict[str, list[float]]:
    """Each of ``fields`` that is a list of numbers, for the picture of the learner's own
    distributions (a field that is not one is left out; ``report-schema`` reports it). At
    most :data:`~syncgrade.analysis.MAX_MATCHED_SAMPLES` of each: a report stays small."""
    found: dict[str, list[float]] = {}
    for name in fields:
        try:
            found[name] = _numbers(ctx, call, (*report, name))[:MAX_MATCHED_SAMPLES]
        except Skip:
            continue
    return found


# --------------------------------------------------------------------------- environment


def environment(ctx: Context, call: str, report: ValuePath) -> Outcome:
    """``jax_version``, ``backend`` and ``device`` match the child's real ones."""
    hello = ctx.hello
    if hello is None:
        raise Skip("the grader did not learn the real environment")
    env = ctx.value(call, report)
    if not isinstance(env, dict):
        raise Skip("the environment is not a dict (see `report-schema`)")
    checks: list[tuple[str, Callable[[str], bool], str]] = [
        ("jax_version", lambda v: v == hello.jax_version, "`jax.__version__`"),
        ("backend", lambda v: v.lower() == hello.backend.lower(), "`jax.default_backend()`"),
        ("device", lambda v: device_matches(v, hello.device, hello.platform),
         "`jax.devices()[0].device_kind` (or `.platform`)"),
    ]
    wrong: list[tuple[str, str, str]] = []  # (field, its value, where to read it)
    for key, ok, source in checks:
        value = env.get(key)
        if not isinstance(value, str):
            raise Skip(f"`environment.{key}` is not text (see `report-schema`)")
        if not ok(value):
            wrong.append((key, value, source))
    if wrong:
        fields = _and(f"`environment.{key}` is {value[:60]!r}" for key, value, _ in wrong)
        return Outcome.fail(
            f"{fields}, which {'is' if len(wrong) == 1 else 'are'} not what the process "
            "running your code has.",
            "Read " + _and(f"`{key}` from {source}" for key, _, source in wrong)
            + " at run time instead of writing it by hand.",
            Evidence(facts={"field": wrong[0][0],
                            "fields": ", ".join(key for key, _, _ in wrong)}),
        )
    return Outcome.ok("The reported JAX version, backend and device are the real ones.")


def workload_matches(ctx: Context, call: str, report: ValuePath,
                     args: Sequence[str]) -> Outcome:
    """``shapes`` and ``dtypes`` describe the arguments the grader really passed, in order:
    ``args`` names the hidden inputs handed over as the call's ``args`` tuple.

    A shape is a list or tuple of ints; a dtype is any name NumPy parses to the argument's
    dtype (``"float32"``, ``"<f4"``, ``"f4"``, ``"single"``). The learner was handed these
    arrays, but their sizes are hidden inputs: a message quotes what the learner reported
    and says which argument it does not describe (and how many axes that argument has),
    never its sizes, as :func:`~syncgrade.rubric.checks_values.shape_difference` does; values
    never appear. Ill-typed fields are :class:`Skip` (``report-schema`` reports them)."""
    workload = ctx.value(call, report)
    if not isinstance(workload, dict):
        raise Skip("the workload is not a dict (see `report-schema`)")
    real = [ctx.inputs[name] for name in args]
    shapes, dtypes = workload.get("shapes"), workload.get("dtypes")
    if not isinstance(shapes, (list, tuple)) or not all(
            isinstance(s, (list, tuple)) and all(_is_int(n) for n in s) for s in shapes):
        raise Skip("`workload.shapes` is not a list of shapes (see `report-schema`)")
    if not isinstance(dtypes, (list, tuple)) or not all(isinstance(d, str) for d in dtypes):
        raise Skip("`workload.dtypes` is not a list of text (see `report-schema`)")
    hint = ("Describe the arguments your function received, read at run time: "
            "`[list(a.shape) for a in args]` and `[str(a.dtype) for a in args]`.")
    wrong: list[tuple[str, int, str]] = [  # (field, index or -1 for the list, words)
        (field, -1, f"`workload.{field}` lists {len(listed)} item(s), but `args` held "
                    f"{len(real)} arrays (one entry per argument, in order)")
        for field, listed in (("shapes", shapes), ("dtypes", dtypes))
        if len(listed) != len(real)]
    for index, (shape, array) in enumerate(zip(shapes, real, strict=False)):
        listed_shape = [int(n) for n in shape]
        if tuple(listed_shape) != array.shape:
            axes = (f" (it has {array.ndim} ax{'i' if array.ndim == 1 else 'e'}s)"
                    if len(listed_shape) != array.ndim else "")
            wrong.append(("shapes", index, f"`workload.shapes[{index}]` is {listed_shape}, "
                                           f"which is not the shape of `args[{index}]`{axes}"))
    for index, (name, array) in enumerate(zip(dtypes, real, strict=False)):
        if dtype_of(name) != array.dtype:
            wrong.append(("dtypes", index, f"`workload.dtypes[{index}]` is {name[:40]!r}, "
                                           f"but `args[{index}]` has dtype "
                                           f"{array.dtype.name!r}"))
    if wrong:
        field, index, _ = wrong[0]
        facts: dict[str, Any] = {"field": field, "wrong": len(wrong)}
        if index >= 0:
            facts["index"] = index
        more = f" And {len(wrong) - MAX_LISTED} more." if len(wrong) > MAX_LISTED else ""
        return Outcome.fail(" ".join(f"{w}." for _, _, w in wrong[:MAX_LISTED]) + more, hint,
                            Evidence(facts=facts))
    return Outcome.ok("The reported workload shapes and dtypes are those of `args`.")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def dtype_of(name: str) -> np.dtype[Any] | None:
    """The NumPy dtype a learner's dtype name stands for (``"float32"``, ``"<f4"``), or
    ``None`` when NumPy does not read it as one (overlong text is never parsed)."""
    if len(name) > 32:
        return None
    try:
        return np.dtype(name.strip())
    except (TypeError, ValueError, SyntaxError):
        return None


GPU_NAMES = ("gpu", "cuda", "rocm")


def device_matches(value: str, device_kind: str, platform: str) -> bool:
    """The device's kind or platform, or a printed device such as ``TFRT_CPU_0``,
    ``CpuDevice(id=0)`` or ``cuda:0`` (case-insensitive)."""
    text = value.strip().lower()
    if text in (device_kind.lower(), platform.lower()):
        return True
    names = GPU_NAMES if platform.lower() in GPU_NAMES else (platform.lower(),)
    return any(name in text for name in names) and any(ch.isdigit() for ch in text)


# --------------------------------------------------------------------------- first / warm


def split_first_warm(ctx: Context, call: str, first: ValuePath,
                     warm: ValuePath) -> tuple[list[Interval], list[Interval]]:
    """(first-call intervals, warm intervals) of ``call``: the intervals the learner's
    ``first`` and ``warm`` samples are the differences of (``checks.sample_match``; the warm
    list may not reuse a first-call interval), else by whether an interval compiles."""
    intervals = list(ctx.analysis(call).intervals)
    first_ivs = _matched(iv.sample_match(ctx, call, first))
    warm_ivs = _matched(iv.sample_match(ctx, call, warm, exclusive_of=(first,)))
    if first_ivs is not None and warm_ivs is not None:
        return first_ivs, warm_ivs
    if first_ivs is not None:
        return first_ivs, [i for i in intervals if i not in first_ivs]
    if warm_ivs is not None:
        return [i for i in intervals if i not in warm_ivs], warm_ivs
    return [i for i in intervals if i.compiles], [i for i in intervals if not i.compiles]


def _matched(match: SampleMatch | None) -> list[Interval] | None:
    return match.matched if match is not None and match.complete else None


def warm_intervals(first: ValuePath, warm: ValuePath) -> Callable[[Context, str],
                                                                  list[Interval]]:
    """A selector (for :func:`syncgrade.rubric.compose.on_intervals`) of warm intervals."""

    def select(ctx: Context, call: str) -> list[Interval]:
        return split_first_warm(ctx, call, first, warm)[1]

    return select


def first_intervals(first: ValuePath, warm: ValuePath) -> Callable[[Context, str],
                                                                    list[Interval]]:
    """A selector (see ``compose.on_intervals``) of the first-call intervals."""
    def select(ctx: Context, call: str) -> list[Interval]:
        return split_first_warm(ctx, call, first, warm)[0]
    return select


def first_call_includes_compile(ctx: Context, call: str, first: ValuePath,
                                warm: ValuePath) -> Outcome:
    """Every first-call interval contains a compilation and a completed wait on the
    output of the call it times."""
    first_ivs, _ = split_first_warm(ctx, call, first, warm)
    reported = len(_numbers(ctx, call, first))
    if not first_ivs:
        return Outcome.fail(
            "No first-call interval contains a compilation: every timed call reused a "
            "callable that was already compiled.",
            "For each first-call sample, get a fresh callable with `make_fn()` and time its "
            "very first call, to completion.",
        )
    for index, interval in enumerate(first_ivs):
        if not interval.compiles:
            return Outcome.fail(
                f"First-call interval {index + 1} (line {iv.line_of(interval.start)} to line "
                f"{iv.line_of(interval.stop)}) contains no compilation: its callable was "
                "already compiled, so the sample is a warm call.",
                "Call `make_fn()` once per first-call sample and time that new callable's "
                "first call.", iv.with_timeline(ctx, call, interval, flaws=()),
            )
        if not interval.waits_on_timed_output() or interval.ready_at_stop is False:
            return Outcome.fail(
                f"First-call interval {index + 1} stops the timer before the output is "
                "ready: it measures tracing, compiling and dispatch, not the finished call.",
                "Wait on the first call's output (e.g. `jax.block_until_ready(out)`) before "
                f"the line that stops the timer (line {iv.line_of(interval.stop)}).",
                iv.with_timeline(ctx, call, interval, flaws=WAITING_FLAWS,
                                 ready_at_stop=interval.ready_at_stop,
                                 **iv.flaw_facts("no output wait", interval)),
            )
    if len(first_ivs) < reported:
        return Outcome.fail(
            f"Only {len(first_ivs)} of your {reported} first-call samples come from an "
            "interval that compiles: the others time a callable that was already compiled.",
            "Call `make_fn()` once per first-call sample and time that new callable's first "
            "call.",
        )
    return Outcome.ok(f"Each of the {len(first_ivs)} first-call intervals compiles and "
                      "waits for its output.")


# --------------------------------------------------------------------------- boundary


def declared_phases(value: Any) -> set[str]:
    """The declared boundary as a set of phase names; :class:`Skip` when it is not a
    set/list of known phase names (``report-schema`` reports that)."""
    if not isinstance(value, (frozenset, list, tuple)) or not all(
            isinstance(p, str) and p in PHASES for p in value):
        raise Skip("the boundary is not a set of phase names (see `report-schema`)")
    return set(value)


def phase_words(phases: Iterable[str]) -> str:
    """Phase names in the lesson's order, as words: ``"compilation, dispatch and device
    execution"`` (never Python's set notation); ``"no phases"`` for none."""
    named = [p for p in PHASES if p in set(phases)]
    if not named:
        return "no phases"
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"


EXPLAINED_EXTRA = {"compilation": "compilation",
                   "input placement": "input placement|numpy inputs",
                   "host transfer": "host transfer"}
"""A phase an interval holds but should not, by the flaw an interval check sees for it."""
EXPLAINED_MISSING = {"device execution": "no output wait", "output wait": "no output wait"}
"""A phase an interval lacks but should hold, by the flaw an interval check sees for it."""


def _explained_by(*, held_not_declared: set[str], declared_not_held: set[str]) -> str:
    """The flaws (``follows``, see :func:`~syncgrade.rubric.intervals.flaw_facts`) that
    account for every difference between a declared and a measured boundary: phases an
    interval holds but the declaration (the contract) leaves out, and phases declared but
    not held; ``""`` when one difference is the declaration's own (then the boundary check
    leads)."""
    groups = [EXPLAINED_EXTRA.get(p) for p in PHASES if p in held_not_declared]
    groups += [EXPLAINED_MISSING.get(p) for p in PHASES if p in declared_not_held]
    if not groups or None in groups:
        return ""
    return "; ".join(dict.fromkeys(g for g in groups if g))


def _boundary_hint(interval_right: bool) -> str:
    """What to change when a declared boundary differs from the measured one. An interval
    that does not measure what the exercise asks is fixed first (declaring its flaws would
    point away from the fix); the hint never names the phases the exercise asks for."""
    if interval_right:
        return ("Declare the phases your interval really contains (or change the interval "
                "so it contains the ones you declared).")
    return ("Fix the interval first (the other failed checks of this interval say what to "
            "change), then declare the phases it contains.")


def boundary_matches(ctx: Context, call: str, boundary: ValuePath,
                     samples: ValuePath | None = None,
                     select: Callable[[Context, str], list[Interval]] | None = None,
                     kind: str = "") -> Outcome:
    """The declared phases equal ``Interval.phases()`` of every interval that produced a
    sample (a first interval that compiles holds `compilation`: declare what you measured).

    ``select`` picks the intervals instead (exercise-7: the warm ones, see
    :func:`warm_intervals`); ``kind`` names them in messages ("warm"). An empty declared
    boundary never matches: every timed interval holds at least `dispatch`. With a selector
    that finds no interval, the check is skipped (``sample-count`` and the timing checks
    report a missing interval)."""
    declared = declared_phases(ctx.value(call, boundary))
    if select is not None:
        intervals = select(ctx, call)
        if not intervals:
            raise Skip(f"no {kind + ' ' if kind else ''}interval to compare the boundary with")
    else:
        intervals = iv.judged_intervals(ctx, call, samples)
        if not intervals:
            return iv.no_intervals(iv.function_of(ctx, call))
    named = f"{kind} interval" if kind else "interval"
    for index, interval in enumerate(intervals):
        measured = interval.phases()
        if measured == declared:
            continue
        declared_not_held, held_not_declared = declared - measured, measured - declared
        parts = []
        if held_not_declared and declared:
            parts.append(f"it also holds {phase_words(held_not_declared)}")
        if declared_not_held:
            parts.append(f"it does not hold {phase_words(declared_not_held)}")
        follows = (_explained_by(held_not_declared=held_not_declared,
                                 declared_not_held=declared_not_held) if declared else "")
        return Outcome.fail(
            f"You declared {phase_words(declared)}, but {named} {index + 1} measured "
            f"{phase_words(measured)}" + (f": {' and '.join(parts)}." if parts else "."),
            _boundary_hint(measured == set(iv.declared_phases(ctx, call))),
            iv.with_timeline(ctx, call, interval, flaws={
                flaw for phase in declared_not_held | held_not_declared
                for flaw in PHASE_FLAWS.get(phase, ())},
                declared=len(declared), measured=len(measured),
                **iv.flaw_facts("", interval, follows)),
        )
    return Outcome.ok(f"The declared boundary ({phase_words(declared)}) is what your "
                      f"{kind + ' ' if kind else ''}intervals measure.")
