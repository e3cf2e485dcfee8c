# style: compiles every setting first and waits once, on the last warm-up output (the
#   device runs calls in order)
# expect: pass
import time


def sweep_samples(fn, args, settings, repeats):
    last = None
    for s in settings:
        last = fn(*args, s)  # compile every setting first
    last.block_until_ready()  # the device runs calls in order: the last covers them all
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
