"""Stage 5: the child's frames, authenticated and validated under the strict protocol
(hello, load, calls, end), within the parse budget."""

from __future__ import annotations

import dataclasses
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from syncgrade import protocol, sandbox
from syncgrade.grading.run import ChildRun
from syncgrade.trace import CallFrame, End, Frame, Hello, Load

_FRAMES: TypeAdapter[Any] = TypeAdapter(Frame)

@dataclass(frozen=True)
class Frames:
    """The child's frames, validated, and what was wrong with the channel."""

    hello: Hello | None
    load: Load | None
    calls: dict[str, CallFrame]
    end: End | None
    rejected: int
    tampering: str | None  # why the channel cannot be trusted; None when it can

CHANNEL_TAMPERED = "report channel"

_LEARNER_KEYS = ("ok", "value", "error", "problems")

def parse_frames(raw: Sequence[bytes], key: bytes, call_ids: Sequence[str], *,
                 clean_exit: bool = False, incomplete: bool = False) -> Frames:
    """Authenticate and validate the child's frames under the strict protocol.

    The child writes exactly: ``hello``, ``load``, then (when the load succeeded) one
    ``call`` frame per job call in job order, then ``end``. Each frame is the hex
    HMAC-SHA256 of its body followed by the body, a JSON object whose ``seq`` counts the
    frames from 1. A bad MAC, a wrong ``seq``, a frame of the wrong kind or for the wrong
    call, anything after ``end``, or a torn last frame from a child that exited cleanly
    (the grader writes whole frames) sets ``tampering``: only learner code writing to the
    channel can cause them. A child that died part-way only leaves a valid prefix, which
    is not tampering. ``learner`` in a body is the worker's JSON text (value, error,
    problems), merged under the grader's own keys.
    """
    hello = load = end = None
    calls: dict[str, CallFrame] = {}
    rejected = 0
    tampering: str | None = None
    load_ok = False
    for index, payload in enumerate(raw):
        position = index + 1
        mac, body = payload[:protocol.MAC_SIZE], payload[protocol.MAC_SIZE:]
        expected_mac = hmac.new(key, body, protocol.MAC_ALGORITHM).hexdigest().encode()
        if end is not None:
            tampering = f"frame {position} came after the end frame"
            break
        if not hmac.compare_digest(mac, expected_mac):
            tampering = f"frame {position} was not written by the grader"
            break
        try:
            data = json.loads(body)
        except ValueError:
            tampering = f"frame {position} is not valid JSON"
            break
        calls_done = len(calls)
        # The one frame that may come next (the load's outcome is known here).
        ((want, want_id),) = protocol.next_frames(index, call_ids, load_ok)
        if (not isinstance(data, dict) or data.get("seq") != position
                or data.get("type") != want
                or (want == protocol.CALL_FRAME and data.get("id") != want_id)):
            tampering = f"frame {position} is out of order or repeated"
            break
        learner = data.pop("learner", None)
        if isinstance(learner, str):
            try:
                part = json.loads(learner)
            except ValueError:
                part = {}
            if isinstance(part, dict):
                for name in _LEARNER_KEYS:
                    if name in part and name not in data:
                        data[name] = part[name]
        if want in ("load", "call"):
            data.setdefault("ok", False)
        if want == "load":
            load_ok = data.get("ok") is True
        try:
            frame = _FRAMES.validate_python(data)
        except ValidationError:
            rejected += 1
            if want == "call":  # keep the position: the next frame is the next call
                calls[call_ids[calls_done]] = CallFrame(
                    type="call", id=call_ids[calls_done], ok=False,
                    grader_error="the child's frame for this call was invalid")
            continue
        if isinstance(frame, Hello):
            hello = frame
        elif isinstance(frame, Load):
            load = frame
        elif isinstance(frame, CallFrame):
            calls[frame.id] = frame
        elif isinstance(frame, End):
            end = frame
    if tampering is None and incomplete and clean_exit:
        tampering = "the channel ended inside a frame although the child exited normally"
    return Frames(hello, load, calls, end, rejected, tampering)

PARSE_BUDGET = 500_000
"""JSON values the parent validates per grade, counted as commas plus braces of the raw
frames. Validating costs up to ~4 us a value on a busy 2-core machine, so this keeps
parsing under ~2 s even for 32 MiB of the cheapest events; an honest trace of thousands of
timed calls uses a few percent of it."""

def within_parse_budget(outcome: sandbox.SandboxOutcome) -> sandbox.SandboxOutcome:
    """``outcome`` with the frames that fit in :data:`PARSE_BUDGET`, in order; if any
    frame did not fit, it and every later one are dropped and ``frames_truncated`` is
    set, exactly as if the sandbox's result cap had stopped them (same report)."""
    spent = 0
    for index, payload in enumerate(outcome.frames):
        spent += payload.count(b",") + payload.count(b"{")
        if spent > PARSE_BUDGET:
            return dataclasses.replace(outcome, frames=outcome.frames[:index],
                                       frames_truncated=True)
    return outcome

def said_hello(frames: Sequence[bytes]) -> bool:
    """Whether the child got as far as its ``hello`` frame, the first thing it sends and
    before any learner code is read (so learner code cannot take it away). Not
    authenticated on purpose: a forged hello could only make a grader fault look like
    the learner's, never the reverse. Reads the body after the 64-hex MAC (parse_frames),
    or the bare frame."""
    for payload in frames[:2]:
        for body in (payload[64:], payload):
            try:
                data = json.loads(body)
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("type") in ("hello", "load"):
                return True
    return False

def parse_run(run: ChildRun) -> Frames:
    outcome = within_parse_budget(run.outcome)
    return parse_frames(outcome.frames, run.key, run.call_ids,
                        clean_exit=outcome.termination == "exited"
                        and outcome.returncode == 0,
                        incomplete=outcome.frames_incomplete)

def telling_outcome(outcomes: Sequence[sandbox.SandboxOutcome]) -> sandbox.SandboxOutcome:
    """The outcome a report describes: the first child that did not finish normally or
    sent too much, else the first child (its output is the main call's), with the
    learner's stdout and stderr of every child, in call order."""
    budgeted = [within_parse_budget(o) for o in outcomes]
    telling = next((o for o in budgeted if o.termination != "exited" or o.frames_truncated),
                   budgeted[0])
    if len(budgeted) == 1:
        return telling
    return dataclasses.replace(telling,
                               stdout=_joined([o.stdout for o in budgeted]),
                               stderr=_joined([o.stderr for o in budgeted]))

def _joined(parts: Sequence[sandbox.Captured]) -> sandbox.Captured:
    """One stream from the children's excerpts (each already bounded by the sandbox)."""
    return sandbox.Captured(text="".join(p.text for p in parts),
                            truncated=any(p.truncated for p in parts),
                            total_bytes=sum(p.total_bytes for p in parts))
