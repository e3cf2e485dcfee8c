"""The check registry: one definition per public check id.

Each :class:`CheckDef` holds a check id's title (the one reports show), what it decides
(one sentence) and its default check function; the parameters and their types are read
from that function's signature and annotations (:func:`params_of`), never re-typed.
Everything else takes them from here: :data:`syncgrade.rubric.contract.TITLES`, a
:class:`~syncgrade.rubric.base.CheckSpec` that omits its title or function, the
validation of a rubric when it loads (a registered id must use the registered title; every
param is type-checked against its function, :func:`type_problems`), and docs/checks.md's
table (tested against :data:`REGISTRY`).

A check id that is not registered is allowed for ``answer-<key>`` (:data:`FAMILIES`) and
for a check an author adds with a check function of their own; it must then have a title.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from syncgrade.rubric import (
    checks_answers,
    checks_intervals,
    checks_phases,
    checks_process,
    checks_report,
    checks_values,
)
from syncgrade.rubric.base import CheckFn


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""The default of a parameter that has none: a rubric must give it."""


@dataclass(frozen=True)
class Param:
    """One parameter of a check function (the context excluded): its name, its type (the
    resolved annotation, ``Any`` when there is none) and its default (:data:`REQUIRED`
    when it has none)."""

    name: str
    type: Any = Any
    default: Any = REQUIRED

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def type_text(self) -> str:
        return type_text(self.type)

    def problem(self, value: Any) -> str | None:
        """Why ``value`` is not of this parameter's type, or ``None`` when it is."""
        return value_problem(self.type, value)


@dataclass(frozen=True)
class CheckDef:
    """A public check id: its ``title``, what it ``decides`` (one sentence), and ``fn``,
    the check function a :class:`~syncgrade.rubric.base.CheckSpec` uses when it names
    none. ``legacy_titles``: titles rubrics declared before the registry, replaced by
    ``title`` when a CheckSpec is built (so those declarations load until their authors
    drop the title); any other title is a rubric error. ``judges``: for a check that
    judges the learner's timed intervals, the parameter naming the samples whose intervals
    it judges (``None``: not an interval check); a passing interval check can then show
    the first of them when a picture of passing checks is asked for. ``after_intervals``:
    the check can fail only because of a flaw an interval check of the measurement
    contract saw (its evidence's ``follows``), so an exercise shows it after the checks
    the contract derives, whatever its place in ``checks``
    (:func:`syncgrade.rubric.declaration.resolve`): a report's leads come first."""

    id: str
    title: str
    decides: str
    fn: CheckFn
    legacy_titles: tuple[str, ...] = field(default=(), repr=False)
    judges: str | None = None
    after_intervals: bool = False

    @property
    def params(self) -> tuple[Param, ...]:
        """The default function's parameters, with their types and defaults."""
        return params_of(self.fn)


