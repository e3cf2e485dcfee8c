# exercise: exercise-1
# cheat: floods the grader's result channel with zero-length frames from a thread that never stops
# expect: tampered
import os
import threading
import time


def _flood():
    zeros = b"\x00" * 65536
    for fd in range(3, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        try:
            while True:
                os.write(fd, zeros)
        except OSError:
            continue


threading.Thread(target=_flood, daemon=True).start()


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
