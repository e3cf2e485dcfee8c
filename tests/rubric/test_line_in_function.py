"""intervals.line_in_function: a check about one learner function names a line in it
(issue 27: exercise-5 named the JAX line inside `energy` for a reference that called it)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from syncgrade.rubric.intervals import line_in_function

SOURCE = '''import jax.numpy as jnp


def energy(a, b):
    return jnp.sum((a @ b) ** 2, axis=1)


def helper(a, b):
    return energy(a, b)


def energy_reference(a_host, b_host):
    total = helper(a_host, b_host)
    return total


def other():
    return 1
'''


def _ctx(source: str = SOURCE) -> Any:
    return SimpleNamespace(source_lines=tuple(source.splitlines()))


def test_a_line_inside_the_function_is_its_own() -> None:
    assert line_in_function(_ctx(), "energy", 5) == 5


def test_a_line_in_a_function_it_calls_becomes_the_call_through_every_caller() -> None:
    assert line_in_function(_ctx(), "helper", 5) == 9
    assert line_in_function(_ctx(), "energy_reference", 5) == 13


def test_without_a_path_or_a_source_the_line_stays() -> None:
    assert line_in_function(_ctx(), "other", 5) == 5
    assert line_in_function(_ctx(), "missing", 5) == 5
    assert line_in_function(_ctx("def broken(:\n"), "energy", 5) == 5
    assert line_in_function(_ctx(""), "energy", 5) == 5
    assert line_in_function(_ctx(), "energy_reference", None) is None
