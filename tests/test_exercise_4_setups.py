"""exercise-4's hidden setups are calibrated: the right result passes the contract's check
with room to spare, and both wrong setups are caught at atol=rtol=2e-5 but slip through a
loose tolerance (atol=1e-1), so `verification-catches-errors` separates the two.

NumPy only: float32 NumPy stands in for the float32 JAX result (both round a 48-long
reduction), and the wrong setups are computed the way the child's workloads compute them.
"""

from __future__ import annotations

import numpy as np

from syncgrade.rubric import exercise_4 as ex

CONTRACT = {"atol": 2e-5, "rtol": 2e-5}
LOOSE = {"atol": 1e-1, "rtol": 1e-7}


def _worst(actual: np.ndarray, desired: np.ndarray, atol: float, rtol: float) -> float:
    """Largest |actual - desired| as a fraction of assert_allclose's allowance."""
    return float(np.max(np.abs(actual - desired) / (atol + rtol * np.abs(desired))))


def _setup() -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    inputs = ex.make_inputs()
    larger = ex.larger_input()
    return larger, inputs, np.tanh(larger @ inputs["w"])  # the learner's float32 reference


def test_right_result_passes_with_margin() -> None:
    larger, inputs, learner_reference = _setup()
    exact = np.tanh(larger.astype(np.float64) @ inputs["w"].astype(np.float64))
    # Two float32 results each within 40% of the allowance of the exact one: together
    # still inside it, whatever summation order XLA picks.
    assert _worst(learner_reference, exact, **CONTRACT) < 0.4
    assert _worst(exact, ex.make_references(inputs)["predict"], **CONTRACT) == 0.0


def test_wrong_function_is_caught_only_at_the_contract_tolerance() -> None:
    _larger, _inputs, reference = _setup()
    wrong = (reference * np.float32(1.0 + 1e-3)).astype(np.float32)  # predict_off_by_a_little
    assert _worst(wrong, reference, **CONTRACT) > 5
    assert _worst(wrong, reference, **LOOSE) < 1


def test_wrong_device_weights_are_caught_only_at_the_contract_tolerance() -> None:
    larger, inputs, reference = _setup()
    wrong = np.tanh(larger @ inputs["w_off"])
    assert _worst(wrong, reference, **CONTRACT) > 5
    assert _worst(wrong, reference, **LOOSE) < 1
    assert not np.array_equal(inputs["w_off"], inputs["w"])


def test_hidden_shapes_are_not_the_lessons() -> None:
    inputs = ex.make_inputs()
    assert inputs["w"].shape != (32, 16)
    assert ex.ROWS not in (64, 96) and ex.WARM_ROWS != ex.ROWS
