# exercise: exercise-1
# cheat: shadows a builtin for the hooks while timing (caught as tampering), then puts a str-subclass key that hashes like `type` in front of it in the builtins' dict, so that the next lookup of `type` inside the sealed recorder core would run this __eq__ there and clear the core's list of tampering
# expect: tampered
import builtins
import sys
import time

import jax

real_isinstance = builtins.isinstance
hook_globals = jax.jit.__globals__
cleared = []


def isinstance(obj, kind):  # the shadow the recorder catches
    return real_isinstance(obj, kind)


class Collide(str):
    """Hashes like a builtin's name, never equal to it: a lookup of that name that meets
    this key first calls __eq__ with the looking-up frame below it."""

    def __hash__(self):
        return str.__hash__(self.split("~")[1])

    def __eq__(self, other):
        frame = sys._getframe(1)
        for _ in range(6):
            if frame is None:
                break
            names = frame.f_locals
            if "tampered" in names and "channel_fd" in names:
                names["tampered"].clear()  # the core's own list: hide what it caught
                cleared.append(1)
            frame = frame.f_back
        return False

    def __ne__(self, other):
        return True


def put_in_front(name):
    table = builtins.__dict__
    real = table.pop(name)
    table[Collide(f"{len(cleared)}.{id(real)}~{name}")] = None  # takes the first slot
    table[name] = real


def synchronized_samples(fn, args, repeats):
    hook_globals["isinstance"] = isinstance
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    del hook_globals["isinstance"]
    put_in_front("type")
    return out, samples
