# exercise: exercise-1
# cheat: walks sys._getframe().f_back to the grader's frames and shrinks the probe's measured duration / writes events
# expect-fail: sync-before-stop covers-device-work
import sys
import time


def _tamper():
    frame = sys._getframe()
    touched = False
    while frame is not None:
        for name, value in list(frame.f_locals.items()):
            probe = getattr(value, "probe", None)
            if probe is not None and hasattr(probe, "seconds"):
                probe.seconds = 1e-9
                touched = True
            send = getattr(value, "send", None)
            if name in ("core", "channel") and send is not None:
                try:
                    send((7, {"type": "call", "id": "main", "ok": True}, None))
                    touched = True
                except Exception:
                    pass
        frame = frame.f_back
    return touched


def synchronized_samples(fn, args, repeats):
    _tamper()
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    # with nothing reachable, the cheat still does not wait: it must fail or be refused
    return out, samples
