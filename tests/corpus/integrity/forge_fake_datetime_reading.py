# exercise: exercise-1
# cheat: hand-makes a datetime reading 50 ms after the real stop, with its seq and forged read values, so the recorded subtraction claims an interval that was never measured
# expect: tampered
from datetime import datetime, timedelta


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = datetime.now()
        out = fn(*args)
        stop = datetime.now()
        fake = stop + timedelta(milliseconds=50)  # a datetime the clock never returned
        slots = type(stop).__dict__
        ns, utc = slots["_reading"].__get__(stop)
        slots["seq"].__set__(fake, stop.seq)
        slots["_reading"].__set__(fake, (ns + 50_000_000, utc))
        samples.append((fake - start).total_seconds())
    return out, samples
