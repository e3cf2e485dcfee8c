"""The measurement contract: what each list of samples must measure, and every interval
check derived from that one declaration.

An exercise declares each list of samples it asks for as a :class:`Samples`: which grader
call returns it and where, how many samples, and the interval each sample must measure,
in the lesson's phase vocabulary, plus *what* is timed (the callable the grader handed
over, by identity, and its static values). :func:`derived_checks` turns the declarations
into the interval checks, the same way in every exercise:

- ``sample-count``: the requested number of finite positive samples, in seconds;
- ``samples-measured``: each sample is ``stop - start`` of two of the learner's reads;
- ``times-the-call``: one call of the designated callable per sample, with the declared
  static values, samples in the order they were taken, and no host transfer of the
  timed output inside unless declared;
- ``donates-input``: when the list declares ``donates``: every timed call's jit donates
  its input and the call consumed it (a fresh input per sample);
- ``placement-excluded`` or ``placement-included``: a host-to-device transfer inside iff
  ``input placement`` is declared (re-placing device arrays transfers nothing);
- ``warmup-excluded`` or ``first-call-includes-compile``: a compilation inside iff
  ``compilation`` is declared;
- ``inputs-ready``: when the grader hands over inputs that still need placing or are
  still being computed, and placement is not declared, they were ready first;
- ``sync-before-stop``: a wait on the timed output (or on a value computed from it)
  before the stop read;
- ``readback-included``: when ``host transfer`` is declared;
- ``interval-clean``: nothing else inside: no print, sleep, eager array work on anything
  but the timed output, or unexplained host CPU time above the bound (declared placement
  and readback are recorded operations, so explained);
- ``sample-duration``: no sample longer than the grader's own runs of the timed call,
  taken in the same child right after the learner's samples, explain (every list but the
  probe's and first-call lists);
- ``covers-device-work``: on the probe lists (the calibrated workload), each sample at
  least a fraction of the known device work, and waited for.

An exercise states only what differs from the default (``phases=WARM``); it cannot forget
a check. Semantics: docs/checks.md, "The measurement contract".
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from syncgrade.analysis import PHASES
from syncgrade.rubric import checks_intervals, checks_phases, checks_report, checks_values
from syncgrade.rubric.base import CheckFn, CheckSpec, GraderCall, Origin, ValuePath, declared_at
from syncgrade.rubric.compose import Part, all_of, on_intervals
from syncgrade.rubric.registry import REGISTRY, value_problem

WARM = frozenset({"dispatch", "device execution", "output wait"})
HIDDEN = "hidden"
"""What ``grade list --json`` shows for each static value a contract fixes."""
"""The default interval: one warm call of the designated callable, waited for."""

TITLES = {check_id: REGISTRY[check_id].title for check_id in (
    "sample-count", "samples-measured", "times-the-call", "donates-input",
    "placement-excluded", "placement-included", "warmup-excluded",
    "first-call-includes-compile", "inputs-ready", "readback-included", "sync-before-stop",
    "interval-clean", "sample-duration", "covers-device-work",
)}
"""Every check id the contract derives, in report order, with its title (from the check
registry, :mod:`syncgrade.rubric.registry`). A check that can fail only because of
another (its evidence's ``follows``, see :mod:`syncgrade.grading.present`) comes after
every check that can lead it, so a report reads root cause first without ever changing
its order: ``inputs-ready`` after placement and warm-up; ``warmup-excluded`` after
``times-the-call`` (another callable); ``sync-before-stop`` after ``readback-included``
(a readback after the stop read leads the missing wait); ``covers-device-work`` after
``sync-before-stop``."""

_UNREADY_KINDS = frozenset({"host", "probe_host_args"})


@dataclass(frozen=True)
class Samples:
    """One list of samples and the interval each of its samples must measure.

    ``call``/``path``: the grader call and where the list is in its return value.
    ``count``: how many samples. ``label``: how the statement names the list (prefixes
    messages when an exercise has several lists). ``phases``: the interval, a subset of
    :data:`~syncgrade.analysis.PHASES` (default :data:`WARM`). ``fn``: what is timed:
    ``None`` for a callable the grader handed over (by identity), or the name of the
    learner's own function whose jit is timed, or ``""`` for any jit of the learner's
    own (exercise-5; never a callable the grader handed over). ``static``: the static
    argument values every timed call must use (``None``: not checked). ``exclusive_of``:
    lists whose intervals this one may not reuse. ``probe``: the list comes from the
    calibrated probe (judged by ``samples-measured`` and ``covers-device-work`` only);
    ``runs_per_sample``: how many probe runs one sample covers. ``donates``: every timed
    call must donate its input (``donates-input``: its jit made with ``donate_argnums`` or
    ``donate_argnames``, the input array consumed by the call; exercise-10)."""

    call: str
    path: ValuePath
    count: int
    label: str = ""
    phases: frozenset[str] = WARM
    fn: str | None = None
    static: tuple[Any, ...] | None = None
    exclusive_of: tuple[ValuePath, ...] = ()
    probe: bool = False
    runs_per_sample: int = 1
    donates: bool = False
    origin: Origin | None = field(default=None, compare=False, repr=False, kw_only=True)
    """Where it was written (recorded when built): the derived checks name this line."""

    def __post_init__(self) -> None:
        if self.origin is None:
            object.__setattr__(self, "origin", declared_at())
        # Every field against its annotation, here, so the error is raised on the line
        # that builds the Samples (REPEATS = "6" is reported there, not against the
        # derived checks the author never wrote).
        hints = typing.get_type_hints(Samples)
        for item in fields(self):
            if item.name != "origin":
                problem = value_problem(hints[item.name], getattr(self, item.name))
                if problem is not None:
                    raise TypeError(f"{self._named()}: {item.name} {problem}")
        unknown = sorted(set(self.phases) - set(PHASES))
        if unknown:
            raise ValueError(f"{self._named()}: unknown phase(s) "
                             f"{unknown}; the phases are {list(PHASES)}")
        if not {"dispatch", "device execution", "output wait"} <= self.phases:
            raise ValueError(f"{self._named()}: every interval holds "
                             "dispatch, device execution and output wait")
        if self.count < 1 or self.runs_per_sample < 1:
            raise ValueError(f"{self._named()}: count and "
                             "runs_per_sample must be at least 1")

    def _named(self) -> str:
        return f"Samples({self.call!r}, {self.path!r})"

    def describe(self) -> dict[str, Any]:
        """The contract as JSON (``grade list --json``)."""
        return {
            "call": self.call, "samples": list(self.path), "count": self.count,
            "label": self.label,
            "phases": [p for p in PHASES if p in self.phases],
            "timed": "the callable the grader hands over" if self.fn is None
            else f"jax.jit of your `{self.fn}`" if self.fn else "your own jitted function",
            # The values are the grader's settings (hidden like its inputs): only how many.
            "static": [HIDDEN] * len(self.static) if self.static is not None else None,
            "probe": self.probe,
            "donates": self.donates,
        }


def derived_checks(lists: Sequence[Samples], calls: Sequence[GraderCall],
                   points: Mapping[str, float] | None = None) -> tuple[CheckSpec, ...]:
    """The interval checks of ``lists``, in :data:`TITLES` order, each worth
    ``points[id]`` (default 1). A check applies when some list needs it."""
    points = points or {}
    main = [s for s in lists if not s.probe]
    probes = [s for s in lists if s.probe]
    by_call = {call.id: call for call in calls}
    parts: dict[str, list[Part]] = {check_id: [] for check_id in TITLES}
    origins: dict[str, Origin | None] = {}
    for samples in main:
        for check_id, fn, params in _main_parts(samples, main, by_call):
            parts[check_id].append(Part(_label(samples, main), fn, params))
            origins.setdefault(check_id, samples.origin)
    for samples in probes:
        on_probe = "On the grader's calibration workload"
        parts["samples-measured"].append(Part(on_probe, checks_intervals.samples_measured, {
            "call": samples.call, "samples": samples.path,
            "exclusive_of": samples.exclusive_of}))
        parts["covers-device-work"].append(Part(
            samples.label, checks_intervals.covers_device_work, {
                "call": samples.call, "samples": samples.path,
                "runs_per_sample": samples.runs_per_sample}))
        origins.setdefault("samples-measured", samples.origin)
        origins.setdefault("covers-device-work", samples.origin)
    # Each derived check names the line of the first Samples it comes from.
    return tuple(
        CheckSpec(check_id, TITLES[check_id], all_of, points.get(check_id, 1.0),
                  {"parts": tuple(found), "ok": _OK.get(check_id, "") if len(found) > 1
                   else ""}, origin=origins.get(check_id))
        for check_id, found in parts.items() if found)


_OK = {
    "sample-count": "Every list holds the requested number of finite, positive samples "
                    "in seconds.",
    "samples-measured": "Every sample is the difference of two clock readings your code took.",
    "times-the-call": "Each sample times exactly one call of the function you were given.",
    "donates-input": "Every timed call donated its input.",
    "sync-before-stop": "Every interval waits for its own output before the timer stops.",
    "placement-excluded": "No input placement inside the timed intervals.",
    "warmup-excluded": "Compilation and warm-up finished before the first timed interval.",
    "interval-clean": "Every timed interval holds only the timed work.",
    "sample-duration": "No sample is longer than the call explains.",
}


def _label(samples: Samples, main: Sequence[Samples]) -> str:
    return samples.label if len(main) > 1 else ""


def _main_parts(samples: Samples, main: Sequence[Samples], by_call: Mapping[str, GraderCall]
                ) -> list[tuple[str, CheckFn, dict[str, Any]]]:
    on = {"call": samples.call, "samples": samples.path}
    phases = samples.phases
    pair = _first_and_warm(samples, main)

    def judged(check: CheckFn, **params: Any) -> tuple[CheckFn, dict[str, Any]]:
        # A call that returns a first-call and a warm list: each list's interval checks
        # judge the intervals the split assigns it (checks_report.split_first_warm), also
        # when one list's samples match no read pairs.
        if pair is None:
            return check, {**on, **params}
        first, warm = pair
        select = (checks_report.warm_intervals(first.path, warm.path) if samples is warm
                  else checks_report.first_intervals(first.path, warm.path))
        return on_intervals, {"check": check, "call": samples.call, "select": select,
                              **params}

    found: list[tuple[str, CheckFn, dict[str, Any]]] = [
        ("sample-count", checks_values.sample_count, {**on, "count": samples.count}),
        ("samples-measured", checks_intervals.samples_measured,
         {**on, "exclusive_of": samples.exclusive_of}),
        ("times-the-call", *judged(checks_intervals.times_the_call, fn=samples.fn,
                                   static=samples.static,
                                   host_transfer="host transfer" in phases)),
    ]
    if pair is not None:
        # The split hands times_the_call its intervals in time order, with no sample
        # list: the order the samples were reported in is checked on the list itself.
        found.append(("times-the-call", checks_intervals.samples_in_order,
                      {**on, "exclusive_of": samples.exclusive_of}))
    if samples.donates:
        found.append(("donates-input", *judged(checks_intervals.donates_input)))
    if "input placement" in phases:
        found.append(("placement-included", *judged(checks_phases.placement_included)))
    else:
        if _hands_unready_inputs(by_call.get(samples.call)):
            found.append(("inputs-ready", *judged(checks_phases.inputs_ready)))
        found.append(("placement-excluded", *judged(checks_phases.placement_excluded)))
    if "compilation" in phases:
        if pair is None:
            raise ValueError(f"Samples({samples.call!r}, {samples.path!r}) declares "
                             "compilation: the same call must also return a warm list")
        found.append(("first-call-includes-compile", checks_report.first_call_includes_compile,
                      {"call": samples.call, "first": pair[0].path, "warm": pair[1].path}))
    else:
        found.append(("warmup-excluded", *judged(
            checks_phases.warmup_excluded, static_arguments=samples.static is not None)))
    found.append(("sync-before-stop", *judged(checks_intervals.sync_before_stop)))
    if "host transfer" in phases:
        found.append(("readback-included", *judged(checks_phases.readback_included)))
    found.append(("interval-clean", *judged(checks_intervals.interval_clean)))
    if _grader_timed(samples):
        found.append(("sample-duration", checks_intervals.sample_duration,
                      {**on, "exclusive_of": samples.exclusive_of}))
    return found


def _grader_timed(samples: Samples) -> bool:
    """The grader times the call of ``samples`` itself (``sample-duration``): every list
    but the probe's and those whose interval holds a compilation (a first call: the
    grader cannot compile the learner's callable anew)."""
    return not samples.probe and "compilation" not in samples.phases


def reference_requests(lists: Sequence[Samples], call_id: str) -> list[dict[str, Any]]:
    """What the child times itself after grader call ``call_id`` (the child's
    ``reference`` module), one request per list of that call the grader times: where the
    list is, what is timed (``fn``), with which static values, and the declared phases."""
    return [{"samples": list(s.path), "fn": s.fn,
             "static": None if s.static is None else checks_intervals.plain_static(s.static),
             "phases": [p for p in PHASES if p in s.phases]}
            for s in lists if s.call == call_id and _grader_timed(s)]


def _first_and_warm(samples: Samples, main: Sequence[Samples]
                    ) -> tuple[Samples, Samples] | None:
    """(first-call list, warm list) when ``samples``' call returns both, else ``None``."""
    same = [s for s in main if s.call == samples.call]
    first = [s for s in same if "compilation" in s.phases]
    warm = [s for s in same if "compilation" not in s.phases]
    if len(first) == 1 and len(warm) == 1:
        return first[0], warm[0]
    return None


def _hands_unready_inputs(call: GraderCall | None) -> bool:
    """The call hands over host arrays, or device arrays still being computed."""
    if call is None:
        return False
    pending = list(call.args) + list(call.kwargs.values())
    while pending:
        spec = pending.pop()
        kind = spec.get("kind")
        if kind in _UNREADY_KINDS or (kind == "device" and not spec.get("ready", True)):
            return True
        pending.extend(spec.get("items", []))
    return False
