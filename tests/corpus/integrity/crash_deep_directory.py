# exercise: exercise-1
# cheat: leaves a 5000-deep directory tree (with a read-only file at the bottom) in the workdir
# expect-fail: sync-before-stop covers-device-work
import os
import time

here = os.getcwd()
for _ in range(5000):
    os.mkdir("a")
    os.chdir("a")
with open("deep.txt", "w") as handle:
    handle.write("x")
os.chmod("deep.txt", 0o400)
os.chmod(".", 0o500)
os.chdir(here)


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        stop = time.perf_counter()
        samples.append(stop - start)
    return out, samples
