# style: lowers the recursion limit and tunes the interpreter inside the function (not tampering)
# expect: pass
import gc
import sys
import time


def synchronized_samples(fn, args, repeats):
    sys.setrecursionlimit(45)
    sys.setswitchinterval(1e-4)
    gc.disable()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    gc.enable()
    return out, samples
