"""Every corpus submission through the real engine: correct ones get full marks, flawed
ones fail exactly the checks their header names, and verdicts repeat across rounds."""

from __future__ import annotations

import os

import pytest
from corpus_support import CorpusCase, corpus_cases, failed_ids

import syncgrade

ROUNDS = int(os.environ.get("SYNCGRADE_CORPUS_ROUNDS", "5"))
CASES = corpus_cases()


@pytest.mark.parametrize("round_", range(ROUNDS))
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_corpus_verdict(case: CorpusCase, round_: int) -> None:
    report = syncgrade.grade(case.exercise, case.path, timeout=120)
    failed = failed_ids(report)
    details = "\n".join(f"{c.status} {c.id}: {c.message}" for c in report.checks)
    assert report.grading.internal_error is None, report.grading.internal_error
    if not case.expected_failures:
        assert report.status == "passed", details
        assert report.score == report.max_score
    else:
        assert failed == case.expected_failures, details
        assert report.status == "failed"
        assert report.score < report.max_score


def test_every_exercise_has_a_corpus() -> None:
    from syncgrade.rubric import EXERCISES

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
