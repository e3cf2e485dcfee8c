# style: the lesson's reference solution ("Benchmark a different equivalent workload"),
#        ported to the interface with only the renames it needs: `energy` is the lesson's
#        module-level jit, the reference a function of the host copies, 5 -> repeats and
#        the shape check (64,) -> (rows,)
# expect: pass
# tpu-may-fail: runs
import time

import jax
import jax.numpy as jnp
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


# Wrap with `jax.jit` (`energy`) so XLA traces and compiles the function.
energy = jax.jit(lambda a, b: jnp.sum((a @ b)**2, axis=1))


def energy_reference(a_host, b_host):
    # Reduce along axis=1 to compute `energy_reference`.
    return np.sum((a_host @ b_host)**2, axis=1)


def benchmark_energy(x, w, repeats):
    # Synchronize host execution until asynchronous device computation completes.
    energy(x, w).block_until_ready()
    energy_result, energy_times = synchronized_samples(energy, (x, w), repeats)
    reference = energy_reference(np.asarray(x), np.asarray(w))
    # Check tensor shape invariant: one energy per row.
    assert energy_result.shape == (x.shape[0],)
    # Convert to a host NumPy array for inspection or verification.
    np.testing.assert_allclose(np.asarray(energy_result), reference, atol=2e-3, rtol=2e-5)
    print("Energy shape and samples:", energy_result.shape, energy_times)
    return energy_result, energy_times
