# style: hands each sample's wait to a one-thread executor and waits for its
#   result() before the stop read
# expect: pass
import time
from concurrent.futures import ThreadPoolExecutor


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        for _ in range(repeats):
            start = time.perf_counter()
            out = fn(*args)
            pool.submit(out.block_until_ready).result()
            samples.append(time.perf_counter() - start)
    return out, samples
