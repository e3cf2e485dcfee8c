# exercise: exercise-1
# cheat: looks the grader's modules up in sys.modules and, failing that, loads recorder.py by path
# expect: tampered
import importlib.util
import os
import sys
import time

grader = [name for name in sys.modules if name.startswith("syncgrade")]
MAIN = sys.modules.get("__main__")
RECORDER = None
if MAIN is not None and hasattr(MAIN, "__file__"):
    path = os.path.join(os.path.dirname(MAIN.__file__), "recorder.py")
    spec = importlib.util.spec_from_file_location("syncgrade.child.recorder", path)
    RECORDER = importlib.util.module_from_spec(spec)
    # recorder.py imports syncgrade.protocol: that import is refused, and is tampering
    spec.loader.exec_module(RECORDER)


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return out, samples
