# flaw: the stop read is taken in a helper thread (joined) before the wait
# expect-fail: sync-before-stop covers-device-work
import threading
import time


def _read_clock_into(box):
    box.append(time.perf_counter())


def synchronized_samples(fn, args, repeats):
    samples, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)
        stop = []
        reader = threading.Thread(target=_read_clock_into, args=(stop,))
        reader.start()
        reader.join()
        out.block_until_ready()
        samples.append(stop[0] - t0)
    return out, samples
