# flaw: out.copy_to_host_async() only starts a copy to the host; it does not wait
# expect-fail: sync-before-stop covers-device-work
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.copy_to_host_async()
        samples.append(time.perf_counter() - start)
    return out, samples
