# flaw: a child process (`subprocess.run(["sleep", "0.02"])`) inside every sample, after
#   the output is ready: the timing thread waits 20 ms for another process's work
# expect-fail: interval-clean
# tpu-may-pass: interval-clean
import subprocess
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        subprocess.run(["sleep", "0.02"], check=False)
        samples.append(time.perf_counter() - start)
    return out, samples
