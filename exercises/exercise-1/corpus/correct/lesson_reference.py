# style: the lesson's synchronized_samples, as its formula defines a warm sample
#        (t_ready - t_start: from just before the call until its output is ready),
#        the helper every reference solution of the lesson calls
# expect: pass
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
