# flaw: each setting is warmed up on a slice of the input: another shape, so every setting
#   compiles again in its first sample
# expect-fail: warmup-excluded
import time


def sweep_samples(fn, args, settings, repeats):
    first, *rest = args
    for s in settings:
        fn(first[:8], *rest, s).block_until_ready()
    outputs, samples = [], []
    for s in settings:
        row, out = [], None
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = fn(*args, s)
            out.block_until_ready()
            row.append(time.perf_counter() - t0)
        outputs.append(out)
        samples.append(row)
    return outputs, samples
