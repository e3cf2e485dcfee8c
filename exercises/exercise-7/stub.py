"""Exercise 7: A reproducible report: first call and warm distributions.

Write `timing_report`. Run `python submission.py` to print your report, and
`grade exercise-7` to grade this file.
"""

import json
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np


def timing_report(make_fn, args, first_repeats, warm_repeats):
    """Time first calls (a fresh `make_fn()` each) and warm calls (one callable, warmed).

    `make_fn()` returns a fresh jitted function whose first call traces and compiles;
    `args` are placed on the device.

    Returns:
        A JSON-serializable dict with `first_call_s`, `warm_s` (lists of seconds),
        `first_call_median_s`, `warm_median_s`, `compile_estimate_s` (floats),
        `environment` (`jax_version`, `backend`, `device`), `workload` (`shapes`,
        `dtypes`) and `boundary` (a list of the phases a warm interval contains).
    """
    jax.block_until_ready(args)

    # TODO: do all of these samples include a compilation?
    fn = make_fn()
    first_call_s = []
    for _ in range(first_repeats):
        start = time.perf_counter()
        fn(*args).block_until_ready()
        first_call_s.append(time.perf_counter() - start)

    # TODO: when does each warm sample stop?
    warm_s = []
    for _ in range(warm_repeats):
        start = time.perf_counter()
        fn(*args)
        warm_s.append(time.perf_counter() - start)

    first_call_median_s = statistics.median(first_call_s)
    warm_median_s = statistics.median(warm_s)
    return {
        "first_call_s": first_call_s,
        "warm_s": warm_s,
        "first_call_median_s": first_call_median_s,
        "warm_median_s": warm_median_s,
        "compile_estimate_s": first_call_median_s - warm_median_s,
        # TODO: record the real environment.
        "environment": {"jax_version": "TODO", "backend": "TODO", "device": "TODO"},
        "workload": {
            "shapes": [list(a.shape) for a in args],
            "dtypes": [str(a.dtype) for a in args],
        },
        "boundary": [],  # TODO: the phases a warm interval contains
    }


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    reference = np.tanh(x_host @ w_host)

    def make_predict():
        # A new lambda each time, so each callable traces and compiles on its first call.
        return jax.jit(lambda x, w: jnp.tanh(x @ w))

    report = timing_report(make_predict, (x, w), 3, 20)
    print(json.dumps(report, indent=2))
    print(f"first call: {report['first_call_median_s'] * 1e3:.3f} ms, "
          f"warm: {report['warm_median_s'] * 1e3:.3f} ms")
