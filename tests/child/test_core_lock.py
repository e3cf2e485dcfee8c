"""Every hook sends to the recorder core holding the recorder's lock.

The core is a generator: a send while another thread is inside it raises "generator
already executing". A correct submission whose background thread read clocks crashed the
grader's own control step that way (0/10, "the process exited early"). Two threads now
never meet inside the core: every send holds ``Recorder._lock``.

Whether two threads actually collide is a matter of thread switches, so an end-to-end
grade catches a missing lock only now and then
(``exercises/exercise-1/corpus/correct/background_clock_thread.py`` and
``test_overhead_integrity.test_a_learner_thread_reading_clocks_never_crashes_the_grade``).
This test is exact: in a fresh interpreter it installs the hooks on a recorder whose send
notes every message sent without the lock held by the sending thread, runs every hook
from code in a learner file (a clock read, a jitted call, each wait, a wait that raises,
a placement, a NumPy conversion, a compilation), and expects none.
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = r'''
import _thread, json, os, sys, time
import jax, jax.numpy as jnp, numpy as np
from syncgrade.child import instrument, recorder as rec

class NotingLock:
    """An RLock that knows which thread holds it."""
    def __init__(self):
        self._lock, self.owner, self.depth = _thread.RLock(), None, 0
    def __enter__(self):
        self._lock.acquire()
        self.owner, self.depth = _thread.get_ident(), self.depth + 1
        return self
    def __exit__(self, *exc):
        self.depth -= 1
        if not self.depth:
            self.owner = None
        self._lock.release()

here = sys._getframe().f_code
at = instrument.ArrayImpl
core = rec.new_core(b"k" * 32, os.open(os.devnull, os.O_WRONLY), ["c1"], _thread.get_ident(),
                    frozenset({here}), at.__dict__["is_ready"], at.__dict__["is_deleted"], at)
recorder = rec.Recorder(core, {"learner.py"})
lock, send, unlocked, sent = NotingLock(), recorder._send, [], []

def noting_send(message):
    sent.append(message[0])
    if lock.owner != _thread.get_ident():
        unlocked.append(message[0])
    return send(message)

recorder._send, recorder._lock = noting_send, lock
installation = instrument.install(recorder)
with lock:
    send((rec.SET, True))
LEARNER = """
start = time.perf_counter()
double = jax.jit(lambda a: a * 2.0)
y = double(jnp.ones(3))                  # compiles: CALL and COMPILE
y.block_until_ready()
y.is_ready()
np.asarray(y)
jax.device_put(np.ones(3))
jnp.asarray(np.ones(3))
double(jnp.ones(1)).item()
jax.block_until_ready([y])
gone = double(jnp.ones(3))
gone.block_until_ready()
gone.delete()
try:
    gone.block_until_ready()             # raises: its wait is withdrawn (CANCEL)
except Exception:
    pass
time.perf_counter() - start
"""
exec(compile(LEARNER, "learner.py", "exec"), {"time": time, "jax": jax, "jnp": jnp, "np": np})
print(json.dumps({"unlocked": unlocked, "sent": sorted(set(sent))}))
'''


def test_every_hook_sends_to_the_core_holding_the_recorders_lock() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # Every hook operation was exercised: clock reads (11), sited waits and placements
    # (13), calls (15), a withdrawn wait (17), compilations (18).
    assert {11, 13, 15, 17, 18} <= set(result["sent"]), result
    assert result["unlocked"] == [], result
