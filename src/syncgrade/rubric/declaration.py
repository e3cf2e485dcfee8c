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

import dataclasses
import difflib

from syncgrade.rubric.base import CheckSpec, Exercise, Origin
from syncgrade.rubric.contract import derived_checks
from syncgrade.rubric.ids import plain
from syncgrade.rubric.registry import REGISTRY, family_of, lookup


class DeclarationProblem(ValueError):
    """One thing wrong in a declaration, with where it was written (``origin``)."""

    def __init__(self, message: str, origin: Origin | None) -> None:
        super().__init__(message)
        self.origin = origin


def resolve(exercise: Exercise) -> Exercise:
    """``exercise`` with every check resolved (:func:`resolve_check`) and the checks its
    ``samples`` derive appended (a check id already declared is not derived again).
    Idempotent. Raises :class:`DeclarationProblem` for an unknown check id; see
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
                                       origin=spec.origin) for spec in (*checks, *derived))
    return dataclasses.replace(exercise, checks=hinted, points=points, visibility=shown,
                               hints=hints)


def refuse_unknown_keys(resolved: Exercise) -> None:
    """Raise :class:`DeclarationProblem` when ``points``, ``visibility`` or ``hints`` of a
    resolved exercise name an id that is none of its checks (declared or derived; the
    nearest of its checks is suggested), or a hint is not a non-empty string. Run after
    each check is validated, so a check's own mistake is reported before this
    consequence."""
    ids = {spec.id for spec in resolved.checks}
    for mapping, name in ((resolved.points, "points"), (resolved.visibility, "visibility"),
                          (resolved.hints, "hints")):
        unknown = sorted(set(mapping) - ids)
        if unknown:
            nearest = difflib.get_close_matches(unknown[0], sorted(ids), n=1, cutoff=0.6)
            guess = f"; did you mean `{nearest[0]}`?" if nearest else ""
            raise DeclarationProblem(
                f"{name} names {unknown}, which {'is' if len(unknown) == 1 else 'are'} not "
                f"a check of this exercise{guess} (its checks: {sorted(ids)})",
                resolved.origin)
    for check_id, hint in resolved.hints.items():
        if not isinstance(hint, str) or not hint.strip():
            raise DeclarationProblem(f"hints[{check_id!r}] must be a non-empty string (a "
                                     f"hint for the learner), not {hint!r}", resolved.origin)


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
