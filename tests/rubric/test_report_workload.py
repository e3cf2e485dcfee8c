"""exercise-7's `workload` and `boundary` are compared with what really ran (pure)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from builders import context

from syncgrade.courses import get_exercise
from syncgrade.rubric import checks_report as rc
from syncgrade.rubric.base import Context, Skip

INPUTS = {"x": np.zeros((6, 4), np.float32), "w": np.zeros((4, 3), np.float32)}


def _ctx(workload: Any) -> Context:
    # the decoded report
    return context("exercise-7", [], inputs=INPUTS, decoded={"workload": workload})


def _check(workload: Any) -> Any:
    return rc.workload_matches(_ctx(workload), call="main", report=("workload",),
                               args=("x", "w"))


@pytest.mark.parametrize("workload", [
    {"shapes": [[6, 4], [4, 3]], "dtypes": ["float32", "float32"]},
    {"shapes": ((6, 4), (4, 3)), "dtypes": ("<f4", "f4")},
    {"shapes": [(6, 4), [4, 3]], "dtypes": ["single", "float32"], "extra": 1},
])
def test_spellings_of_the_real_workload_pass(workload: dict[str, Any]) -> None:
    assert _check(workload).status == "passed"


@pytest.mark.parametrize(("workload", "said"), [
    ({"shapes": [[64, 32], [32, 16]], "dtypes": ["float32"] * 2},
     "`workload.shapes[0]` is [64, 32], which is not the shape of `args[0]`."),
    ({"shapes": [[6], [4, 3]], "dtypes": ["float32"] * 2},
     "`workload.shapes[0]` is [6], which is not the shape of `args[0]` (it has 2 axes)."),
    ({"shapes": [[6, 4], [3, 4]], "dtypes": ["float32"] * 2}, "`workload.shapes[1]`"),
    ({"shapes": [[6, 4]], "dtypes": ["float32"]}, "lists 1 item(s), but `args` held 2"),
    ({"shapes": [[6, 4], [4, 3]], "dtypes": ["float32", "float64"]},
     "`workload.dtypes[1]` is 'float64', but `args[1]` has dtype 'float32'."),
    ({"shapes": [[6, 4], [4, 3]], "dtypes": ["float32", "f32!"]}, "`workload.dtypes[1]`"),
    ({"shapes": [[6, 4], [4, 3]], "dtypes": []}, "`workload.dtypes` lists 0 item(s)"),
])
def test_a_workload_that_is_not_the_real_one_fails(workload: dict[str, Any], said: str) -> None:
    outcome = _check(workload)
    assert outcome.status == "failed" and said in outcome.message
    assert "0." not in outcome.message  # never a value
    assert "[6, 4]" not in outcome.message and "[4, 3]" not in outcome.message  # nor a size


@pytest.mark.parametrize("workload", [
    "x", {"shapes": "6x4", "dtypes": ["float32"]}, {"shapes": [[6.0, 4]], "dtypes": ["f4"]},
    {"shapes": [[6, 4], [4, 3]], "dtypes": [np.float32, "f4"]},
])
def test_ill_typed_workloads_are_left_to_report_schema(workload: Any) -> None:
    with pytest.raises(Skip):
        _check(workload)


def test_dtype_names() -> None:
    assert rc.dtype_of("<f4") == np.float32 and rc.dtype_of(" float32 ") == np.float32
    assert rc.dtype_of("") is None and rc.dtype_of("bfloat16x") is None
    assert rc.dtype_of("f" * 100) is None


def test_exercise_7_checks_boundary_and_workload() -> None:
    specs = {s.id: s for s in get_exercise("exercise-7").checks}
    assert specs["boundary-matches"].fn is rc.boundary_matches
    parts = specs["environment"].params["parts"]
    assert [fn for _, fn, _ in parts] == [rc.environment, rc.workload_matches]
    assert "workload" in specs["environment"].params["ok"]
