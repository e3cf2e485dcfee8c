"""The child-side event log and report channel, sealed away from the learner's code.

Everything the instrumentation observes becomes a small dict with a ``seq`` taken from one
counter, so the parent can place any event inside or outside a timed interval exactly,
without comparing clocks. Events are plain dicts (not pydantic models) because they are
created on hot paths inside the learner's timed loop; the parent validates them into
:mod:`syncgrade.trace` models.

Sealing (docs/security.md, "The sealed recorder"). The learner's code runs in the same
interpreter and can reach the :class:`Recorder` (through the hooks' closures), so the
recorder holds no state of its own. The event log, the array tokens, the ``enabled`` flag,
the latest call's outputs, the report-channel key and the channel fd live in the locals of
one generator frame (:func:`_core`). A suspended generator's frame is reachable only through
``gi_frame``, which CPython audits and :mod:`syncgrade.child.guard` refuses. The core:

- accepts an event only from a grader hook: the code object of the frame that called
  :meth:`Recorder.emit` must be one of the registered hook codes, otherwise the attempt is
  recorded as tampering;
- re-checks, on every accepted event, that the hooks' closure cells and the grader
  modules' globals still hold what they held when the hooks were installed (cell writes and
  ``__globals__`` writes are not audited, so they are compared instead);
- accepts control operations (enable, reset, send a frame) only from the main thread,
  where no learner code runs (learner code runs on a worker thread, see ``__main__``), and
  only from the registered control code objects;
- writes every frame itself: ``seq`` + HMAC-SHA256 over the body with the job's key, in the
  strict order hello, load, one call frame per job call, end. A send out of that order is
  tampering. The body is encoded with the C JSON encoder only, after reducing every value
  to exact built-in types, so no learner-defined method ever runs inside the core's frame
  (a learner frame called from here would reach its locals through ``f_back``).
"""

from __future__ import annotations

import _json
import itertools
import operator
import os
import struct
import sys
import weakref
from collections.abc import Generator, Iterable
from types import FrameType
from typing import Any

Event = dict[str, Any]

# Operation codes for the core generator (ints: cheapest to send and compare).
EMIT, TOKEN, ENABLED, CALLED, READY, SET, RESET, SEND, PROTECT, STATUS, NOTE = range(11)


