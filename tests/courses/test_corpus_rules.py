"""The corpus minimums of tests/corpus/README.md, for every exercise of the built-in course,
discovered."""

from __future__ import annotations

import pytest
from corpus_support import corpus_cases

from syncgrade.courses import EXERCISES, builtin_course

MIN_CORRECT = 3
MIN_FLAWED = 4
CASES = corpus_cases()


def test_every_exercise_folder_has_a_corpus_and_a_declaration() -> None:
    files = builtin_course().files
    assert {e for e, f in files.items() if f.corpus.is_dir()} == set(files) == set(EXERCISES)


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_corpus_minimums(exercise: str) -> None:
    correct = [c for c in CASES if c.exercise == exercise and not c.expected_failures]
    flawed = [c for c in CASES if c.exercise == exercise and c.expected_failures]
    assert len(correct) >= MIN_CORRECT, f"{exercise}: {len(correct)} correct files"
    assert len(flawed) >= MIN_FLAWED, f"{exercise}: {len(flawed)} flawed files"
    checks = {spec.id for spec in EXERCISES[exercise].checks}
    failed_somewhere = set().union(*(c.expected_failures for c in flawed))
    assert failed_somewhere <= checks, f"unknown check ids {failed_somewhere - checks}"
    assert checks <= failed_somewhere, (
        f"{exercise}: no flawed corpus file fails {sorted(checks - failed_somewhere)}")
