# flaw: neither the args nor the warm-up output are waited on before the first start read
# expect-fail: inputs-ready warmup-excluded
# may-fail: sample-duration
import time


def repaired_benchmark(fn, args, repeats=5):
    fn(*args)  # warm-up, but nothing waits for it (or for the args it consumed)
    samples = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        result.block_until_ready()
        samples.append(time.perf_counter() - start)
    return {"boundary": {"dispatch", "device execution", "output wait"}, "samples": samples}, result
