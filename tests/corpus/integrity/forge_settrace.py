# exercise: exercise-1
# cheat: installs a tracer and a profiler to see the grader's frames and locals, and a second audit hook
# expect: tampered
import sys
import threading
import time

SEEN = []
for install in (sys.settrace, sys.setprofile):
    try:
        install(lambda frame, event, arg: SEEN.append(frame.f_locals))
    except Exception:
        pass
try:
    sys.addaudithook(lambda event, args: SEEN.append(event))
except Exception:
    pass
try:
    sys._current_frames()
except Exception:
    pass


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples
