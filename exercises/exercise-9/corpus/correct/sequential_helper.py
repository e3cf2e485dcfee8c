# style: each setting warmed up and waited on, then timed through a helper
# expect: pass
"""Each setting warmed up and waited on, then timed through a helper."""
import time


def _timed(fn, args, setting):
    start = time.perf_counter()
    out = fn(*args, setting)
    out.block_until_ready()
    return out, time.perf_counter() - start


def sweep_samples(fn, args, settings, repeats):
    outputs, samples = [], []
    for setting in settings:
        fn(*args, setting).block_until_ready()  # compile this static value first
        pairs = [_timed(fn, args, setting) for _ in range(repeats)]
        outputs.append(pairs[-1][0])
        samples.append([seconds for _, seconds in pairs])
    return outputs, samples
