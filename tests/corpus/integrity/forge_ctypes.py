# exercise: exercise-1
# cheat: uses ctypes to read raw memory (to find the channel key) and /proc/self/mem
# expect: tampered
import ctypes
import time

try:
    ctypes.string_at(id(time.perf_counter), 64)
except Exception:
    pass
try:
    with open("/proc/self/mem", "rb") as handle:
        handle.read(1)
except Exception:
    pass


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples
