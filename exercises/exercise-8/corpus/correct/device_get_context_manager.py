# style: jax.device_get readback inside a context-manager timer on time.monotonic
# expect: pass
import time

import jax


class Timer:
    def __enter__(self):
        self.t0 = time.monotonic()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.monotonic() - self.t0
        return False


def end_to_end_samples(fn, host_args, device, repeats):
    placed = [jax.device_put(a, device) for a in host_args]
    jax.block_until_ready(fn(*placed))
    samples = []
    host_result = None
    for _ in range(repeats):
        with Timer() as t:
            on_device = [jax.device_put(a, device) for a in host_args]
            host_result = jax.device_get(fn(*on_device))
        samples.append(t.elapsed)
    return host_result, samples
