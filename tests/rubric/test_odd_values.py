"""Every check of every exercise turns odd returned values into a verdict, never an
exception (an exception in a check is a grader fault: exit 3).

Each exercise's reference solution runs once through the real child; then its returned
values are swapped, in the parent, for what a learner (or a forged frame) could send:
10**400, NaN, infinities, bools, NumPy ints, Decimals, strings, nested lists, bfloat16,
structured, object, complex, int and 0-d arrays, huge shapes. Every check runs on each.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from solution_support import solution_grade

from syncgrade.courses import EXERCISES
from syncgrade.grading import pipeline

# Tagged values as the child sends them (or as a forged frame could claim them).
F32 = "AAAAAA=="  # one float32 zero, base64
ODD_NUMBERS: dict[str, dict[str, Any]] = {
    "10**400 forged": {"t": "int", "v": 10**400},
    "10**400 honest": {"t": "other", "type": "int", "reason": "int-too-large", "repr": ""},
    "2**62": {"t": "int", "v": 2**62},
    "nan": {"t": "float", "v": "nan"},
    "-inf": {"t": "float", "v": "-inf"},
    "inf": {"t": "float", "v": "inf"},
    "zero": {"t": "float", "v": 0.0},
    "negative": {"t": "float", "v": -1.0},
    "1e308": {"t": "float", "v": 1e308},
    "True": {"t": "bool", "v": True},
    "numpy int": {"t": "npscalar", "v": 3, "dtype": "int64"},
    "bfloat16 scalar": {"t": "npscalar", "v": 0.5, "dtype": "bfloat16"},
    "Decimal": {"t": "other", "type": "Decimal", "repr": "Decimal('0.1')"},
    "string": {"t": "str", "v": "0.1"},
    "nested list": {"t": "list", "items": [{"t": "list", "items": [{"t": "float", "v": 0.1}]}]},
    "too many": {"t": "too-many", "type": "list"},
    "malformed": {"t": "float", "v": "abc"},
    "None": {"t": "none"},
}
ODD_ARRAYS: dict[str, dict[str, Any]] = {
    "bfloat16": {"t": "jax", "dtype": "bfloat16", "wire": "float32", "shape": [1],
                 "data": F32},
    "structured": {"t": "ndarray", "dtype": "void64", "shape": [3], "data": None,
                   "reason": "structured", "fields": ["a", "b"]},
    "object": {"t": "ndarray", "dtype": "object", "shape": [2], "data": None,
               "reason": "object"},
    "complex": {"t": "ndarray", "dtype": "complex64", "shape": [1], "data": "AAAAAAAAAAA="},
    "int": {"t": "jax", "dtype": "int32", "shape": [1], "data": F32},
    "0-d": {"t": "jax", "dtype": "float32", "shape": [], "data": F32},
    "huge shape": {"t": "jax", "dtype": "float32", "shape": [10**6, 10**6], "data": None,
                   "too_large": True},
    "forged shape": {"t": "jax", "dtype": "float32", "shape": [10**12], "data": F32},
    "empty": {"t": "ndarray", "dtype": "float32", "shape": [0, 3], "data": ""},
}


def _replace(tagged: Any, tags: tuple[str, ...], new: dict[str, Any], only_first: bool,
             done: list[bool]) -> Any:
    """``tagged`` with its leaves of ``tags`` swapped for ``new`` (all, or the first)."""
    if isinstance(tagged, dict):
        if tagged.get("t") in tags and not (only_first and done):
            done.append(True)
            return copy.deepcopy(new)
        return {k: _replace(v, tags, new, only_first, done) for k, v in tagged.items()}
    if isinstance(tagged, list):
        return [_replace(v, tags, new, only_first, done) for v in tagged]
    return tagged


@pytest.fixture(scope="module")
def solution_runs() -> dict[str, pipeline.Ran]:
    """exercise id -> the *run* stage's value (:class:`pipeline.Ran`) of its solution (a
    real grade, shared in this test process: solution_support)."""
    return {exercise: solution_grade(exercise).ran for exercise in EXERCISES}


def _run_checks(ran: pipeline.Ran, mutate: Any) -> list[str]:
    """The check statuses of ``ran`` with every call's returned value mutated: the public
    *frames* and *verdicts* stages, with the frames replaced in between."""
    evidence = pipeline.read_frames(ran)
    frames = {cid: frame.model_copy(update={"value": mutate(frame.value)})
              for cid, frame in evidence.frames.items()}
    verdicts = pipeline.evaluate_checks(dataclasses.replace(evidence, frames=frames))
    return [check.status for check in verdicts.checks]


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_the_solution_passes_unmutated(solution_runs: dict[str, pipeline.Ran],
                                       exercise: str) -> None:
    ran = solution_runs[exercise]
    assert set(_run_checks(ran, lambda v: v)) == {"passed"}


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
@pytest.mark.parametrize("only_first", [True, False], ids=["first", "all"])
def test_odd_numbers_never_raise(solution_runs: dict[str, Any], exercise: str,
                                 only_first: bool) -> None:
    ran = solution_runs[exercise]
    for name, odd in ODD_NUMBERS.items():
        def mutate(value: Any, odd: dict[str, Any] = odd) -> Any:
            return _replace(value, ("float", "int", "npscalar"), odd, only_first, [])

        try:
            _run_checks(ran, mutate)
        except Exception as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{exercise}, {name} ({'first' if only_first else 'all'} "
                        f"numbers): {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_odd_arrays_and_whole_values_never_raise(solution_runs: dict[str, Any],
                                                 exercise: str) -> None:
    ran = solution_runs[exercise]
    cases: dict[str, Any] = {
        f"array {name}": (lambda v, odd=odd: _replace(v, ("jax", "ndarray"), odd, False, []))
        for name, odd in ODD_ARRAYS.items()}
    cases.update({f"whole value {name}": (lambda v, odd=odd: copy.deepcopy(odd))
                  for name, odd in {**ODD_NUMBERS, **ODD_ARRAYS}.items()})
    cases["whole value missing"] = lambda v: None
    for name, mutate in cases.items():
        try:
            _run_checks(ran, mutate)
        except Exception as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{exercise}, {name}: {type(exc).__name__}: {exc}")
