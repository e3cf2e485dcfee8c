"""Validate a rubric when it loads: an author's mistake is a :class:`RubricError` that names
the exercise, the check and the parameter, never a learner's "not your fault".

Two parts (docs/authoring.md, "What is checked when a rubric loads"):

- :func:`validate_declaration`, run by discovery (``syncgrade.rubric``) on import: the
  shape of the declaration. Ids, titles, version; required names; grader calls (unique
  ids, functions that are required, argument specs the child can build, workloads that
  exist, declared workload source that defines the function); checks (unique ids, points
  > 0, a known visibility, a registered id's title the registry's
  (:mod:`syncgrade.rubric.registry`) and any other id's own, and every check's params
  bound against its function's signature and type-checked against its annotations,
  recursively through ``all_of`` parts and ``on_intervals``; ``call``/``calls`` params
  naming grader calls). No rubric code runs.
- :func:`validate_data`, run once per process by ``get_exercise`` (it calls
  ``make_inputs`` and ``make_references``, ~0.02-0.1 s per exercise): every ``host`` /
  ``device`` spec names a hidden input, and every ``reference`` param names a key of
  ``make_references``' result.

:func:`validate` runs both (``grade validate`` and the tests use it).
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import os
import re
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from syncgrade.errors import RubricError as RubricError  # re-exported
from syncgrade.rubric import compose, registry
from syncgrade.rubric.base import CheckSpec, Exercise, GraderCall, Origin, at_text
from syncgrade.rubric.declaration import (
    DeclarationProblem,
    guess,
    key_origin,
    refuse_unknown_keys,
    resolve,
)
from syncgrade.rubric.specs import BUILTIN_WORKLOADS, DEVICE_FAULTS

ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*$")
"""An exercise id: a slug of lowercase letters and digits joined by '-' (its folder's name)."""
CHECK_ID = re.compile(r"[A-Za-z0-9]+(-[A-Za-z0-9]+)*$")
VISIBILITIES = frozenset({"visible", "hidden", "after_due_date"})
SPEC_KINDS = frozenset({
    "value", "host", "device", "tuple", "jax_device", "rng", "workload", "factory", "probe",
    "probe_args", "probe_host_args", "probe_like", "probe_factory",
})
"""The argument spec kinds the child builds (``syncgrade.child.harness.KINDS``)."""
REQUIRED_KINDS = frozenset({"function", "constant"})




Expand = Callable[[Mapping[str, Any]], list[tuple[str, Any, Mapping[str, Any]]]]
"""A combinator's sub-checks: ``params -> [(label, check fn, params), ...]``."""


def _expand_all_of(params: Mapping[str, Any]) -> list[tuple[str, Any, Mapping[str, Any]]]:
    parts = params.get("parts")
    if not isinstance(parts, Sequence) or isinstance(parts, str) or not parts:
        raise _Problem("param 'parts' must be a non-empty sequence of "
                       "(label, check, params) triples")
    found = []
    for index, part in enumerate(parts):
        if (not isinstance(part, tuple) or len(part) != 3 or not isinstance(part[0], str)
                or not isinstance(part[2], Mapping)):
            raise _Problem(f"part {index + 1} of 'parts' is not a (label, check, params) "
                           "triple")
        found.append((f"part {index + 1}", compose.Part._make(part).fn,
                      compose.Part._make(part).params))
    return found


def _expand_on_intervals(params: Mapping[str, Any]) -> list[tuple[str, Any,
                                                                  Mapping[str, Any]]]:
    if not callable(params.get("select")):
        raise _Problem("param 'select' must be an interval selector "
                       "(e.g. checks.warm_intervals(...))")
    inner = {k: v for k, v in params.items() if k not in ("check", "select", "label")}
    return [("the check it restricts", params.get("check"), inner)]


COMBINATORS: dict[Any, Expand] = {
    compose.all_of: _expand_all_of,
    compose.on_intervals: _expand_on_intervals,
}
"""Checks that run other checks; their sub-checks are validated too. A new combinator
registers here with :func:`register_combinator`."""


def register_combinator(fn: Any, expand: Expand) -> None:
    """Declare that check ``fn`` runs the sub-checks ``expand(params)`` gives, so the
    validation of a rubric looks inside it."""
    COMBINATORS[fn] = expand


class _Problem(Exception):
    """One thing wrong, before the exercise and the place are prefixed; ``origin``: the
    author's file and line it is about, when known."""

    def __init__(self, message: str, origin: Origin | None = None) -> None:
        super().__init__(message)
        self.origin = origin


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


# --------------------------------------------------------------------------- declaration


def validate_declaration(exercise: Any, expected_id: str | None = None) -> Exercise:
    """Check the declaration without running any of its code and resolve it
    (:func:`syncgrade.rubric.declaration.resolve`); return the resolved exercise or raise
    :class:`RubricError`, whose message names the author's file and line when the fault
    is in a declared object. ``expected_id``: the name of the exercise's folder."""
    label = expected_id or getattr(exercise, "id", "an exercise")
    try:
        return _declaration(exercise, expected_id)
    except (_Problem, DeclarationProblem) as problem:
        raise RubricError(f"rubric error in {label}: {at_text(problem.origin)}{problem}"
                          ) from None


def _declaration(exercise: Any, expected_id: str | None) -> Exercise:
    if not isinstance(exercise, Exercise):
        raise _Problem("the module must define EXERCISE = Exercise(...) "
                       f"(found {type(exercise).__name__})")
    if not isinstance(exercise.id, str) or not ID.match(exercise.id):
        raise _Problem(f"id {exercise.id!r} is not a slug (lowercase letters, digits and "
                       "'-', such as 'exercise-1')", exercise.origin)
    if expected_id is not None and exercise.id != expected_id:
        raise _Problem(f"id {exercise.id!r} does not match its folder (expected "
                       f"{expected_id!r}, the folder's name)", exercise.origin)
    for field in ("title", "version"):
        if not isinstance(getattr(exercise, field), str) or not getattr(exercise, field):
            raise _Problem(f"{field} must be a non-empty string")
    if not callable(exercise.make_inputs) or not callable(exercise.make_references):
        raise _Problem("make_inputs and make_references must be functions")
    required = _required(exercise)
    call_ids = _calls(exercise, required)
    _samples_calls(exercise, call_ids)
    _mapping_values(exercise)
    resolved = resolve(exercise)
    _checks(resolved, call_ids)
    refuse_unknown_keys(resolved)
    _samples_against_workloads(resolved)
    return resolved


def _samples_calls(exercise: Exercise, call_ids: set[str]) -> None:
    """Each ``Samples`` names a grader call: reported on its own line, before the checks
    derived from it (which the author never wrote) could be blamed."""
    for samples in exercise.samples:
        call = getattr(samples, "call", None)
        if call not in call_ids:
            raise _Problem(f"Samples({call!r}, {getattr(samples, 'path', None)!r}): {call!r} "
                           f"is not a grader call{guess(call, call_ids)} (calls: "
                           f"{', '.join(sorted(call_ids))})", getattr(samples, "origin", None))


def _mapping_values(exercise: Exercise) -> None:
    """``points`` and ``visibility`` give each check a number > 0 and a known visibility:
    a wrong value is reported on the line of its key, before the derived checks it would
    reach (whose line is their ``Samples``')."""
    for key, value in exercise.points.items():
        if not _positive(value):
            raise _Problem(f"points[{str.__str__(key)!r}] must be a number > 0, not "
                           f"{value!r}", key_origin(exercise.origin, "points", key))
    for key, shown in exercise.visibility.items():
        if shown not in VISIBILITIES:
            raise _Problem(f"visibility[{str.__str__(key)!r}]: {shown!r} is not one of "
                           f"{sorted(VISIBILITIES)}{guess(shown, VISIBILITIES)}",
                           key_origin(exercise.origin, "visibility", key))


def _positive(points: Any) -> bool:
    return (isinstance(points, (int, float)) and not isinstance(points, bool)
            and math.isfinite(points) and points > 0)


def _required(exercise: Exercise) -> dict[str, str]:
    names: dict[str, str] = {}
    for item in exercise.required:
        origin = getattr(item, "origin", None)
        if not item.name.isidentifier():
            raise _Problem(f"required name {item.name!r} is not a Python identifier", origin)
        if item.name in names:
            raise _Problem(f"required name {item.name!r} is listed twice", origin)
        if item.kind not in REQUIRED_KINDS:
            raise _Problem(f"required {item.name!r}: kind {item.kind!r} is not one of "
                           f"{sorted(REQUIRED_KINDS)}{guess(item.kind, REQUIRED_KINDS)}",
                           origin)
        if item.positional < 0:
            raise _Problem(f"required {item.name!r}: positional must be >= 0", origin)
        names[item.name] = item.kind
    if not names:
        raise _Problem("required is empty: name at least one function the learner writes")
    return names


def _calls(exercise: Exercise, required: Mapping[str, str]) -> set[str]:
    ids: set[str] = set()
    if not exercise.calls:
        raise _Problem("calls is empty: the grader must call the learner's code")
    for call in exercise.calls:
        try:
            _call(call, ids, required)
        except _Problem as problem:
            raise _Problem(str(problem), problem.origin or getattr(call, "origin", None)
                           ) from None
        ids.add(call.id)
    return ids


def _call(call: GraderCall, ids: set[str], required: Mapping[str, str]) -> None:
    """One grader call: a new id, a required name, argument specs the child can build."""
    where = f"call {call.id!r}"
    if not call.id or call.id in ids:
        raise _Problem(f"{where}: call ids must be non-empty and unique")
    if call.attribute:
        if call.attribute not in required:
            raise _Problem(f"{where}: attribute {call.attribute!r} is not in required"
                           f"{guess(call.attribute, required)}")
        return
    if required.get(call.function) != "function":
        functions = [name for name, kind in required.items() if kind == "function"]
        raise _Problem(f"{where}: function {call.function!r} is not a required "
                       f"function{guess(call.function, functions)} (add Required(...) "
                       "for it)")
    specs = [(f"argument {i + 1}", s) for i, s in enumerate(call.args)]
    specs += [(f"keyword argument {k!r}", s) for k, s in call.kwargs.items()]
    for what, spec in specs:
        _spec(f"{where}, {what}", spec)


def _spec(where: str, spec: Any) -> None:
    if not isinstance(spec, dict) or spec.get("kind") not in SPEC_KINDS:
        kind = spec.get("kind") if isinstance(spec, dict) else None
        raise _Problem(f"{where}: {spec!r} is not an argument spec{guess(kind, SPEC_KINDS)} "
                       "(use syncgrade.rubric.specs)")
    kind = spec["kind"]
    if kind == "value":
        try:
            json.dumps(spec.get("value"), allow_nan=False)
        except (TypeError, ValueError):
            raise _Problem(f"{where}: value {spec.get('value')!r} is not JSON") from None
    elif kind in ("host", "device"):
        if not isinstance(spec.get("name"), str):
            raise _Problem(f"{where}: a {kind} spec needs the name of a hidden input")
    elif kind == "tuple":
        for index, item in enumerate(spec.get("items", [])):
            _spec(f"{where}, item {index + 1}", item)
    elif kind in ("workload", "factory"):
        _workload(where, spec)
        for index, item in enumerate(spec.get("warm") or []):
            _spec(f"{where}, warm-up argument {index + 1}", item)
        for index, item in enumerate(spec.get("bind") or []):
            _spec(f"{where}, bound argument {index + 1}", item)
    elif kind == "jax_device":
        fault = spec.get("fault")
        if fault is not None and fault not in DEVICE_FAULTS:
            raise _Problem(f"{where}: unknown device fault {fault!r}"
                           f"{guess(fault, DEVICE_FAULTS)} (known: "
                           f"{', '.join(sorted(DEVICE_FAULTS))})")
    elif kind.startswith("probe"):
        seconds = spec.get("seconds")
        if not isinstance(seconds, (int, float)) or not 0 < seconds <= 10:
            raise _Problem(f"{where}: probe seconds must be a number in (0, 10]")
        if kind == "probe_like":
            options = [k for k in ("static_argnums", "static_argnames", "donate_argnums",
                                   "donate_argnames", "keep_unused", "inline") if k in spec]
            if options:
                raise _Problem(f"{where}: a probe_like workload takes no jit options "
                               f"({', '.join(options)})")
            _workload(where, spec)
            for index, item in enumerate(spec.get("warm") or []):
                _spec(f"{where}, warm-up argument {index + 1}", item)


def _workload(where: str, spec: dict[str, Any]) -> None:
    name = spec.get("name")
    source = spec.get("source")
    _jit_option_types(where, spec)
    if source is None:
        if name not in BUILTIN_WORKLOADS:
            raise _Problem(f"{where}: unknown workload {name!r}"
                           f"{guess(name, BUILTIN_WORKLOADS)} (built-in: "
                           f"{', '.join(sorted(BUILTIN_WORKLOADS))}; or declare it with "
                           "source=...)")
        _jit_option_targets(where, spec, str(name), BUILTIN_PARAMETERS[str(name)], False)
        return
    if not isinstance(source, str) or not isinstance(name, str):
        raise _Problem(f"{where}: a declared workload needs a name and source text")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise _Problem(f"{where}: the source of workload {name!r} does not parse: "
                       f"{exc.msg} (line {exc.lineno})") from None
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    target = next((n for n in defined if n.name == name), None)
    if target is None:
        raise _Problem(f"{where}: the source of workload {name!r} defines no top-level "
                       f"`def {name}(...)`{guess(name, [n.name for n in defined])}")
    params = tuple(a.arg for a in (*target.args.posonlyargs, *target.args.args))
    if target.args.vararg is None:
        _jit_option_targets(where, spec, name, params, target.args.kwarg is not None,
                            tuple(a.arg for a in target.args.kwonlyargs))


BUILTIN_PARAMETERS: dict[str, tuple[str, ...]] = {
    "predict": ("x", "w"), "predict_exact": ("x", "w"),
    "predict_off_by_a_little": ("x", "w"), "energy": ("a", "b"), "spin": ("x", "n"),
}
"""The built-in workloads' parameters by name (``syncgrade.child.workloads``: the parent
never imports jax, and a test keeps the two equal)."""


def _jit_option_types(where: str, spec: dict[str, Any]) -> None:
    """The ``jax.jit`` options of a workload spec (``specs.JIT_OPTIONS``) have the types
    jax takes, and no argument is both static and donated."""
    for key in ("static_argnums", "donate_argnums"):
        value = spec.get(key, [])
        if not isinstance(value, list) or not all(type(i) is int and i >= 0 for i in value):
            raise _Problem(f"{where}: {key} must be non-negative ints (argument "
                           f"positions), not {value!r}")
    for key in ("static_argnames", "donate_argnames"):
        value = spec.get(key, [])
        if not isinstance(value, list) or not all(
                isinstance(n, str) and n.isidentifier() for n in value):
            raise _Problem(f"{where}: {key} must be parameter names, not {value!r}")
    for key in ("keep_unused", "inline"):
        if type(spec.get(key, False)) is not bool:
            raise _Problem(f"{where}: {key} must be True or False, not {spec.get(key)!r}")
    for kind in ("argnums", "argnames"):
        both = sorted(set(spec.get(f"static_{kind}", [])) & set(spec.get(f"donate_{kind}", [])))
        if both:
            raise _Problem(f"{where}: {both} is both static and donated: a static argument "
                           "is part of the program, not an input buffer to donate")


def _jit_option_targets(where: str, spec: dict[str, Any], name: str,
                        params: tuple[str, ...], any_keyword: bool,
                        keyword_only: tuple[str, ...] = ()) -> None:
    """Every position and name a workload's jit options give is a parameter of ``name``
    (``params``: its positional parameters, in order)."""
    for key in ("static_argnums", "donate_argnums"):
        out = [i for i in spec.get(key, []) if i >= len(params)]
        if out:
            raise _Problem(f"{where}: {key} {spec[key]} is out of range for `{name}` "
                           f"({len(params)} positional parameters: {', '.join(params)})")
    known = (*params, *keyword_only)
    for key in ("static_argnames", "donate_argnames"):
        unknown = [n for n in spec.get(key, []) if n not in known]
        if unknown and not any_keyword:
            raise _Problem(f"{where}: {key} names {unknown}, which `{name}` has no "
                           f"parameter for{guess(unknown[0], known)} (its parameters: "
                           f"{', '.join(known)})")
    # jax resolves positions and names into each other through the signature: the same
    # parameter static by position and donated by name is refused too.
    for static_key, donate_key in (("static_argnums", "donate_argnames"),
                                   ("donate_argnums", "static_argnames")):
        named = {params[i] for i in spec.get(static_key, []) if i < len(params)}
        both = sorted(named & set(spec.get(donate_key, [])))
        if both:
            raise _Problem(f"{where}: parameter {both} of `{name}` is both static and "
                           "donated")


_JIT_KINDS = ("workload", "factory", "probe_like")


def _jit_specs(call: GraderCall) -> list[dict[str, Any]]:
    """The workload specs a grader call hands over (the callables the learner times)."""
    pending: list[Any] = [*call.args, *call.kwargs.values()]
    found = []
    while pending:
        spec = pending.pop(0)
        if isinstance(spec, dict):
            if spec.get("kind") in _JIT_KINDS:
                found.append(spec)
            pending.extend(spec.get("items", []))
    return found


def _samples_against_workloads(exercise: Exercise) -> None:
    """Each list of samples that times the callable the grader hands over (``fn=None``)
    agrees with that workload's ``jax.jit`` options: ``static=`` values exactly when the
    workload has static arguments, as many values as static arguments, and ``donates=True``
    exactly when it donates. A disagreement is the author's (reported on the ``Samples``
    line when the rubric loads), never a learner's or the solution's failed check."""
    by_id = {call.id: call for call in exercise.calls}
    for samples in exercise.samples:
        if samples.probe or samples.fn is not None:
            continue
        named = f"Samples({samples.call!r}, {samples.path!r})"
        for spec in _jit_specs(by_id[samples.call]):  # a grader call: _samples_calls
            _agrees(named, samples, spec)


def _agrees(named: str, samples: Any, spec: dict[str, Any]) -> None:
    where = f"{named} and the workload `{spec.get('name')}` of call {samples.call!r}"
    static = len(spec.get("static_argnums", [])) + len(spec.get("static_argnames", []))
    donated = bool(spec.get("donate_argnums") or spec.get("donate_argnames"))
    if samples.static is not None and not static:
        raise _Problem(f"{where}: the samples time static values (static=...) but the "
                       "workload has no static argument; did you mean to give it "
                       "static_argnums=... (or static_argnames=...)?", samples.origin)
    if samples.static is None and static:
        raise _Problem(f"{where}: the workload has {static} static argument(s) but the "
                       "samples give no static values; did you mean static=(...) with the "
                       "value each timed call must use?", samples.origin)
    if samples.static is not None and len(samples.static) != static:
        raise _Problem(f"{where}: static= gives {len(samples.static)} value(s) for the "
                       f"workload's {static} static argument(s)", samples.origin)
    if samples.donates and not donated:
        raise _Problem(f"{where}: donates=True but the workload donates no input; did you "
                       "mean to give it donate_argnums=... (or donate_argnames=...)?",
                       samples.origin)
    if donated and not samples.donates:
        raise _Problem(f"{where}: the workload donates its input but the samples do not "
                       "say so; did you mean donates=True (so donates-input judges it)?",
                       samples.origin)


def _checks(exercise: Exercise, call_ids: set[str]) -> None:
    if not exercise.checks:
        raise _Problem("checks is empty")
    seen: set[str] = set()
    for spec in exercise.checks:
        try:
            _check(spec, seen, call_ids)
        except _Problem as problem:
            raise _Problem(str(problem), problem.origin or spec.origin) from None


def _check(spec: CheckSpec, seen: set[str], call_ids: set[str]) -> None:
    where = f"check {spec.id!r}"
    if not isinstance(spec.id, str) or not CHECK_ID.match(spec.id):
        raise _Problem(f"{where}: a check id is words of letters and digits joined by '-'")
    if spec.id in seen:
        raise _Problem(f"{where}: the id is used twice")
    seen.add(spec.id)
    _title_and_fn(where, spec)
    if not _positive(spec.points):
        raise _Problem(f"{where}: points must be a number > 0, not {spec.points!r}")
    if spec.visibility not in VISIBILITIES:
        raise _Problem(f"{where}: visibility {spec.visibility!r} is not one of "
                       f"{sorted(VISIBILITIES)}{guess(spec.visibility, VISIBILITIES)}")
    if not isinstance(spec.params, Mapping):
        raise _Problem(f"{where}: params must be a dict")
    _params(f"{where} ({_name(spec.fn)})", spec.fn, spec.params, call_ids)


def _title_and_fn(where: str, spec: CheckSpec) -> None:
    """A registered id uses the registry's title; any other id brings its own title and
    check function (``answer-<key>`` ids, or a check an author adds)."""
    definition = registry.lookup(spec.id)
    if definition is not None:
        if spec.title != definition.title:
            raise _Problem(f"{where}: title {spec.title!r} is not the registered title "
                           f"{definition.title!r} of {spec.id!r} (omit the title to use it)")
        return
    kind = ("an answer-<key> id" if registry.family_of(spec.id) is not None
            else "not a registered check id (docs/checks.md)")
    if not isinstance(spec.title, str) or not spec.title:
        raise _Problem(f"{where}: {spec.id!r} is {kind}: give it a title")
    if spec.fn is None:
        raise _Problem(f"{where}: {spec.id!r} is {kind}: give it a check function")


def _params(where: str, fn: Any, params: Mapping[str, Any], call_ids: set[str]) -> None:
    """Bind ``params`` to ``fn(ctx, **params)``; check call ids; recurse into
    combinators."""
    if not callable(fn):
        raise _Problem(f"{where}: {fn!r} is not a check function")
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        raise _Problem(f"{where}: the check's signature cannot be read") from None
    parameters = list(signature.parameters.values())
    if not parameters or parameters[0].kind not in (parameters[0].POSITIONAL_ONLY,
                                                     parameters[0].POSITIONAL_OR_KEYWORD):
        raise _Problem(f"{where}: a check takes the context first: fn(ctx, **params)")
    named = {p.name: p for p in parameters[1:]
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    open_ended = any(p.kind == p.VAR_KEYWORD for p in parameters)
    takes = ", ".join(named) or "no params"
    for key in params:
        if key not in named and not open_ended:
            raise _Problem(f"{where}: unknown param {key!r}{guess(key, named)} (it takes: "
                           f"{takes})")
    for key, parameter in named.items():
        if parameter.default is parameter.empty and key not in params:
            raise _Problem(f"{where}: missing param {key!r} (it takes: {takes})")
    wrong = registry.type_problems(fn, params)
    if wrong:
        raise _Problem(f"{where}: param {wrong[0][0]!r} {wrong[0][1]}")
    if "call" in params and params["call"] not in call_ids:
        raise _Problem(f"{where}: param call={params['call']!r} is not a grader call"
                       f"{guess(params['call'], call_ids)} (calls: "
                       f"{', '.join(sorted(call_ids))})")
    if "calls" in params:
        calls = params["calls"]
        if isinstance(calls, str) or not isinstance(calls, Sequence):
            raise _Problem(f"{where}: param calls must be a tuple of call ids")
        for call in calls:
            if call not in call_ids:
                raise _Problem(f"{where}: param calls names {call!r}, which is not a grader "
                               f"call{guess(call, call_ids)} (calls: "
                               f"{', '.join(sorted(call_ids))})")
    if "reference" in params and not isinstance(params["reference"], str):
        raise _Problem(f"{where}: param reference must be the name of a reference")
    expand = COMBINATORS.get(fn)
    if expand is not None:
        try:
            parts = expand(params)
        except _Problem as problem:
            raise _Problem(f"{where}: {problem}") from None
        for label, part_fn, part_params in parts:
            _params(f"{where}, {label} ({_name(part_fn)})", part_fn, part_params, call_ids)


# --------------------------------------------------------------------------- data


def references_named(exercise: Exercise) -> Iterator[tuple[str, str, Origin | None]]:
    """``(where, key, origin)`` for every ``reference`` param, combinators included;
    ``origin``: the line of the check that gives it."""
    def walk(where: str, fn: Any, params: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
        if isinstance(params.get("reference"), str):
            yield where, params["reference"]
        expand = COMBINATORS.get(fn)
        if expand is not None:
            for label, part_fn, part_params in expand(params):
                yield from walk(f"{where}, {label} ({_name(part_fn)})", part_fn, part_params)

    for spec in exercise.checks:
        for where, key in walk(f"check {spec.id!r} ({_name(spec.fn)})", spec.fn,
                               spec.params):
            yield where, key, spec.origin


def _input_names(spec: Any) -> Iterator[str]:
    if not isinstance(spec, dict):
        return
    if spec.get("kind") in ("host", "device"):
        yield spec["name"]
    for item in [*spec.get("items", []), *(spec.get("warm") or []),
                 *(spec.get("bind") or [])]:
        yield from _input_names(item)


def validate_data(exercise: Exercise) -> None:
    """Run ``make_inputs`` and ``make_references`` once and check that the names the
    declaration uses exist in them; raise :class:`RubricError`."""
    def fail(message: str, origin: Origin | None = None) -> RubricError:
        return RubricError(f"rubric error in {exercise.id}: {at_text(origin)}{message}")

    try:
        inputs = exercise.make_inputs()
    except Exception as exc:
        raise fail(author_traceback("make_inputs()", exc)) from None
    if not isinstance(inputs, dict) or not all(isinstance(k, str) for k in inputs):
        raise fail("make_inputs() must return a dict of named NumPy arrays")
    for call in exercise.calls:
        for spec in [*call.args, *call.kwargs.values()]:
            for name in _input_names(spec):
                if name not in inputs:
                    raise fail(f"call {call.id!r}: no hidden input named {name!r}"
                               f"{guess(name, inputs)} (make_inputs() gives: "
                               f"{', '.join(sorted(inputs)) or 'none'})",
                               getattr(call, "origin", None))
    try:
        references = exercise.make_references(inputs)
    except Exception as exc:
        raise fail(author_traceback("make_references()", exc)) from None
    if not isinstance(references, dict):
        raise fail("make_references() must return a dict")
    for where, key, origin in references_named(exercise):
        if key not in references:
            raise fail(f"{where}: param reference={key!r} is not a key of "
                       f"make_references(){guess(key, map(str, references))} (it gives: "
                       f"{', '.join(sorted(map(str, references))) or 'none'})", origin)


def author_traceback(what: str, exc: BaseException) -> str:
    """``what`` raised ``exc``: ``"path:line: make_references() raised ZeroDivisionError:
    ..."`` (the innermost frame of the author's own files, outside syncgrade), followed by
    the traceback of the author's frames, for the author and staff (never a learner)."""
    syncgrade_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frames = traceback.extract_tb(exc.__traceback__)[1:]  # without this module's frame
    own = [f for f in frames if not f.filename.startswith(syncgrade_dir)
           or f"{os.sep}course{os.sep}" in f.filename]
    where = f"{own[-1].filename}:{own[-1].lineno}: " if own else ""
    shown = "".join(traceback.format_list(own or frames)).rstrip()
    return (f"{where}{what} raised {type(exc).__name__}: {exc}\n"
            f"  Traceback (the author's frames, most recent call last):\n{shown}")


def validate(exercise: Any, expected_id: str | None = None) -> Exercise:
    """:func:`validate_declaration`, then :func:`validate_data`; the resolved exercise."""
    resolved = validate_declaration(exercise, expected_id)
    validate_data(resolved)
    return resolved
