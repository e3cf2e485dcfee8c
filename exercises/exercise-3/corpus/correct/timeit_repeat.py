# style: timeit.repeat with number=1 around a lambda that waits, inputs placed one by one
# expect: pass
import timeit

import jax
import numpy as np


def device_resident_benchmark(fn, host_args, device, repeats):
    placed = []
    for a in host_args:
        placed.append(jax.device_put(a, device).block_until_ready())
    fn(*placed).block_until_ready()  # warm-up
    samples = timeit.repeat(lambda: fn(*placed).block_until_ready(), number=1, repeat=repeats)
    return fn(*placed), samples


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    import jax.numpy as jnp

    f = jax.jit(lambda x, w: jnp.tanh(x @ w))
    print(device_resident_benchmark(f, (x_host, w_host), jax.devices("cpu")[0], 5)[1])