def _core(key: bytes, channel_fd: int, expected: tuple[str, ...], main_thread: int,
          control_codes: frozenset[Any], is_ready: Any, is_deleted: Any,
          array_type: type) -> Generator[Any, Any, None]:
    """The sealed state machine; see the module docstring. Uses only C callables bound to
    locals here, so nothing it calls can be replaced from learner code."""
    import _hashlib

    getframe = sys._getframe
    get_ident = __import__("_thread").get_ident
    write = os.write
    pack = struct.Struct(">I").pack
    digest = _hashlib.hmac_digest
    ref = weakref.ref
    is_ = operator.is_
    encode = _json.make_encoder(None, id, _json.encode_basestring_ascii, None, ":", ",",
                                False, False, True)
    str_type, list_type, tuple_type, dict_type = str, list, tuple, dict
    seq = itertools.count(1)
    next_token = itertools.count(1)
    tokens: dict[int, tuple[Any, int]] = {}
    events: list[Event] = []
    enabled = False
    latest_call: int | None = None
    latest_outputs: list[Any] = []
    tampered: list[str] = []
    hook_codes: frozenset[Any] = frozenset()
    emit_codes: frozenset[Any] = frozenset()
    # hook code -> (cells, their values, dict getters, keys, their values)
    checks: dict[Any, tuple[tuple[Any, ...], ...]] = {}
    get_cell = operator.attrgetter("cell_contents")
    call = operator.call
    frames_sent = 0
    ended = False
    reads: dict[int, Any] = {}
    int_type, float_type = int, float

    def clean(value: Any, depth: int = 0) -> Any:
        # Exact built-in types only: the C encoder then calls no Python-level method.
        kind = type(value)
        if kind is int or kind is float or kind is str_type or kind is bool or value is None:
            return value
        if depth > 12:
            return None
        if kind is list_type or kind is tuple_type:
            return [clean(item, depth + 1) for item in value]
        if kind is dict_type:
            return {k: clean(v, depth + 1) for k, v in dict_type.items(value)
                    if type(k) is str_type}
        return None

    def token(array: Any) -> int:
        key_ = id(array)
        entry = tokens.get(key_)
        if entry is not None and entry[0]() is array:
            return entry[1]
        new = next(next_token)
        # Not contextlib.suppress: that is Python code a learner could replace, and it
        # would run inside this frame.
        try:  # noqa: SIM105
            tokens[key_] = (ref(array), new)
        except TypeError:  # not weak-referenceable: the token is still unique
            pass
        return new

    def intact(code: Any) -> bool:
        # Only what this hook's code can reach: its closures' cells and the module
        # globals its code (and the grader helpers it calls) names. C loops only.
        entry = checks.get(code)
        if entry is None:
            return True
        cells, cell_values, gets, keys, values = entry
        return all(map(is_, map(get_cell, cells), cell_values)) and all(
            map(is_, map(call, gets, keys), values))

    reply: Any = None
    while True:
        try:
            message = yield reply
        except GeneratorExit:
            return
        except BaseException:  # a learner's gen.throw(): never let it out
            tampered.append("recorder: an exception was thrown into the event log")
            reply = None
            continue
        reply = None
        try:
            # Exact types first: a learner object here could run its own methods inside
            # this frame, where f_back would lead to the key.
            if type(message) is not tuple_type or not message or type(message[0]) is not int:
                tampered.append("recorder: a malformed request was sent")
                continue
            op = message[0]
            if op == EMIT:
                number = next(seq)
                reply = number
                if not enabled:
                    continue
                # One audited getframe and two f_code reads: f_back is not audited, and
                # every audited event costs a call of the guard's hook.
                sender = getframe(1)
                caller_frame = sender.f_back
                caller_code = None if caller_frame is None else caller_frame.f_code
                if sender.f_code not in emit_codes or caller_code not in hook_codes:
                    tampered.append("recorder: an event was sent by code that is not a "
                                    "grader hook")
                    continue
                if not intact(caller_code):
                    tampered.append("recorder: a hook's captured functions or globals "
                                    "were replaced")
                    continue
                fields = message[2]
                kind = message[1]
                if kind == "timer":
                    reads[number] = fields.get("value")
                elif kind == "pair":
                    # Both operands must be the reads they claim to be, value for value.
                    start, stop = fields.get("start"), fields.get("stop")
                    a, b = fields.pop("start_value", None), fields.pop("stop_value", None)
                    if (type(start) is not int_type or type(stop) is not int_type
                            or type(a) not in (int_type, float_type)
                            or type(b) not in (int_type, float_type)
                            or start not in reads or stop not in reads
                            or reads[start] != a or reads[stop] != b):
                        tampered.append("recorder: a subtraction of clock reads that were "
                                        "never made")
                        continue
                fields["seq"] = number
                fields["kind"] = kind
                events.append(fields)
            elif op == TOKEN:
                reply = token(message[1])
            elif op == ENABLED:
                reply = enabled
            elif op == CALLED:
                caller_frame = getframe(1).f_back
                if (caller_frame is not None and caller_frame.f_code in hook_codes
                        and type(message[2]) is list_type):
                    latest_call = message[1]
                    latest_outputs = [a for a in message[2] if type(a) is array_type]
            elif op == READY:
                caller_frame = getframe(1).f_back
                if not enabled or latest_call is None or caller_frame is None or (
                        caller_frame.f_code not in hook_codes):
                    continue
                ready = True
                for array in latest_outputs:
                    try:
                        # is_ready() on a deleted array segfaults: check is_deleted() first.
                        if is_deleted(array):
                            continue
                        if not is_ready(array):
                            ready = False
                    except Exception:  # donated or invalid: no claim
                        continue
                events.append({"seq": next(seq), "kind": "ready", "read": message[1],
                               "call": latest_call, "ready": ready})
            elif get_ident() != main_thread or getframe(1).f_code not in control_codes:
                tampered.append("recorder: a grader control step was called from "
                                "learner code")
            elif op == SET:
                enabled = message[1] is True
            elif op == RESET:
                events = []
                latest_outputs = []
                latest_call = None
            elif op == SEND:
                frame = clean(message[1])
                kind = frame.get("type") if type(frame) is dict_type else None
                position = frames_sent
                # hello, load, the job's calls in order, end (a load that failed skips
                # the calls; the parent checks that against the load frame).
                if ended or kind != ("hello" if position == 0 else "load" if position == 1
                                     else "end" if kind == "end" else "call") or (
                        kind == "call" and (position - 2 >= len(expected)
                                            or frame.get("id") != expected[position - 2])):
                    tampered.append(f"channel: a {kind} frame was sent out of order")
                    continue
                ended = kind == "end"
                if kind == "call":
                    frame["events"] = clean(events)
                if kind in ("load", "end") and tampered:
                    frame["tampered"] = [*frame.get("tampered", []), *tampered]
                learner = message[2]
                if type(learner) is str_type:
                    frame["learner"] = learner
                frames_sent += 1
                frame["seq"] = frames_sent
                body = "".join(encode(frame, 0)).encode()
                mac = digest(key, body, "sha256").hex().encode()
                payload = mac + body
                data = pack(len(payload)) + payload
                while data:
                    data = data[write(channel_fd, data):]
            elif op == PROTECT:
                hook_codes, more_control, emit_codes, protected = message[1:]
                control_codes = control_codes | more_control
                checks = {}
                for code, (cells, entries) in dict_type.items(protected):
                    checks[code] = (tuple(cells), tuple(map(get_cell, cells)),
                                    tuple(d.get for d, k in entries),
                                    tuple(k for d, k in entries),
                                    tuple(d.get(k) for d, k in entries))
            elif op == STATUS:
                reply = (frames_sent, tuple(tampered))
            elif op == NOTE:
                tampered.append(str_type.__str__(message[1]))
        except Exception as exc:  # a malformed message: refuse, never raise
            tampered.append(f"recorder: malformed request ({type(exc).__name__})")


