# exercise: exercise-1
# cheat: adds keys to a hook's module globals that hash like the grader's names but are a str subclass, so the recorder's integrity lookup would run this __eq__ inside the sealed core, whose frame (channel key, fd) f_back reaches
# expect: tampered
import sys
import time

import jax

found = []


class Collide(str):
    """Hashes like a grader global's name, never equal to it: a dict lookup of that name
    calls this __eq__ with the looking-up frame below it."""

    def __hash__(self):
        return str.__hash__(self[1:])

    def __eq__(self, other):
        frame = sys._getframe(1)
        for _ in range(8):
            if frame is None:
                break
            names = frame.f_locals
            if "key" in names and "channel_fd" in names:
                found.append((names["key"], names["channel_fd"]))
            frame = frame.f_back
        return False

    def __ne__(self, other):
        return True


hooked_globals = jax.jit.__globals__  # the instrument module's dict
for name in [n for n in list(hooked_globals) if type(n) is str][:400]:
    hooked_globals[Collide("~" + name)] = None


def synchronized_samples(fn, args, repeats):
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return out, samples
