# style: the lesson's reference solution ("Repeat the benchmark with 96 rows"), ported to the
#        interface with only the renames it needs (96 -> rows, 5 -> repeats, cpu -> device):
#        sample first, then the independent NumPy check on the last timed result, which
#        raises before the timings are reported or returned
# expect: pass
import time

import jax
import numpy as np


def synchronized_samples(fn, args, repeats):
    # The lesson's helper: each sample runs from just before the call until its output
    # is ready.
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    # Place `larger` explicitly onto the target JAX device.
    larger = jax.device_put(larger_host, device)
    # Synchronize host execution until asynchronous device computation completes.
    larger.block_until_ready()
    # Synchronize host execution until asynchronous device computation completes.
    compiled_predict(larger, w).block_until_ready()
    larger_result, larger_times = synchronized_samples(compiled_predict, (larger, w), repeats)
    # Convert to a host NumPy array for inspection or verification.
    np.testing.assert_allclose(np.asarray(larger_result), np.tanh(larger_host @ w_host),
                               atol=2e-5, rtol=2e-5)
    print("Changed workload:", larger.shape, larger_times)
    return larger_host, larger_result, larger_times
