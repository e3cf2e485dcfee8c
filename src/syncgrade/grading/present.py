"""How a report reads, decided once for every format: which failed check leads another
("fails only because of `X` above") and with which hint, and which check draws an
interval that several checks failed on.

The order of the checks is the exercise's declared order, always: it never depends on
which checks failed or led (issue 35: moving a follower under its lead made the order
differ from grade to grade of one exercise). The exercise's order puts the checks that can
lead before those that can follow them (:data:`syncgrade.rubric.contract.TITLES`,
:func:`syncgrade.rubric.declaration.resolve`); where a lead is still below its follower,
the follower's hint says so ("Because of `X` below").

:func:`present` runs in :func:`~syncgrade.grading.report.build_report`; the result is
data in the report (``CheckResult.follows``, ``hint`` and ``same_interval_as``), so the
text view, the HTML page, JSON and the platforms' results files show the same thing and
none of them decides it again.

A lead is given only when fixing it is known to fix the follower. The rule reads the
checks' evidence facts, which the interval checks write in the measurement contract's
words (:func:`syncgrade.rubric.intervals.flaw_facts`): ``flaw`` (what a check saw),
``follows`` (the flaws that would explain a failure: ``;`` between those it needs all of,
``|`` between alternatives), ``at_line`` and ``places`` (the learner's lines of the timer
start of every interval it saw its flaw in). A check follows another only when that
check saw the named flaw in every place the follower failed: a follower that also fails
somewhere else (the warm loop, when the lead saw only the first-call loop) keeps its own
hint. Points and verdicts are never touched.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from syncgrade.models import CheckResult

FLAW = "flaw"
FOLLOWS = "follows"
AT_LINE = "at_line"
PLACES = "places"


def present(checks: Sequence[CheckResult]) -> list[CheckResult]:
    """``checks`` (in the exercise's order) as every format shows them, in the same order:
    each follower's ``follows`` and ``hint`` set (the hint says whether each lead is above
    or below it), and ``same_interval_as`` set on each failed check whose interval a
    failed check above it already draws (a drawing is only ever referred to from below)."""
    because = leads(checks)
    position = {check.id: index for index, check in enumerate(checks)}
    drawn: dict[str, str] = {}
    drawn_events: dict[str, str] = {}
    out: list[CheckResult] = []
    for check in checks:
        update: dict[str, object] = {}
        if check.id in because:
            update["follows"] = because[check.id]
            update["hint"] = because_hint(because[check.id], below={
                lead for lead in because[check.id] if position[lead] > position[check.id]})
        key, events = _interval_key(check), _interval_key(check, marks=False)
        # A follower's flaw is its lead's: the lead's drawing of the same events above,
        # with the lead's mark, shows it. Any other check (a follower whose lead is below
        # included) shows its own mark (a drawing of its own unless one with the same mark
        # is above).
        lead = drawn_events.get(events or "")
        if lead not in because.get(check.id, ()):
            lead = None
        if key is not None and (lead is not None or key in drawn):
            update["same_interval_as"] = lead if lead is not None else drawn[key]
        elif key is not None and events is not None:
            drawn[key] = check.id
            drawn_events.setdefault(events, check.id)
        out.append(check.model_copy(update=update) if update else check)
    return out


def _interval_key(check: CheckResult, *, marks: bool = True) -> str | None:
    """What identifies a failed check's drawn interval (its timeline and its picture);
    ``marks=False``: its events only, without the notes and marks a check puts on them
    (:func:`syncgrade.rubric.timeline.marked`)."""
    evidence = check.evidence
    if check.status != "failed" or (evidence.timeline is None and evidence.interval is None):
        return None
    timeline = evidence.timeline.model_dump() if evidence.timeline else {}
    picture = evidence.interval.model_dump() if evidence.interval else {}
    if not marks:
        for entry in [*timeline.get("entries", ()), *picture.get("host", ())]:
            entry["note"] = ""
        picture.pop("flaws", None)
    return json.dumps([timeline, picture], sort_keys=True)


def because_hint(lead_ids: Sequence[str], below: Collection[str] = ()) -> str:
    """The hint of a check that fails only because of ``lead_ids``: shown above it, except
    those in ``below``. Where they are is said once when all are on one side, else for
    each ("Because of `a` (above) and `b` (below): ...")."""
    def where(lead: str) -> str:
        return "below" if lead in below else "above"

    sides = {where(lead) for lead in lead_ids}
    each = len(sides) > 1
    named = [f"`{lead}`" + (f" ({where(lead)})" if each else "") for lead in lead_ids]
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + f" and {named[-1]}"
    that = "that" if len(named) == 1 else "those"
    side = "" if each else f" {sides.pop()}"
    return f"Because of {listed}{side}: fixing {that} fixes this too."


def _flaws(text: object) -> list[str]:
    return [f.strip() for f in str(text).split("|") if f.strip()] if text else []


def places(check: CheckResult) -> frozenset[str]:
    """The learner's lines (as text) of every interval ``check`` saw its flaw in: its
    ``places`` fact, else its ``at_line``; empty for a check without a place (a value
    check such as ``shape``)."""
    facts = check.evidence.facts
    found = {p for p in str(facts.get(PLACES) or "").split(",") if p}
    if not found and facts.get(AT_LINE) is not None:
        found = {str(facts[AT_LINE])}
    return frozenset(found)


def _covers(lead: CheckResult, follower: CheckResult) -> bool:
    """The lead saw its flaw in every place the follower failed: both without a place
    (two checks of one result), or the follower's places among the lead's."""
    mine, theirs = places(follower), places(lead)
    if not mine or not theirs:
        return not mine and not theirs
    return mine <= theirs


def _direct_leads(check: CheckResult, failed: Sequence[CheckResult]) -> list[str]:
    """The failed checks ``check`` fails only because of, before resolving chains: for
    each group of its ``follows`` fact, the first failed check that saw one of the group's
    flaws in every place ``check`` failed; with no ``follows``, the first earlier failed
    check that saw its very flaw there (one mistake seen twice). Empty when a group finds
    none."""
    others = [c for c in failed if c.id != check.id]
    follows = str(check.evidence.facts.get(FOLLOWS) or "")
    if follows:
        found: list[str] = []
        for group in follows.split(";"):
            wanted = _flaws(group)
            lead = next((c for c in others if c.evidence.facts.get(FLAW) in wanted
                         and _covers(c, check)), None)
            if not wanted or lead is None:
                return []
            found.append(lead.id)
        return list(dict.fromkeys(found))
    flaw = check.evidence.facts.get(FLAW)
    earlier = failed[:failed.index(check)]
    lead = next((c for c in earlier if flaw and c.evidence.facts.get(FLAW) == flaw
                 and _covers(c, check)), None)
    return [lead.id] if lead is not None else []


def leads(checks: Sequence[CheckResult]) -> dict[str, list[str]]:
    """For each failed check that fails only because of other failed checks, their ids
    (the roots: a lead never follows another), in the exercise's order. A relation that
    would make a cycle is dropped."""
    failed = [c for c in checks if c.status == "failed"]
    direct = {c.id: d for c in failed if (d := _direct_leads(c, failed))}

    def roots(check_id: str, seen: frozenset[str]) -> list[str] | None:
        if check_id not in direct:
            return [check_id]
        if check_id in seen:
            return None  # a cycle
        found: list[str] = []
        for lead in direct[check_id]:
            up = roots(lead, seen | {check_id})
            if up is None:
                return None
            found.extend(up)
        return list(dict.fromkeys(found))

    resolved = {check_id: roots(check_id, frozenset()) for check_id in direct}
    return {check_id: found for check_id, found in resolved.items() if found}
