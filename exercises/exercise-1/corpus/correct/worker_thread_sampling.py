# style: the whole timed loop runs in a one-thread executor's worker; the caller waits on
#   its result()
# expect: pass
import time
from concurrent.futures import ThreadPoolExecutor


def _sample(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - t0)
    return out, samples


def synchronized_samples(fn, args, repeats):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_sample, fn, args, repeats).result()