_DEFS = (
    CheckDef("runs", "Runs", "The file loads, the required names exist with the required "
             "parameters, and every grader call returns without raising and within the "
             "limits.", checks_process.runs),
    CheckDef("numpy-match", "Matches NumPy", "The result agrees, element by element and "
             "within what float32 rounding allows, with the grader's float64 NumPy "
             "reference on hidden inputs.", checks_values.numpy_match),
    CheckDef("shape", "Result shape", "The result has the shape the exercise asks for.",
             checks_values.shape, legacy_titles=("Row-wise shape",)),
    CheckDef("sample-count", "Sample count and units", "The samples are a list of exactly "
             "the requested count, each a finite positive float, in seconds.",
             checks_values.sample_count, legacy_titles=("Sample counts and units",)),
    CheckDef("samples-measured", "Samples are measured", "Every sample is the difference "
             "of two clock reads the learner's code took during the grader's call, "
             "unchanged.", checks_intervals.samples_measured),
    CheckDef("times-the-call", "Times one call", "Every timed interval contains exactly "
             "one call of the designated callable, with the declared static values, and "
             "no readback of its output unless the contract declares it.",
             checks_intervals.times_the_call, judges="samples"),
    CheckDef("inputs-ready", "Inputs placed and ready", "The inputs the timed calls use "
             "were placed on the device and ready before the first interval began.",
             checks_phases.inputs_ready, judges="samples"),
    CheckDef("placement-excluded", "Placement excluded", "No timed interval contains an "
             "explicit or implicit host-to-device transfer.", checks_phases.placement_excluded,
             judges="samples"),
    CheckDef("placement-included", "Placement included", "Every timed interval places "
             "every host input its timed call uses.", checks_phases.placement_included,
             judges="samples"),
    CheckDef("warmup-excluded", "Warm-up excluded", "No timed interval contains a "
             "compilation, and the warm-up had finished before the first interval began.",
             checks_phases.warmup_excluded, judges="samples"),
    CheckDef("first-call-includes-compile", "First calls compile", "Every first-call "
             "interval contains a compilation and waits for its call's output.",
             checks_report.first_call_includes_compile, judges="first"),
    CheckDef("sync-before-stop", "Waits before stopping", "Every timed interval waits for "
             "the output of the call it times before the timer stops.",
             checks_intervals.sync_before_stop, judges="samples"),
    CheckDef("interval-clean", "Nothing else timed", "No timed interval holds a print, a "
             "sleep, eager array work on anything but the timed output, or more than 1 ms "
             "of host CPU time that no recorded operation explains.",
             checks_intervals.interval_clean, judges="samples"),
    CheckDef("sample-duration", "No longer than the call", "No sample is longer than "
             "the grader's own runs of the timed call, taken in the same run with the "
             "lesson's method, explain: twice their median, four times their spread and "
             "15 ms per runnable task on each CPU.", checks_intervals.sample_duration,
             judges="samples"),
    CheckDef("readback-included", "Readback included", "Every timed interval copies its "
             "timed call's output to the host before the timer stops.",
             checks_phases.readback_included, judges="samples"),
    CheckDef("covers-device-work", "Covers the device work", "With a calibrated workload "
             "of known device duration, every sample is at least a fraction of that "
             "duration and waited for.", checks_intervals.covers_device_work, judges="samples"),
    CheckDef("verification-catches-errors", "Your check catches errors", "The learner's "
             "own NumPy check raises AssertionError on subtly wrong setups and passes on "
             "the right one.", checks_process.verification_catches_errors),
    CheckDef("reference-is-numpy", "Reference is NumPy", "The learner's reference "
             "function computes with NumPy on the host, agrees with the grader's reference "
             "and does no JAX device work.", checks_values.reference_is_numpy),
    CheckDef("jitted", "Compiled once, reused", "Every timed interval calls a jitted "
             "function, and nothing is traced or compiled after the first interval.",
             checks_intervals.jitted, judges="samples",
             after_intervals=True),  # follows `times-the-call` (jit disabled)
    CheckDef("donates-input", "Donates its input", "Every timed call's jit donates its "
             "input (`donate_argnums`) and the call consumed the input array: XLA reused "
             "its buffer for the output.", checks_intervals.donates_input, judges="samples"),
    CheckDef("boundary-matches", "Declared boundary", "The boundary the learner declares "
             "equals the phases measured inside the learner's own intervals.",
             checks_report.boundary_matches, legacy_titles=("Declared warm boundary",),
             judges="samples", after_intervals=True),  # follows what the intervals hold
    CheckDef("report-schema", "Report layout", "The returned report validates against "
             "the exercise's pydantic model.", checks_report.report_schema),
    CheckDef("summary-stats", "Summaries recomputed", "The reported medians and estimates "
             "equal those recomputed from the reported samples.", checks_report.summary_stats),
    CheckDef("environment", "Real environment and workload", "The report's JAX version, "
             "backend, device and workload match the real ones.", checks_report.environment),
)

REGISTRY: dict[str, CheckDef] = {d.id: d for d in _DEFS}
"""Every public check id's definition, by id."""

FAMILIES: dict[str, CheckDef] = {
    "answer-": CheckDef("answer-<key>", "", "The learner's answer to one question of a "
                        "concept exercise equals the key the grader derives.",
                        checks_answers.answer_phases),
}
"""Id prefixes whose ids are not registered one by one (one per question): each check
sets its own title."""


def lookup(check_id: str) -> CheckDef | None:
    """The registered definition of ``check_id``, or ``None``."""
    return REGISTRY.get(check_id)


def family_of(check_id: str) -> CheckDef | None:
    """The family ``check_id`` belongs to (``answer-a`` -> ``answer-<key>``), or ``None``."""
    for prefix, definition in FAMILIES.items():
        if check_id.startswith(prefix) and len(check_id) > len(prefix):
            return definition
    return None


# --------------------------------------------------------------------------- parameters


_STRICT = ConfigDict(strict=True, arbitrary_types_allowed=True)


def params_of(fn: Any) -> tuple[Param, ...]:
    """``fn(ctx, **params)``'s parameters after the context, with types resolved from its
    annotations (``Any`` where one cannot be resolved). ``*args``/``**kwargs`` excluded.
    Raises ``TypeError``/``ValueError`` when the signature cannot be read."""
    try:
        return _cached_params(fn)
    except TypeError:  # an unhashable callable
        return _read_params(fn)


@functools.lru_cache(maxsize=1024)
def _cached_params(fn: Any) -> tuple[Param, ...]:
    return _read_params(fn)


def _read_params(fn: Any) -> tuple[Param, ...]:
    parameters = list(inspect.signature(fn).parameters.values())[1:]
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # an annotation that does not resolve: check the others
        hints = {name: hint for name, hint in getattr(fn, "__annotations__", {}).items()
                 if not isinstance(hint, str)}
    return tuple(
        Param(p.name, hints.get(p.name, Any),
              REQUIRED if p.default is inspect.Parameter.empty else p.default)
        for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def type_adapter(tp: Any) -> TypeAdapter[Any] | None:
    """The pydantic adapter that checks a param's values against its annotation ``tp``
    (cached per hashable annotation), or ``None`` when no adapter can be built for it (the
    param is then not type-checked)."""
    try:
        return _cached_adapter(tp)
    except TypeError:  # an unhashable annotation
        return _build_adapter(tp)


@functools.lru_cache(maxsize=512)
def _cached_adapter(tp: Any) -> TypeAdapter[Any] | None:
    return _build_adapter(tp)


def _build_adapter(tp: Any) -> TypeAdapter[Any] | None:
    if tp is Any:
        return None
    try:
        return TypeAdapter(tp, config=_STRICT)
    except Exception:  # a type pydantic cannot validate: not checked
        return None


def value_problem(tp: Any, value: Any) -> str | None:
    """Why ``value`` is not of type ``tp`` (``"must be int, not '6' (str)"``, strictly: no
    coercion), or ``None`` when it is or when ``tp`` cannot be checked."""
    adapter = type_adapter(tp)
    if adapter is None:
        return None
    try:
        adapter.validate_python(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "".join(f"[{step!r}]" for step in error["loc"])
        detail = f" (at {where}: {error['msg']})" if where else ""
        return f"must be {type_text(tp)}, not {_given(value)}{detail}"
    except Exception as exc:  # a validator of the author's type raised something else
        return f"must be {type_text(tp)}, not {_given(value)} ({type(exc).__name__}: {exc})"
    return None


def type_problems(fn: Any, params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(param, why)`` for every param of ``params`` whose value is not of its type."""
    found = []
    for param in params_of(fn):
        if param.name in params:
            problem = param.problem(params[param.name])
            if problem is not None:
                found.append((param.name, problem))
    return found


_MODULES = re.compile(r"\b(?:[a-z_]\w*\.)+")


def type_text(tp: Any) -> str:
    """A type as a rubric author reads it: ``int``, ``tuple[str | int, ...]``."""
    if tp is Any:
        return "any value"
    if isinstance(tp, type) and not typing.get_args(tp):
        return tp.__name__
    text = repr(tp)
    return _MODULES.sub("", text).replace("NoneType", "None")


def _given(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"
