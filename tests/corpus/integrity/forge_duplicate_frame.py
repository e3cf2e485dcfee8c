# exercise: exercise-1
# cheat: replays a copy of the grader's own first frame (as if duplicated) onto the channel fds, then finishes normally
# expect: tampered
import os
import resource
import struct
import time


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    # a frame-shaped record with a MAC-sized prefix, as a duplicate of an earlier frame
    body = b"0" * 64 + b'{"type":"call","id":"main","ok":true,"seq":3}'
    sent = 0
    # Every open fd: the channel's number is whatever the grading process's pipe got.
    for fd in range(3, min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1 << 16)):
        try:
            os.fstat(fd)
            _write_all(fd, struct.pack(">I", len(body)) + body)
            sent += 1
        except OSError:
            pass
    if not sent:
        raise RuntimeError("the forgery reached no fd")  # the cheat failed, not the grader
    return out, samples


def _write_all(fd, data):
    # The report channel may be full (the grader still reading the large result frame, on
    # a loaded machine): wait for room, so the forgery is always sent and always judged.
    deadline = time.monotonic() + 10
    while data:
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.001)
