# flaw: time.process_time counts CPU time of the process, not the time spent waiting
# expect-fail: samples-measured
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        begin = time.process_time()
        out = fn(*args)
        out.block_until_ready()
        end = time.process_time()
        samples.append(end - begin)
    return out, samples
