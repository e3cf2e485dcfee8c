# flaw: never places the inputs; warm-up and timed calls get the NumPy arrays, so every
#       interval contains an implicit host-to-device transfer
# expect-fail: inputs-ready placement-excluded
import time


def device_resident_benchmark(fn, host_args, device, repeats):
    fn(*host_args).block_until_ready()

    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*host_args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
