"""exercise-2's answer checks: every answer shape is handled kindly, and no message gives
the key away."""

from __future__ import annotations

import pytest

import syncgrade
from syncgrade.analysis import PHASES
from syncgrade.courses import builtin_course

_DECLARATION = builtin_course().module("exercise-2")
KEY = _DECLARATION.KEY
SYNC_POINT_CHOICES = _DECLARATION.SYNC_POINT_CHOICES
SYNC_POINT_KEY = _DECLARATION.SYNC_POINT_KEY

RIGHT = {letter: sorted(phases) for letter, phases in KEY.items()}


def _source(intervals: str, sync_point: str = '"before stopping the timer"') -> str:
    return f"INTERVALS = {intervals}\nSYNC_POINT = {sync_point}\n"


def _grade(source: str):  # type: ignore[no-untyped-def]
    report = syncgrade.grade("exercise-2", source=source, timeout=120)
    assert report.grading.internal_error is None, report.grading.internal_error
    return report


def _with(letter: str, answer: str) -> str:
    entries = {k: repr(v) for k, v in RIGHT.items()}
    entries[letter] = answer
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in entries.items()) + "}"


def test_right_answers_in_any_container_pass() -> None:
    answers = {"A": "('dispatch',)", "B": repr(set(KEY["B"])), "C": repr(sorted(KEY["C"])),
               "D": f"frozenset({sorted(KEY['D'])!r})"}
    source = _source("{" + ", ".join(f"{k!r}: {v}" for k, v in answers.items()) + "}")
    assert _grade(source).status == "passed"


@pytest.mark.parametrize(("answer", "fragment"), [
    ('"dispatch"', "single string"),
    ("None", "not a set of phase names"),
    ("{1, 2}", "must be a phase name"),
    ('{"Dispatch"}', '"Dispatch" is not a phase name (did you mean "dispatch"?)'),
])
def test_malformed_answer_fails_only_its_snippet(answer: str, fragment: str) -> None:
    report = _grade(_source(_with("A", answer)))
    failed = [c for c in report.checks if c.status == "failed"]
    assert [c.id for c in failed] == ["answer-A"]
    assert fragment in failed[0].message


def test_unknown_name_lists_the_vocabulary() -> None:
    check = _grade(_source(_with("C", '{"dispatch", "execution"}'))).check("answer-C")
    assert check.status == "failed"
    assert all(phase in check.message for phase in PHASES)


def test_not_a_dict_or_missing_letter() -> None:
    report = _grade(_source('[{"dispatch"}]'))
    assert {c.id for c in report.checks if c.status == "failed"} == {
        "answer-A", "answer-B", "answer-C", "answer-D"}
    assert "not a dict" in report.check("answer-A").message
    entries = ", ".join(f"{k.lower()!r}: {v!r}" for k, v in RIGHT.items())
    lower = _grade(_source("{" + entries + "}"))
    assert 'no entry for snippet "A"' in lower.check("answer-A").message


@pytest.mark.parametrize("letter", ["A", "B", "C", "D"])
@pytest.mark.parametrize("change", ["drop", "add", "swap"])
def test_wrong_answers_never_name_a_phase(letter: str, change: str) -> None:
    key = set(KEY[letter])
    outside = sorted(set(PHASES) - key)
    answer = {"drop": key - {sorted(key)[0]}, "add": key | {outside[0]},
              "swap": (key - {sorted(key)[0]}) | {outside[0]}}[change]
    check = _grade(_source(_with(letter, repr(sorted(answer))))).check(f"answer-{letter}")
    assert check.status == "failed"
    shown = check.message + check.hint
    assert not [phase for phase in PHASES if phase in shown], shown


@pytest.mark.parametrize(("value", "fragment"), [
    ('"before stopping"', 'Did you mean "before stopping the timer"?'),
    ("2", "not one of the strings"),
    ('"after stopping the timer"', "is not where"),
])
def test_sync_point_answers(value: str, fragment: str) -> None:
    report = _grade(_source(repr(RIGHT), value))
    check = report.check("answer-sync-point")
    assert check.status == "failed" and fragment in check.message


@pytest.mark.parametrize("choice", sorted(set(SYNC_POINT_CHOICES) - {SYNC_POINT_KEY}))
def test_wrong_sync_point_gets_its_own_hint_not_the_key(choice: str) -> None:
    check = _grade(_source(repr(RIGHT), repr(choice))).check("answer-sync-point")
    assert check.status == "failed" and check.hint
    assert SYNC_POINT_KEY not in check.message + check.hint
