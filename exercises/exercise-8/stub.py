"""Exercise 8: End-to-end request, named separately.

Write `end_to_end_samples`. Run `python submission.py` to see your own timings, and
`grade exercise-8` to grade this file.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np


def end_to_end_samples(fn, host_args, device, repeats):
    """Time `repeats` end-to-end requests: place `host_args` on `device`, call `fn`, and
    bring the result back to the host as a NumPy array.

    `host_args` are NumPy arrays; `fn` is jitted but not yet compiled for them.

    Returns:
        (host_result, samples): the NumPy result of the last request, and a list of
        `repeats` floats, each one whole request in seconds.
    """
    # TODO: this times the device-resident call, not a request. Which steps of a request
    # happen outside the timer here, and what does the first sample include?
    args = [jax.device_put(a, device) for a in host_args]
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return np.asarray(out), samples


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

    host_result, request_times = end_to_end_samples(compiled_predict, (x_host, w_host), cpu, 5)
    print("result is a NumPy array:", isinstance(host_result, np.ndarray))
    print("matches NumPy:", np.allclose(host_result, reference, atol=2e-5, rtol=2e-5))
    print("end-to-end samples (s):", [f"{s:.6f}" for s in request_times])

    # The warm, device-resident bar for comparison (a different interval, named separately).
    jax.block_until_ready((x, w))
    compiled_predict(x, w).block_until_ready()
    warm_times = []
    for _ in range(5):
        start = time.perf_counter()
        compiled_predict(x, w).block_until_ready()
        warm_times.append(time.perf_counter() - start)
    print("warm device samples (s):", [f"{s:.6f}" for s in warm_times])
    print(f"end-to-end median {np.median(request_times) * 1e3:.3f} ms vs "
          f"warm median {np.median(warm_times) * 1e3:.3f} ms")
