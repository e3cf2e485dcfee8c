# style: an asyncio benchmark: the wait runs in a worker thread (asyncio.to_thread), awaited
#   before the stop read
# expect: pass
import asyncio
import time


async def _samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        await asyncio.to_thread(out.block_until_ready)
        samples.append(time.perf_counter() - start)
    return out, samples


def synchronized_samples(fn, args, repeats):
    return asyncio.run(_samples(fn, args, repeats))