class Recorder:
    """The hooks' view of the sealed core: sends facts, holds nothing worth changing.

    ``learner_files`` decides which clock reads count (a learner who removes their own
    file only hides their reads, which fails their checks).
    """

    __slots__ = ("_send", "learner_files")

    def __init__(self, core: Generator[Any, Any, None], learner_files: Iterable[str]) -> None:
        self._send = core.send
        self.learner_files = frozenset(learner_files)

    @property
    def enabled(self) -> bool:
        return bool(self._send((ENABLED,)))

    def emit(self, kind: str, **fields: Any) -> int:
        """Append one event (if recording is on) and return its sequence number."""
        return int(self._send((EMIT, kind, fields)))

    def token(self, array: Any) -> int:
        """A stable token for a live array object (``id()`` alone can be reused)."""
        return int(self._send((TOKEN, array)))

    def called(self, seq: int, outputs: list[Any]) -> None:
        """Call ``seq`` returned ``outputs``: the ones later readiness checks look at."""
        self._send((CALLED, seq, outputs))

    def readiness(self, read_seq: int) -> None:
        """Right after clock read ``read_seq``: record whether the latest call was done."""
        self._send((READY, read_seq))

    def learner_site(self, frame: FrameType | None) -> tuple[str, int] | None:
        """The innermost frame, starting at ``frame``, that belongs to the learner's code."""
        files = self.learner_files
        while frame is not None:
            name = frame.f_code.co_filename
            if name in files or name == "<timeit-src>":
                return (name, frame.f_lineno)
            frame = frame.f_back
        return None

    def caller_site(self, depth: int = 2) -> tuple[str, int] | None:
        return self.learner_site(sys._getframe(depth))


def new_core(key: bytes, channel_fd: int, call_ids: Iterable[str], main_thread: int,
             control_codes: frozenset[Any], is_ready: Any, is_deleted: Any,
             array_type: type) -> Generator[Any, Any, None]:
    """Start a sealed core (primed, ready for ``send``). Control operations are accepted
    from the main thread (``main_thread``) and from ``control_codes`` only; ``PROTECT``
    may add more codes."""
    core = _core(key, channel_fd, tuple(call_ids), main_thread, control_codes, is_ready,
                 is_deleted, array_type)
    next(core)
    return core


EMIT_CODES = frozenset({Recorder.emit.__code__, Recorder.called.__code__,
                        Recorder.readiness.__code__})
