"""Resolve a course's declaration into the exercise the grader runs.

An ``exercise.py`` is data written by an author: check ids as strings or
:class:`~syncgrade.rubric.ids.Check` members, titles and check functions that a registered
id may leave out, and :class:`~syncgrade.rubric.contract.Samples` from which the interval
checks are derived. :func:`resolve` turns it into the exercise the grader runs (every
check's id a plain ``str``, its title and function filled in from the check registry, the
derived checks appended). The course loader calls it, through
:func:`syncgrade.rubric.validation.validate_declaration`; the declaration objects
themselves do nothing when built but record where they were written, so no module of the
rubric library imports back the modules that build on it.

An id that is not registered is refused here when it looks like a typo of a registered
one (the nearest registered id is suggested) or when it uses a registered check's own
function (``CheckSpec("numpy-macth", "Matches NumPy", c.numpy_match)``): a custom check
brings an id of its own and a function of its own (docs/authoring.md).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from collections.abc import Iterable

from syncgrade.rubric.base import CheckSpec, Exercise, Origin
from syncgrade.rubric.contract import TITLES, derived_checks
from syncgrade.rubric.ids import Check, plain
from syncgrade.rubric.registry import REGISTRY, family_of, lookup


class DeclarationProblem(ValueError):
    """One thing wrong in a declaration, with where it was written (``origin``)."""

    def __init__(self, message: str, origin: Origin | None) -> None:
        super().__init__(message)
        self.origin = origin


def resolve(exercise: Exercise) -> Exercise:
    """``exercise`` with every check resolved (:func:`resolve_check`) and the checks its
    ``samples`` derive appended (a check id already declared is not derived again), in
    the order every report shows them: the declared checks, the derived ones, then the
    declared checks that can fail only because of a derived one
    (:attr:`~syncgrade.rubric.registry.CheckDef.after_intervals`), so a lead is above its
    follower. Idempotent. Raises :class:`DeclarationProblem` for an unknown check id; see
    :func:`refuse_unknown_keys` for ``points``/``visibility``/``hints`` naming no check.
    Each check carries its author's hint (``hints``) as :attr:`CheckSpec.hint`."""
    checks = tuple(resolve_check(spec) for spec in exercise.checks)
    points = {str.__str__(k): v for k, v in exercise.points.items()}  # Check -> str
    shown = {str.__str__(k): v for k, v in exercise.visibility.items()}
    hints = {str.__str__(k): v for k, v in exercise.hints.items()}
    declared = {spec.id for spec in checks}
    derived = tuple(
        dataclasses.replace(spec, visibility=shown.get(spec.id, spec.visibility))
        for spec in derived_checks(exercise.samples, exercise.calls, points)
        if spec.id not in declared)
    hinted = tuple(dataclasses.replace(spec, hint=hints.get(spec.id, spec.hint),
                                       origin=spec.origin) for spec in _report_order(
                                           checks, derived))
    return dataclasses.replace(exercise, checks=hinted, points=points, visibility=shown,
                               hints=hints)


def _report_order(declared: tuple[CheckSpec, ...], derived: tuple[CheckSpec, ...]
                  ) -> tuple[CheckSpec, ...]:
    """``declared`` then ``derived``, each in its own order, except that a declared check
    that follows the contract's checks goes last, when the exercise has any of them
    (without them it keeps its place). Idempotent: resolved again, an exercise's checks
    are all declared, and those checks are already last."""
    checks = (*declared, *derived)
    if not any(spec.id in TITLES for spec in checks):
        return checks
    last = tuple(spec for spec in declared
                 if (found := lookup(spec.id)) is not None and found.after_intervals)
    moved = {spec.id for spec in last}
    return (*(spec for spec in checks if spec.id not in moved), *last)


