"""The same submission graded 20 times gets the same verdict (issue: noise must not leak
into verdicts). A core set of exercise-1 files covers every timing-sensitive check: the
correct styles, and each way a timer can stop before the work is done.

The default run grades each file DEFAULT_ROUNDS times (with test_corpus.py's round, each
file here is graded 3 times per run); the other rounds are marked ``slow`` and run
nightly (``bash .ci/run -m slow``). The verdict logic under varied timings is pinned
without a child by tests/rubric/test_timing_checks.py.
"""

from __future__ import annotations

import pytest
from corpus_support import corpus_dir, failed_ids, read_expectation

import syncgrade
from syncgrade.courses import builtin_course

ROUNDS = 20
DEFAULT_ROUNDS = 2
FILES = [
    builtin_course().folder("exercise-1").solution,
    corpus_dir("exercise-1") / "flawed" / "numpy_asarray_wait.py",
    corpus_dir("exercise-1") / "flawed" / "no_wait.py",
    corpus_dir("exercise-1") / "flawed" / "wait_on_stale_output.py",
    corpus_dir("exercise-1") / "flawed" / "sleep_instead_of_wait.py",
    corpus_dir("exercise-1") / "flawed" / "wait_on_input.py",
]


ROUNDS_OF_FILES = [
    pytest.param(path, round_, id=f"{path.parent.name}/{path.stem}-{round_}",
                 marks=() if round_ < DEFAULT_ROUNDS else (pytest.mark.slow,))
    for path in FILES for round_ in range(ROUNDS)
]


@pytest.mark.parametrize(("path", "round_"), ROUNDS_OF_FILES)
def test_verdict_is_stable(path, round_: int) -> None:  # type: ignore[no-untyped-def]
    expected = frozenset() if path.name == "solution.py" else read_expectation(path)
    report = syncgrade.grade("exercise-1", path)
    assert failed_ids(report) == expected, [(c.id, c.message) for c in report.checks]
