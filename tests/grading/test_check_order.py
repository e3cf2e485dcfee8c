"""One check order in every report (issue 35: the order of checks changed between two
grades of exercise-3, because a follower was moved up under its lead and which checks
lead depends on what each grade measured).

The order is the exercise's, whatever failed: :func:`syncgrade.grading.present.present`
keeps it for any outcome (random verdicts and lead facts over every exercise's own
checks), its hints say whether each lead is above or below, and the exercise's order
puts every lead the corpus shows above its follower (the golden reports, real grades).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from syncgrade.courses import builtin_course
from syncgrade.grading.present import present
from syncgrade.models import CheckResult, Evidence, Timeline, TimelineEntry
from syncgrade.rubric.contract import TITLES
from syncgrade.rubric.declaration import resolve
from syncgrade.rubric.intervals import FLAWS
from syncgrade.rubric.registry import lookup

COURSE = builtin_course()
EXERCISES = sorted(COURSE.exercises, key=lambda e: int(e.split("-")[1]))
SEEDS = range(40)


def _timeline(stop_line: int) -> Timeline:
    return Timeline(file="submission.py", entries=[
        TimelineEntry(what="timer start", line=1),
        TimelineEntry(what="timer stop", line=stop_line, note="something was wrong here"),
    ])


def _facts(rng: random.Random) -> dict[str, Any]:
    """Lead facts as the interval checks write them, drawn at random: a flaw (or none), a
    line, and flaws the failure follows (``;`` all needed, ``|`` alternatives)."""
    flaws = sorted(FLAWS)
    facts: dict[str, Any] = {"flaw": rng.choice([None, *flaws]), "at_line": rng.choice([1, 2])}
    if rng.random() < 0.5:
        groups = ["|".join(rng.sample(flaws, rng.randint(1, 3)))
                  for _ in range(rng.randint(1, 2))]
        facts["follows"] = "; ".join(groups)
    return facts


def _outcome(check_id: str, rng: random.Random) -> CheckResult:
    if rng.random() < 0.4:
        return CheckResult(id=check_id, title=check_id, status="passed", points=1,
                           max_points=1, message="Fine.")
    timeline = rng.choice([None, _timeline(2), _timeline(3)])
    return CheckResult(id=check_id, title=check_id, status="failed", points=0, max_points=1,
                       message="Wrong.", hint="Change it.",
                       evidence=Evidence(timeline=timeline, facts=_facts(rng)))


def _assert_says_where(check: CheckResult | dict[str, Any], sides: dict[str, str]) -> None:
    """The follower's hint names every lead and where it is: once for all when they are
    on one side ("`a` and `b` above"), else each ("`a` (above) and `b` (below)")."""
    hint = check.hint if isinstance(check, CheckResult) else check["hint"]
    assert hint.startswith("Because of "), hint
    if len(set(sides.values())) == 1:
        side = next(iter(sides.values()))
        assert f" {side}: fixing th" in hint, hint
        assert all(f"`{lead}`" in hint for lead in sides), hint
    else:
        assert all(f"`{lead}` ({side})" in hint for lead, side in sides.items()), hint


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_every_grade_shows_the_exercises_order_whatever_failed(exercise_id: str) -> None:
    order = [spec.id for spec in COURSE.exercises[exercise_id].checks]
    with_leads = 0
    for seed in SEEDS:
        rng = random.Random(f"{exercise_id}-{seed}")
        shown = present([_outcome(check_id, rng) for check_id in order])
        assert [c.id for c in shown] == order, f"seed {seed}"
        for index, check in enumerate(shown):
            if check.follows:
                with_leads += 1
                _assert_says_where(check, {
                    lead: "above" if order.index(lead) < index else "below"
                    for lead in check.follows})
            if check.same_interval_as is not None:  # a drawing is referred to from below
                assert order.index(check.same_interval_as) < index
    if len(order) > 2:  # the random facts did make leads: the order was put to the test
        assert with_leads, exercise_id


def test_a_lead_below_is_named_below_and_the_order_stays() -> None:
    boundary = CheckResult(id="boundary-matches", title="b", status="failed", points=0,
                           max_points=1, message="m", hint="h",
                           evidence=Evidence(facts={"follows": "compilation", "at_line": 1}))
    warmup = CheckResult(id="warmup-excluded", title="w", status="failed", points=0,
                         max_points=1, message="m", hint="h",
                         evidence=Evidence(facts={"flaw": "compilation", "at_line": 1}))
    for checks, side in (([warmup, boundary], "above"), ([boundary, warmup], "below")):
        shown = present(checks)
        assert [c.id for c in shown] == [c.id for c in checks]
        follower = next(c for c in shown if c.id == "boundary-matches")
        assert follower.follows == ["warmup-excluded"]
        assert follower.hint == f"Because of `warmup-excluded` {side}: fixing that fixes this too."


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_checks_that_can_follow_the_interval_checks_come_after_them(exercise_id: str) -> None:
    exercise = COURSE.exercises[exercise_id]
    order = [spec.id for spec in exercise.checks]
    derived = [i for i, check_id in enumerate(order) if check_id in TITLES]
    assert [order[i] for i in derived] == [t for t in TITLES if t in order]
    for index, check_id in enumerate(order):
        found = lookup(check_id)
        if derived and found is not None and found.after_intervals:
            assert index > max(derived), (exercise_id, check_id)
    again = resolve(dataclasses.replace(exercise))
    assert [spec.id for spec in again.checks] == order  # resolving again moves nothing


def _goldens() -> list[Path]:
    return sorted(COURSE.root.glob("exercise-*/corpus/golden/*/*.json"))


@pytest.mark.parametrize("path", _goldens(), ids=lambda p: f"{p.parts[-5]}/{p.parts[-2]}/{p.stem}")
def test_every_golden_report_keeps_the_order_with_each_lead_above(path: Path) -> None:
    """The corpus's real grades: their checks in the exercise's order, and every lead
    they show above its follower (the order puts the checks that can lead first)."""
    report = json.loads(path.read_text(encoding="utf-8"))
    order = [spec.id for spec in COURSE.exercises[report["exercise"]].checks]
    shown = [check["id"] for check in report["checks"]]
    assert shown == [check_id for check_id in order if check_id in shown]
    for index, check in enumerate(report["checks"]):
        for lead in check["follows"]:
            assert shown.index(lead) < index, (check["id"], lead)
        if check["follows"]:
            _assert_says_where(check, dict.fromkeys(check["follows"], "above"))
