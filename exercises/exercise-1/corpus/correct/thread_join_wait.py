# style: each sample starts a thread that waits for the output and joins it before
#   the stop read
# expect: pass
import threading
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        waiter = threading.Thread(target=out.block_until_ready)
        waiter.start()
        waiter.join()
        samples.append(time.perf_counter() - start)
    return out, samples
