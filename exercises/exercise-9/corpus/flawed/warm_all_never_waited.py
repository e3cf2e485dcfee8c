# flaw: compiles every setting first but waits for none of the warm-ups: their device
#   work may run into the first samples
# expect-fail: warmup-excluded
import time


def sweep_samples(fn, args, settings, repeats):
    for s in settings:
        fn(*args, s)  # compile every setting first (not waited)
    outputs, samples = [], []
    for s in settings:
        row = []
        out = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn(*args, s)
            out.block_until_ready()
            row.append(time.perf_counter() - t0)
        outputs.append(out)
        samples.append(row)
    return outputs, samples
