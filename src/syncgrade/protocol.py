"""The child-to-parent wire protocol, defined once (stdlib only: the child imports it).

Frames. The sealed recorder core (``child/recorder.py``) writes every frame on the report
channel, and ``grading.frames.parse_frames`` reads them back. Each frame on the wire is a
:data:`HEADER` (the payload's length, 4 bytes, big-endian) and the payload: the hex
HMAC-SHA256 (:data:`MAC_SIZE` ASCII bytes, keyed with the job's key) of the body, then the
body, a JSON object whose ``type`` is one of :data:`FRAME_KINDS` and whose ``seq`` counts
the frames from 1.

Order: ``hello``, ``load``, one ``call`` frame per job call in job order (a ``call``
frame's ``id`` is the call's id), then ``end``; a load that failed skips the calls.
:func:`next_frames` is the one statement of that order, used by both sides: the child's
core does not know whether the load succeeded (``load_ok=None``: the next call or the end
may follow the load frame), the parent does.

Operation codes: the first item of every message sent to the core (ints: cheapest to send
and compare). Any other code is refused.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

# -- the event log ----------------------------------------------------------------------

JAX_OWN_CONVERSION = "jax's own numpy conversion"
"""The ``how`` of a wait event for a NumPy conversion of a list or tuple that jax's own
code made (tracing checks each shape tuple with ``np.array``, and an eager
``jnp.einsum`` does too, under the learner's line): recorded, so its CPU time is
explained as before, but no wait of the learner's, so the timeline never draws it."""


# -- the stack-dump pipe ----------------------------------------------------------------

SIGNAL_NOTE = "syncgrade: the submission's code may have signalled its own process"
"""Written (one line) on the stack-dump pipe by the child's audit hook before the
learner's code sends a signal (``os.kill``, ``os.killpg``, ``signal.pthread_kill``,
``signal.raise_signal``), starts a process or changes a resource limit: whatever then
ends the child with SIGKILL or SIGTERM may be the learner's own doing. Without it, such
an ending that the sandbox did not cause came from outside: a grader fault."""

# -- frames ---------------------------------------------------------------------------

HELLO, LOAD, CALL_FRAME, END = "hello", "load", "call", "end"
FRAME_KINDS = (HELLO, LOAD, CALL_FRAME, END)
# The length prefix in front of every payload.
HEADER = struct.Struct(">I")
# The hex HMAC-SHA256 in front of every body.
MAC_ALGORITHM = "sha256"
MAC_SIZE = 64

def next_frames(sent: int, call_ids: Sequence[str], load_ok: bool | None = None,
                ended: bool = False) -> tuple[tuple[str, str | None], ...]:
    """The frames that may come next, as ``(kind, call id or None)``, after ``sent``
    frames (``ended``: the last was ``end``; nothing follows it). ``load_ok``: whether the
    load frame said the load succeeded (None: not known, so after the load frame either
    the next call or the end may come; False: the end only).

    Runs inside the sealed recorder core (a copy whose globals hold only these constants
    and ``len``): it must use nothing but its arguments, exact built-in operations and the
    module constants it names."""
    if ended:
        return ()
    if sent == 0:
        return ((HELLO, None),)
    if sent == 1:
        return ((LOAD, None),)
    index = sent - 2
    if load_ok is False or index >= len(call_ids):
        return ((END, None),)
    if load_ok is True:
        return ((CALL_FRAME, call_ids[index]),)
    return ((CALL_FRAME, call_ids[index]), (END, None))


# The names :func:`next_frames` looks up (its sealed copy's globals hold these only).
NEXT_FRAMES_GLOBALS = ("HELLO", "LOAD", "CALL_FRAME", "END")

# -- the core's operation codes -------------------------------------------------------

# Sent by Recorder methods (EMIT, TOKEN, ENABLED) and by the grader's control steps (SET,
# RESET, SEND, PROTECT, STATUS, NOTE; main thread and control codes only).
EMIT, TOKEN, ENABLED, SET, RESET, SEND, PROTECT, STATUS, NOTE = range(9)
# The hooks' operations, each sent by the hook itself (see REGISTER): a clock read with
# its readiness check, an event whose site the core finds, a finished jitted call, the
# withdrawal of a wait recorded before it waited, and a compilation. Retired, now
# refused: 12 (a separate return) and 16 (a subtraction).
TIMER, SITED, CALL, CANCEL, COMPILE = 11, 13, 15, 17, 18
# The hooks that send to the core themselves, and the event kinds each one's code sends.
REGISTER = 14
# A control step: the callables the grader hands to the learner in the coming call.
DESIGNATE = 19
