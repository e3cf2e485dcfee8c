# style: waits on the output's first shard, out.addressable_data(0).block_until_ready()
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.addressable_data(0).block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples
