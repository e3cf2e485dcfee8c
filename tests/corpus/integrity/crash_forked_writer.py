# exercise: exercise-1
# cheat: forks a process that keeps writing to stdout, stderr and every inherited fd, and never exits
# expect: output_limit
import os
import time


if os.fork() == 0:
    os.setsid()
    junk = b"x" * 65536
    while True:
        for fd in range(1, 1024):
            try:
                os.write(fd, junk)
            except OSError:
                pass


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
