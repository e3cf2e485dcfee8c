"""Every corpus submission through the real engine: correct ones get full marks, flawed
ones fail exactly the checks their header names, and verdicts repeat across rounds; and
the report, its measured amounts masked, is the file's golden report (terminal text and
JSON beside the corpus: tests/golden_support.py, tests/corpus/README.md "Golden reports"),
compared in every round, inside the same grade.

Rounds: ``SYNCGRADE_CORPUS_ROUNDS`` (default 5) per file in the full run. The default run
(``-m "not slow"``) grades every file once, and ``corpus_support.RACE_ROUNDS`` times a file
whose verdict rests on a measured race (``corpus_support.races``); its other rounds are
marked ``slow``
(``bash .ci/run -m slow`` runs them, ``-m ''`` everything).
"""

from __future__ import annotations

import os

import pytest
from corpus_support import (
    FULL_ROUNDS_DEFAULT,
    CorpusCase,
    corpus_cases,
    default_rounds,
    failed_ids,
    read_case,
)
from golden_support import assert_matches_golden, has_golden
from margin_support import (
    COARSE_STEP_NS,
    assert_blocking_far_outside_the_bound,
    assert_far_outside_the_bound,
    measured_judgements,
)
from picture_support import assert_pictures_sound

import syncgrade
from syncgrade.authoring.mutants import Mutant, mutant_text, read_mutants, solution_path
from syncgrade.courses import EXERCISES
from syncgrade.grading import grade_result
from syncgrade.models import CheckResult, GradeReport
from syncgrade.picture import render_html

ROUNDS = int(os.environ.get("SYNCGRADE_CORPUS_ROUNDS", str(FULL_ROUNDS_DEFAULT)))
CASES = corpus_cases()
ROUNDS_OF_CASES = [
    pytest.param(case, round_, id=f"{case.id}-{round_}",
                 marks=() if round_ < default_rounds(case, ROUNDS) else (pytest.mark.slow,))
    for case in CASES for round_ in range(ROUNDS)
]


@pytest.mark.parametrize(("case", "round_"), ROUNDS_OF_CASES)
def test_corpus_verdict(case: CorpusCase, round_: int, monkeypatch: pytest.MonkeyPatch
                        ) -> None:
    judgements = measured_judgements(monkeypatch)  # interval-clean's margin, this grade
    # The learner's name for the file, not this checkout's path: the goldens hold it.
    graded = grade_result(case.exercise, case.path, timeout=120,
                          display_name=case.path.name)
    report = graded.report
    failed = failed_ids(report)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.grading.internal_error is None, report.grading.internal_error
    if not case.expected_failures:
        assert report.status == "passed", details
        assert report.score == report.max_score
    else:
        assert failed - case.may_also_fail == case.expected_failures, details
        assert report.status == "failed"
        assert report.score < report.max_score
        _assert_failures_are_drawn(report)
    if "interval-clean" in case.expected_failures:
        # The lesson's host work lies far outside the CPU bound (docs/checks.md).
        assert_far_outside_the_bound(
            judgements.cpu, "interval-clean" in read_case(case.path).tpu_may_pass)
        assert_blocking_far_outside_the_bound(judgements.blocking)
    if has_golden(case):
        assert_matches_golden(case, report, graded.source_lines)


def _assert_failures_are_drawn(report: GradeReport) -> None:
    """Every failing check that shows a timeline also carries its interval as a picture
    (issue 19), and the HTML report draws it: in every exercise, for every flaw; every
    picture is sound (issue 27: no label cut, no event before its cause, it fits; see
    tests/picture_support.py)."""
    drawn = [c for c in report.checks if c.status == "failed" and c.evidence.timeline]
    for check in drawn:
        assert check.evidence.interval is not None, check.id
        _assert_flaw_marked(check)
    if drawn:
        page = render_html(report)
        assert 'class="sg-pic sg-interval"' in page
        assert '<circle class="sg-flaw-ring"' in page  # the red mark, drawn
    assert_pictures_sound(report)


def _assert_flaw_marked(check: CheckResult) -> None:
    """Every failing interval check marks its flaw (issue 35 item 4), in the picture and
    in the text timeline: at least one mark, each the note of the same event in both."""
    picture, timeline = check.evidence.interval, check.evidence.timeline
    assert picture is not None and timeline is not None
    assert picture.flaws, f"{check.id} failed with no mark in its picture"
    for flaw in picture.flaws:
        assert picture.host[flaw.at].note == flaw.words, check.id
        assert timeline.entries[flaw.at].note == flaw.words, (
            f"{check.id}: the text timeline has no line for the flaw {flaw.words!r}")


MUTANTS_OF_INTERVAL_CLEAN = [
    pytest.param(exercise, mutant, id=f"{exercise}/mutant/{mutant.name}")
    for exercise in EXERCISES for mutant in read_mutants(None, exercise)
    if "interval-clean" in mutant.expected_failures
]


@pytest.mark.parametrize(("exercise", "mutant"), MUTANTS_OF_INTERVAL_CLEAN)
def test_a_mutant_fails_interval_clean_far_outside_the_bound(
        exercise: str, mutant: Mutant, monkeypatch: pytest.MonkeyPatch) -> None:
    # `grade validate` grades every mutant for its verdict; only the ones expected to fail
    # interval-clean are graded here, once, for the margin their host work keeps.
    judgements = measured_judgements(monkeypatch).cpu
    solution = solution_path(None, exercise).read_text(encoding="utf-8")
    report = syncgrade.grade(exercise, source=mutant_text(mutant, solution),
                             display_name=f"{mutant.name}.py", timeout=120)
    assert report.grading.internal_error is None, report.grading.internal_error
    if not any(j.step_ns >= COARSE_STEP_NS for j in judgements):
        assert "interval-clean" in failed_ids(report)
    assert_far_outside_the_bound(judgements, may_pass_coarse=True)


def test_every_exercise_has_a_corpus() -> None:
    for exercise in EXERCISES:
        correct = [c for c in CASES if c.exercise == exercise and not c.expected_failures]
        flawed = [c for c in CASES if c.exercise == exercise and c.expected_failures]
        assert len(correct) >= 3, exercise
        assert len(flawed) >= 4, exercise
        declared = {spec.id for spec in EXERCISES[exercise].checks}
        failed_somewhere = set().union(*(c.expected_failures for c in flawed))
        assert failed_somewhere <= declared, failed_somewhere - declared
        assert declared - {"runs"} <= failed_somewhere | {"runs"}, (
            f"{exercise}: no flawed corpus file fails {sorted(declared - failed_somewhere)}"
        )


def test_the_default_run_grades_every_file_and_slow_holds_only_repeats() -> None:
    from corpus_support import RACE_CHECKS, RACE_ROUNDS, races

    assert len(ROUNDS_OF_CASES) == len(CASES) * ROUNDS
    default = [p.values for p in ROUNDS_OF_CASES if not p.marks]
    assert {case for case, _ in default} == set(CASES)
    for case in CASES:
        graded = sum(1 for c, _ in default if c == case)
        assert graded == min(ROUNDS, RACE_ROUNDS if races(case) else 1), case.id
    declared = {spec.id for exercise in EXERCISES.values() for spec in exercise.checks}
    assert declared >= RACE_CHECKS, RACE_CHECKS - declared  # a renamed check id
