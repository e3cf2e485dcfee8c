# style: datetime.now() readings, samples from (stop - start).total_seconds()
# expect: pass
from datetime import datetime


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        begin = datetime.now()
        out = fn(*args)
        out.block_until_ready()
        end = datetime.now()
        samples.append((end - begin).total_seconds())
    return out, samples