def guess(word: object, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """``"; did you mean `x`?"`` for the choice nearest ``word`` (a typo's likely meaning),
    else ``""``. Every rubric error that names something unknown ends with it."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=1, cutoff=cutoff)
    return f"; did you mean `{close[0]}`?" if close else ""


def key_origin(origin: Origin | None, field: str, key: str) -> Origin | None:
    """The line of ``key`` in the mapping given as keyword ``field`` of the call written at
    ``origin`` (``Exercise(points={"sampel-count": 2})``: the line of that key), read from
    the author's file; the keyword's line when the mapping is not written there, the call's
    own when the file cannot be read. A key is matched as a string or as ``Check.NAME``."""
    if origin is None:
        return None
    try:
        with open(origin[0], encoding="utf-8") as file:
            tree = ast.parse(file.read())
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return origin
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == origin[1]]
    for keyword in (k for call in calls for k in call.keywords if k.arg == field):
        if isinstance(keyword.value, ast.Dict):
            for written in keyword.value.keys:
                if written is not None and _is_key(written, key):
                    return origin[0], written.lineno
        return origin[0], keyword.value.lineno
    return origin


def _is_key(node: ast.expr, key: str) -> bool:
    if isinstance(node, ast.Constant):
        return node.value == key
    member = Check.__members__.get(node.attr) if isinstance(node, ast.Attribute) else None
    return member is not None and member.value == key


def refuse_unknown_keys(resolved: Exercise) -> None:
    """Raise :class:`DeclarationProblem` when ``points``, ``visibility`` or ``hints`` of a
    resolved exercise name an id that is none of its checks (declared or derived; the
    nearest of its checks is suggested), or a hint is not a non-empty string; the problem
    names the line of the offending key (:func:`key_origin`). Run after each check is
    validated, so a check's own mistake is reported before this consequence."""
    ids = {spec.id for spec in resolved.checks}
    for mapping, name in ((resolved.points, "points"), (resolved.visibility, "visibility"),
                          (resolved.hints, "hints")):
        unknown = sorted(set(mapping) - ids)
        if unknown:
            raise DeclarationProblem(
                f"{name} names {unknown}, which {'is' if len(unknown) == 1 else 'are'} not "
                f"a check of this exercise{guess(unknown[0], ids)} (its checks: "
                f"{sorted(ids)})", key_origin(resolved.origin, name, unknown[0]))
    for check_id, hint in resolved.hints.items():
        if not isinstance(hint, str) or not hint.strip():
            raise DeclarationProblem(f"hints[{check_id!r}] must be a non-empty string (a "
                                     f"hint for the learner), not {hint!r}",
                                     key_origin(resolved.origin, "hints", check_id))


def resolve_check(spec: CheckSpec) -> CheckSpec:
    """``spec`` with its id a plain ``str``, and for a registered id the registry's title
    (when omitted or a legacy title) and check function (when omitted)."""
    check_id = plain(spec.id)
    if not isinstance(check_id, str):
        return spec  # validation reports it
    definition = lookup(check_id)
    if definition is None:
        _refuse_lookalike(spec, check_id)
        return dataclasses.replace(spec, id=check_id, origin=spec.origin)
    title = spec.title
    if not title or title in definition.legacy_titles:
        title = definition.title
    fn = definition.fn if spec.fn is None else spec.fn
    return dataclasses.replace(spec, id=check_id, title=title, fn=fn, origin=spec.origin)


def suggestion(check_id: str) -> str | None:
    """The registered id nearest ``check_id`` (a typo's likely meaning), or ``None``."""
    close = difflib.get_close_matches(check_id, list(REGISTRY), n=1, cutoff=0.75)
    return close[0] if close else None


def _refuse_lookalike(spec: CheckSpec, check_id: str) -> None:
    if family_of(check_id) is not None:
        return
    nearest = suggestion(check_id)
    if nearest is None:
        nearest = next((d.id for d in REGISTRY.values() if spec.fn is d.fn), None)
    if nearest is not None:
        raise DeclarationProblem(
            f"check {check_id!r}: unknown check id; did you mean `{nearest}`? (the "
            "registered ids are in docs/checks.md; write Check.* to have mypy check them)",
            spec.origin)
