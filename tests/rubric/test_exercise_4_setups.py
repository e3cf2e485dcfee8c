"""exercise-4's hidden setups are calibrated: the right result passes the contract's check
with room to spare, and both wrong setups are caught at atol=rtol=2e-5 but slip through a
loose tolerance (atol=1e-1), so `verification-catches-errors` separates the two.

NumPy only: float32 NumPy stands in for the float32 JAX result (both round a 48-long
reduction), and the wrong setups are computed the way the child computes them (the wrong
device's bfloat16 tanh with ml_dtypes' bfloat16, which jax ships with). The last test
grades a submission through the real engine: from inside the learner's function, the right
call and both wrong ones must look the same, jaxpr and lowered program included.
"""

from __future__ import annotations

import numpy as np

from syncgrade.courses import builtin_course

ex = builtin_course().module("exercise-4")  # the declaration, loaded from its course folder

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


def _wrong_function(reference: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``predict(x, w, one, exact_rows, scale)`` from ``tanh(x @ w)``, as the rubric binds
    it: the first ``exact_rows`` rows multiplied by ``one``."""
    inputs = ex.make_inputs()
    head = np.arange(reference.shape[0])[:, None] < inputs["exact_rows"]
    return (reference * np.where(head, inputs["one"], scale)).astype(np.float32)


def test_wrong_function_is_caught_only_at_the_contract_tolerance() -> None:
    _larger, inputs, reference = _setup()
    assert np.all(inputs["scale"] == 1.0)  # the right setups: multiplying by one is exact
    assert np.array_equal(_wrong_function(reference, inputs["scale"]), reference)
    wrong = _wrong_function(reference, inputs["scale_off"])
    assert _worst(wrong, reference, **CONTRACT) > 5
    assert _worst(wrong, reference, **LOOSE) < 1


def test_wrong_function_escapes_a_check_of_the_head_of_the_result_only() -> None:
    # A check of the first rows (`out[:5]`, `out[0]`, `out.ravel()[:10]`) checks part of
    # the result: it must miss the wrong function, so verification-catches-errors fails
    # it; every later row is off, so a check reading any of them still catches it.
    _larger, inputs, reference = _setup()
    wrong = _wrong_function(reference, inputs["scale_off"])
    head = ex.EXACT_ROWS
    assert np.array_equal(wrong[:head], reference[:head])
    assert min(_worst(wrong[row], reference[row], **CONTRACT)
               for row in range(head, reference.shape[0])) > 1


def test_wrong_device_is_caught_only_at_the_contract_tolerance() -> None:
    from ml_dtypes import bfloat16

    _larger, _inputs, reference = _setup()
    # The faulty device's tanh: its input and its result rounded to bfloat16.
    y = np.arctanh(np.clip(reference, -0.999999, 0.999999)).astype(np.float32)
    wrong = np.tanh(y.astype(bfloat16).astype(np.float32)).astype(bfloat16).astype(np.float32)
    assert _worst(wrong, reference, **CONTRACT) > 5
    assert _worst(wrong, reference, **LOOSE) < 1


def test_hidden_shapes_are_not_the_lessons() -> None:
    inputs = ex.make_inputs()
    assert inputs["w"].shape != (32, 16)
    assert ex.ROWS not in (64, 96) and ex.WARM_ROWS != ex.ROWS


# --------------------------------------------------------------------------- indistinguishable

# A submission that records everything it can observe about its arguments, from inside the
# learner's function, and prints one JSON line per grader call. Addresses (``0x7f...``) are
# replaced by a placeholder: every call gets fresh objects, right or wrong.
OBSERVER = '''
import hashlib, inspect, json, re, time
import jax
import numpy as np


def _text(value):
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", str(value))


def _function(fn):
    code = getattr(fn, "__code__", None)
    return {
        "type": _text(type(fn)), "name": getattr(fn, "__name__", None),
        "qualname": getattr(fn, "__qualname__", None), "module": getattr(fn, "__module__", None),
        "doc": getattr(fn, "__doc__", None), "repr": _text(repr(fn)), "str": _text(str(fn)),
        "signature": _text(inspect.signature(fn)),
        "code": None if code is None else [hashlib.sha256(code.co_code).hexdigest(),
                                           code.co_name, code.co_qualname, code.co_firstlineno,
                                           _text(code.co_consts), code.co_freevars],
        "defaults": _text(getattr(fn, "__defaults__", None)),
        "closure_cells": len(getattr(fn, "__closure__", None) or ()),
    }


def _array(a):
    devices = sorted(str(d) for d in a.devices()) if hasattr(a, "devices") else None
    return {"type": _text(type(a)), "shape": list(np.shape(a)), "dtype": str(a.dtype),
            "devices": _text(devices),
            "committed": getattr(a, "committed", None), "weak": getattr(a, "weak_type", None)}


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    obs = {
        "compiled_predict": _function(compiled_predict),
        "wrapped": _function(compiled_predict.__wrapped__),
        "pjit_repr": _text(repr(compiled_predict._fun if hasattr(compiled_predict, "_fun")
                                else compiled_predict.__wrapped__)),
        "w_host": _array(w_host), "w": _array(w), "rows": [type(rows).__name__, rows],
        "rng": [_text(type(rng)), _text(rng.bit_generator.state)],
        "device": [_text(type(device)), _text(device)],
        "repeats": [type(repeats).__name__, repeats],
    }
    x = jax.device_put(rng.normal(size=(rows, w_host.shape[0])).astype(np.float32), device)
    x.block_until_ready()
    out = compiled_predict(x, w)
    out.block_until_ready()
    obs["output"] = _array(out)
    obs["w_equals_w_host"] = bool(np.array_equal(np.asarray(w), w_host))
    obs["jaxpr"] = str(jax.make_jaxpr(compiled_predict)(x, w))
    # The lowered text, and whether it carries what the learner's own program carries.
    lowered = compiled_predict.lower(x, w).as_text()
    own = jax.jit(lambda x, w: jax.numpy.tanh(x @ w)).lower(x, w).as_text()
    obs["lowered_faulty"] = ["reduce_precision" in lowered, "reduce_precision" in own]
    print("LOWERED " + json.dumps(lowered))
    print("OBSERVED " + json.dumps(obs, sort_keys=True))
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(x, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return np.asarray(x), out, samples
'''


def test_right_and_wrong_setups_look_alike_from_inside_the_submission() -> None:
    """Everything the learner's function can observe about its arguments (the jitted
    function's name, qualname, repr, str, type, signature, code; the arrays' types, shapes,
    dtypes and devices; rows, rng state, device, repeats) is the same in the right call and
    in both wrong ones."""
    import json

    import syncgrade

    report = syncgrade.grade("exercise-4", source=OBSERVER, timeout=60)
    lines = [line.removeprefix("OBSERVED ") for line in report.stdout.text.splitlines()
             if line.startswith("OBSERVED ")]
    lowered = [json.loads(line.removeprefix("LOWERED "))
               for line in report.stdout.text.splitlines() if line.startswith("LOWERED ")]
    # The three setups, then the calibrated probe (a behavioural cross-check, which need
    # not look alike: its calls last ~50 ms whatever it looks like).
    assert len(lines) == len(ex.EXERCISE.calls) == 4, report.stdout.text[-2000:]
    assert [call.id for call in ex.EXERCISE.calls][3] == ex.PROBE
    observed = [json.loads(line) for line in lines][:3]
    assert observed[0]["repeats"] == ["int", ex.REPEATS]
    assert observed[0]["wrapped"]["name"] == "predict"
    assert observed[0]["w_equals_w_host"] is True
    assert "dot_general" in observed[0]["jaxpr"] and "tanh" in observed[0]["jaxpr"]
    # The wrong function is the right one's program: the same lowered text, no constants.
    assert lowered[0] == lowered[1] and "dense<" not in lowered[0]
    # The wrong device lowers every program its own way, the learner's own too.
    assert observed[0]["lowered_faulty"] == [False, False]
    assert observed[2]["lowered_faulty"] == [True, True]
    # Every call the learner's check sees, the probe's too, multiplies at full float32
    # precision: on a TPU a product at the default precision misses atol=rtol=2e-5 by
    # 130x (docs/accelerators.md), and the probe once did, failing the right solution.
    assert len(lowered) == 4
    for text in lowered:
        products = [line for line in text.splitlines() if "dot_general" in line]
        assert products and all("precision = [HIGHEST, HIGHEST]" in line
                                for line in products), products
    for other in observed[1:]:
        different = {key for key in observed[0] if observed[0][key] != other[key]}
        different.discard("lowered_faulty")
        assert not different, {key: (observed[0][key], other[key]) for key in different}
