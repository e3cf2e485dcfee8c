"""Combinators that build one check out of reusable ones, without copying them.

- :func:`all_of` runs several parameterised checks under one check id (for example
  ``numpy-match`` on two grader calls) and reports the first failure, labelled.
- :func:`on_intervals` runs a check on a chosen subset of a call's intervals (for example
  only the warm intervals of a report that also times first calls).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from syncgrade.analysis import Analysis, Interval
from syncgrade.models import Evidence
from syncgrade.rubric.base import CheckFn, Context, Outcome, Skip


class Part(NamedTuple):
    """One part of an :func:`all_of` check: the ``label`` its failure message starts with
    (``""``: none), the check function ``fn`` and its ``params``. A plain
    ``(label, fn, params)`` tuple is accepted too (it is read as a ``Part``)."""

    label: str
    fn: CheckFn
    params: Mapping[str, Any]

IntervalSelector = Callable[[Context, str], list[Interval]]


def all_of(ctx: Context, parts: Sequence[Part], ok: str = "") -> Outcome:
    """Pass when every part passes. The first failing part decides, its message prefixed
    with the part's label (e.g. ``"`energy(a, b)`: "``); otherwise a skipped part makes
    the whole check skipped (when no part passed) or is ignored (when another passed).
    A pass says ``ok`` when given, else the first part's message."""
    passed: list[Outcome] = []
    skipped: list[str] = []
    for number, (label, fn, params) in enumerate(map(Part._make, parts)):
        try:
            outcome = fn(ctx, **params)
        except Skip as skip:
            skipped.append(str(skip))
            continue
        if outcome.status == "failed":
            message = f"{label}: {lower_first(outcome.message)}" if label else outcome.message
            return Outcome.fail(message, outcome.hint,
                                _with_other_places(ctx, outcome.evidence, parts[number + 1:]))
        if outcome.status == "skipped":
            skipped.append(outcome.message)
            continue
        passed.append(outcome)
    if not passed:
        raise Skip(skipped[0] if skipped else "nothing to check")
    return Outcome.ok(ok or passed[0].message, passed[0].evidence)


def _places(evidence: Evidence) -> set[str]:
    """The lines a part's failure names (its ``places``, else its ``at_line``)."""
    facts = evidence.facts
    places = str(facts.get("places") or "")
    found = {p for p in places.split(",") if p}
    if not found and facts.get("at_line") is not None:
        found = {str(facts["at_line"])}
    return found


def _with_other_places(ctx: Context, evidence: Evidence, rest: Sequence[Part]) -> Evidence:
    """The first failing part's evidence, its ``places`` fact widened by the places of
    every later part that fails too: the check as a whole is fixed only when each of them
    is, so a report must not say that fixing the first part's flaw fixes it (see
    :mod:`syncgrade.grading.present`). Evidence without a place is returned as it is."""
    places = _places(evidence)
    if not places:
        return evidence
    for _, fn, params in rest:
        try:
            outcome = fn(ctx, **params)
        except Skip:
            continue
        if outcome.status == "failed":
            more = _places(outcome.evidence)
            places |= more or {"?"}  # a failure without a place: no lead can cover it
    joined = ",".join(sorted(places, key=lambda p: (not p.isdigit(), int(p or 0)
                                                    if p.isdigit() else 0)))
    return evidence.model_copy(update={"facts": {**evidence.facts, "places": joined}})


def lower_first(message: str) -> str:
    """``"The result ..."`` -> ``"the result ..."``, to follow a label or a colon."""
    word = message.split(" ", 1)[0]
    if word[:1].isupper() and word[1:].islower():
        return message[:1].lower() + message[1:]
    return message


def restricted(ctx: Context, call: str, intervals: Sequence[Interval]) -> Context:
    """A view of ``ctx`` in which ``call``'s analysis holds only ``intervals`` (all events
    are kept, so "what happened before the first interval" still sees everything)."""
    full = ctx.analysis(call)
    view = Analysis(events=full.events, intervals=tuple(intervals))
    return dataclasses.replace(ctx, _analyses={**ctx._analyses, call: view})


def on_intervals(ctx: Context, check: CheckFn, call: str, select: IntervalSelector,
                 label: str = "", **params: Any) -> Outcome:
    """Run ``check(ctx, call=call, **params)`` on the intervals ``select`` picks; a
    failure's message is prefixed with ``label`` (its interval numbers count only the
    chosen intervals, e.g. "warm samples: interval 1 ...")."""
    chosen = select(ctx, call)
    outcome = check(restricted(ctx, call, chosen), call=call, **params)
    if outcome.status != "failed" or not label:
        return outcome
    return Outcome.fail(f"{label}: {lower_first(outcome.message)}", outcome.hint,
                        outcome.evidence)
