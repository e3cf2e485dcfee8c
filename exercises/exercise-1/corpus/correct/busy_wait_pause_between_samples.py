# style: a busy-wait pause before each sample (the clock read in a tight loop, tens of
#   thousands of reads between two samples), outside the timed interval
# expect: pass
import time


def _pause(seconds):
    # Spins instead of sleeping (keeps the CPU clocked up): reads the clock until it is time.
    begun = time.perf_counter()
    while time.perf_counter() - begun < seconds:
        pass


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        _pause(0.05)
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
