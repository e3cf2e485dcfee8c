"""Where does exercise-4's float32 error come from on this backend? (device measurement)

exercise-4's learner checks ``compiled_predict``'s result (``tanh(x @ w)``, the product at
``precision="highest"``) against ``np.tanh(larger_host @ w_host)`` with
``np.testing.assert_allclose(atol=T, rtol=T)``. This prints, as JSON, for exercise-4's own
hidden workload (its weights, row count and seed) and for further draws of the same shape:

- ``matmul``: the device's ``x @ w`` at each precision (default, high, highest) against a
  float64 product: the largest absolute error, and that error over the largest ``|x @ w|``;
- ``tanh``: the device's float32 ``tanh`` alone, of NumPy's float32 product and of a dense
  grid of [-12, 12], against a float64 ``tanh``, in units of 2**-23 (one ulp of 1.0) and
  relative; NumPy's own float32 ``tanh`` beside it;
- ``whole``: the grader's program (the rubric's ``PREDICT``, scale bound to ones, the
  wrong function's ``1 + 1e-3`` and, last, under the wrong device's ``bfloat16-tanh``
  fault) and a default-precision variant. Each as ``needs_T``: the smallest ``T`` with
  which the learner's ``assert_allclose(result, np.tanh(x @ w), atol=T, rtol=T)``
  passes, ``max |r - ref| / (1 + |ref|)``. A right setup passes at ``T`` when its
  ``needs_T <= T``; a wrong one is caught when its ``needs_T > T``.

    PYTHONPATH=$PYTHONPATH:src python benchmarks/exercise4_error.py [--draws 16] [--out F]

Runs on whatever JAX picks (``JAX_PLATFORMS=cpu`` for the CPU). The fault is installed
last: it changes every ``tanh`` lowered afterwards in this process.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ULP1 = 2.0**-23  # one ulp of 1.0 in float32


def load_exercise() -> Any:
    """exercise-4's declaration module (its inputs and its ``PREDICT`` source)."""
    path = ROOT / "exercises" / "exercise-4" / "exercise.py"
    spec = importlib.util.spec_from_file_location("exercise4_declaration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def needs_t(result: np.ndarray, reference: np.ndarray) -> float:
    """The smallest atol=rtol=T at which ``assert_allclose(result, reference)`` passes."""
    r, ref = np.asarray(result, np.float64), np.asarray(reference, np.float64)
    return float(np.max(np.abs(r - ref) / (1 + np.abs(ref))))


def abs_err(result: Any, exact: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(result, np.float64) - exact)))


def program(source: str) -> Any:
    namespace: dict[str, Any] = {"jax": jax, "jnp": jnp, "lax": jax.lax, "np": np}
    exec(compile(source, "<PREDICT>", "exec"), namespace)
    return jax.jit(namespace["predict"])


def matmul_errors(x: np.ndarray, w: np.ndarray) -> dict[str, Any]:
    z64 = x.astype(np.float64) @ w.astype(np.float64)
    scale = float(np.max(np.abs(z64)))
    out: dict[str, Any] = {"max_abs_z": scale,
                           "numpy_f32": abs_err(x @ w, z64) / scale}
    for name in ("default", "high", "highest"):
        precision = None if name == "default" else name
        z = jax.jit(lambda a, b, p=precision: jnp.matmul(a, b, precision=p))(x, w)
        out[name] = {"max_abs": abs_err(z, z64), "of_largest": abs_err(z, z64) / scale}
    return out


def tanh_errors(z32: np.ndarray) -> dict[str, Any]:
    exact = np.tanh(z32.astype(np.float64))
    device = jax.jit(jnp.tanh)(z32)
    host = np.tanh(z32)

    def summary(result: Any) -> dict[str, float]:
        r = np.asarray(result, np.float64)
        nonzero = exact != 0
        return {"max_abs_ulp1": abs_err(r, exact) / ULP1,
                "max_rel": float(np.max(np.abs(r - exact)[nonzero] / np.abs(exact[nonzero])))}

    return {"device": summary(device), "numpy_f32": summary(host)}


