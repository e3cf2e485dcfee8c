# exercise: exercise-1
# cheat: writes forged, well-formed report frames (full marks) to every fd 3..64, then exits at once
# expect: tampered
import json
import os
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
    for fd in range(3, 65):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    os._exit(0)
