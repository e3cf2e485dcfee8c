# style: a busy-wait pause before each sample (the clock read in a tight loop, tens of
#   thousands of reads between two samples), outside the timed interval
# expect: pass
import time

import jax


def _pause(seconds):
    # Spins instead of sleeping (keeps the CPU clocked up): reads the clock until it is time.
    begun = time.perf_counter()
    while time.perf_counter() - begun < seconds:
        pass


def device_resident_benchmark(fn, host_args, device, repeats):
    args = tuple(jax.device_put(a, device) for a in host_args)
    jax.block_until_ready(args)
    fn(*args).block_until_ready()
    samples = []
    out = None
    for _ in range(repeats):
        _pause(0.05)
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