def whole(ex: Any, x: np.ndarray, inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    w = inputs["w"]
    ref32 = np.tanh(x @ w)  # the learner's reference
    exact = np.tanh(x.astype(np.float64) @ w.astype(np.float64))
    predict = program(ex.PREDICT)
    default = program(ex.PREDICT.replace(", precision=lax.Precision.HIGHEST", ""))
    right = np.asarray(predict(x, w, inputs["scale"]))
    # The product the program multiplies, then tanh of it in float64: what tanh adds.
    z = np.asarray(jax.jit(lambda a, b: jnp.matmul(
        a, b, precision=jax.lax.Precision.HIGHEST))(x, w), np.float64)
    return {
        "right": {"needs_T": needs_t(right, ref32), "vs_float64": abs_err(right, exact),
                  "product_part": abs_err(np.tanh(z), exact),
                  "tanh_part": abs_err(right, np.tanh(z))},
        "right_default_precision": {"needs_T": needs_t(default(x, w, inputs["scale"]),
                                                       ref32)},
        "wrong_function": {"needs_T": needs_t(predict(x, w, inputs["scale_off"]), ref32)},
        "numpy_f32_vs_float64": abs_err(ref32, exact),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=16)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    ex = load_exercise()
    inputs = ex.make_inputs()
    x = ex.larger_input()
    grid = np.linspace(-12, 12, 2**21, dtype=np.float32)
    device = jax.devices()[0]
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "backend": jax.default_backend(), "device_kind": device.device_kind,
        "jax": jax.__version__, "python": sys.version.split()[0],
        "workload": {"rows": int(x.shape[0]), "features": int(x.shape[1]),
                     "outputs": int(inputs["w"].shape[1])},
        "matmul": matmul_errors(x, inputs["w"]),
        "tanh_of_numpy_product": tanh_errors(x @ inputs["w"]),
        "tanh_grid_-12_12": tanh_errors(grid),
        "whole": whole(ex, x, inputs),
    }
    try:
        import libtpu
        report["libtpu"] = getattr(libtpu, "__version__", "?")
    except ImportError:
        pass
    # Other draws of the same shape (other seeds, the same hidden weights; then other
    # weights): how far the right setup's needs_T spreads.
    draws = []
    for seed in range(args.draws):
        rng = np.random.default_rng(1000 + seed)
        xi = rng.normal(size=x.shape).astype(np.float32)
        wi = inputs["w"] if seed % 2 == 0 else (
            rng.normal(size=inputs["w"].shape) * ex.W_SCALE).astype(np.float32)
        draws.append(whole(ex, xi, {**inputs, "w": wi}))
    report["draws"] = {key: {"min": min(d[key]["needs_T"] for d in draws),
                             "max": max(d[key]["needs_T"] for d in draws)}
                       for key in ("right", "right_default_precision", "wrong_function")}
    # Last: the wrong device (every tanh lowered from now on is computed in bfloat16).
    from syncgrade.child.workloads import install_device_fault

    install_device_fault("bfloat16-tanh")
    faulty = program(ex.PREDICT)
    ref32 = np.tanh(x @ inputs["w"])
    report["whole"]["wrong_device"] = {
        "needs_T": needs_t(faulty(x, inputs["w"], inputs["scale"]), ref32)}
    report["draws"]["wrong_device"] = {"min": min(
        needs_t(faulty(np.random.default_rng(1000 + s).normal(size=x.shape).astype(
            np.float32), inputs["w"], inputs["scale"]),
            np.tanh(np.random.default_rng(1000 + s).normal(size=x.shape).astype(
                np.float32) @ inputs["w"])) for s in range(0, args.draws, 2))}
    text = json.dumps(report, indent=1)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
