"""A workload the rubric declares as source that fails on its own code (`jnp.tanhh`) is an
exercise setup error naming the declaration's file and line, never the learner's `runs`
failure ("avoid fixed shapes"); a learner's own NameError beside it stays the learner's.
Two grades (two child processes)."""

from __future__ import annotations

from pathlib import Path

import pytest

import syncgrade
from syncgrade.rubric import RubricError

DECLARATION = '''\
import numpy as np

from syncgrade.rubric import Check, CheckSpec, Exercise, GraderCall, Required
from syncgrade.rubric import specs as s

SOURCE = """
def doubled(x):
    return jnp.tanhh(x) * 2
"""


def make_inputs():
    return {"x": np.ones((4,), np.float32)}


def make_references(inputs):
    return {}


EXERCISE = Exercise(
    id="declared-workload", title="A declared workload", version="1",
    required=(Required("call_it", "fn, x", positional=2),),
    calls=(GraderCall("main", "call_it", (s.workload("doubled", source=SOURCE),
                                          s.device("x"))),),
    checks=(CheckSpec(Check.RUNS, params={"calls": ("main",)}),),
    make_inputs=make_inputs,
    make_references=make_references,
)
'''


def test_a_declared_workload_s_own_mistake_is_the_exercise_s(tmp_path: Path) -> None:
    path = tmp_path / "declared-workload" / "exercise.py"
    path.parent.mkdir()
    path.write_text(DECLARATION, encoding="utf-8")
    line = next(n for n, text in enumerate(DECLARATION.splitlines(), 1) if "tanhh" in text)
    with pytest.raises(RubricError) as caught:
        syncgrade.grade("declared-workload", source="def call_it(fn, x):\n    return fn(x)\n",
                        course=tmp_path, timeout=60)
    message = str(caught.value)
    assert message.startswith(f"rubric error in declared-workload: {path}:{line}: the "
                              "declared workload `doubled` failed on its own code"), message
    assert "AttributeError" in message and "tanhh" in message
    # The learner's own mistake in the same call is still the learner's.
    report = syncgrade.grade("declared-workload", course=tmp_path, timeout=60,
                             source="def call_it(fn, x):\n    return fn(missing)\n")
    runs = report.check("runs")
    assert (report.status, runs.status) == ("failed", "failed")
    assert "NameError on line 2" in runs.message
