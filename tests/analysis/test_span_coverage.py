"""``SpanCoverage``: how much of a stretch a set of spans covers, which
``Interval.unexplained_gap`` asks for every stretch between two events (answered by merging
every span again, an interval of a few thousand events took seconds to draw)."""

from __future__ import annotations

import random

from syncgrade.analysis import SpanCoverage


def _covered_units(spans: list[tuple[int, int]], lo: int, hi: int) -> int:
    """The integer units ``[x, x + 1)`` inside ``[lo, hi)`` that some span covers."""
    return sum(1 for x in range(lo, hi) if any(a <= x < b for a, b in spans))


def test_the_coverage_of_any_stretch_is_the_covered_length() -> None:
    rng = random.Random(20261207)
    for _ in range(400):
        spans = []
        for _ in range(rng.randint(0, 9)):
            a = rng.randint(-5, 60)
            spans.append((a, a + rng.randint(-3, 25)))  # empty and reversed spans too
        coverage = SpanCoverage(spans)
        for _ in range(15):
            lo, hi = rng.randint(-10, 90), rng.randint(-10, 90)
            want = _covered_units(spans, lo, hi) if hi > lo else 0
            assert coverage.within(lo, hi) == want, (spans, lo, hi)


def test_no_spans_cover_nothing() -> None:
    assert SpanCoverage([]).within(0, 10) == 0
    assert SpanCoverage([(3, 3)]).within(0, 10) == 0
