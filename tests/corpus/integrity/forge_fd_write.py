# exercise: exercise-1
# cheat: writes forged, well-formed report frames (full marks) to every open fd from 3 up, then exits at once
# expect: tampered
import json
import os
import resource
import struct
import time


def _frame(body):
    payload = json.dumps(body).encode()
    return struct.pack(">I", len(payload)) + payload


def synchronized_samples(fn, args, repeats):
    out = fn(*args)
    out.block_until_ready()
    samples = [0.01] * repeats
    forged = b"".join([
        _frame({"type": "call", "id": "main", "ok": True, "events": [], "value": None}),
        _frame({"type": "call", "id": "probe", "ok": True, "events": []}),
        _frame({"type": "end", "tampered": []}),
    ])
    sent = 0
    # Every open fd: the channel's number is whatever the grading process's pipe got.
    for fd in range(3, min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1 << 16)):
        try:
            os.fstat(fd)
            data = forged
            while data:  # a full channel takes the frames in parts
                data = data[os.write(fd, data):]
            sent += 1
        except OSError:
            pass
    if not sent:
        raise RuntimeError("the forgery reached no fd")  # the cheat failed, not the grader
    os._exit(0)
