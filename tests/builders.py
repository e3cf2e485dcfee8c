"""Shared test builders: hand-written child events, traces, rubric contexts, and waiting.

Events are the dicts the child records (see :mod:`syncgrade.trace`), built without a child:

    from builders import call, context, read, ret, trace, wait
    events = trace(read(1.0), call([1]), ret(2, [7]), wait([7]), read(1.5))
    ctx = context("exercise-1", events)

The module-level builders place their events at the default lines of a short submission
(clock reads on line 1, the call and placements on 2, waits on 3). A test whose traces
read as a longer file makes its own :class:`Events` with other default lines; a line given
to a builder always wins. :func:`wait_until` polls a condition instead of sleeping a
fixed time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from syncgrade.trace import CallFrame, Event, Load

if TYPE_CHECKING:
    from syncgrade.models import GradeReport
    from syncgrade.rubric.base import Context

F = "submission.py"
"""The display name every hand-written trace is sited in."""

NO_VALUE: dict[str, Any] = {"t": "none"}
"""A call frame's encoded ``None``."""

_EVENTS: TypeAdapter[list[Any]] = TypeAdapter(list[Event])
_UNSET: Any = object()


def trace(*raw: dict[str, Any]) -> list[Any]:
    """Validated events from raw dicts, numbered ``seq`` 1, 2, ... in order."""
    return _EVENTS.validate_python([{"seq": i + 1, **e} for i, e in enumerate(raw)])


def validated(raw: list[dict[str, Any]]) -> list[Any]:
    """Validated events from raw dicts that carry their own ``seq``."""
    return _EVENTS.validate_python(raw)


@dataclass(frozen=True)
class Events:
    """Event builders whose sites default to the given lines of :data:`F`."""

    read_line: int = 1
    call_line: int = 2
    wait_line: int = 3
    put_line: int = 2
    compile_line: int = 2

    def read(self, value: float, line: int | None = None,
             clock: str = "perf_counter") -> dict[str, Any]:
        return {"kind": "timer", "clock": clock, "value": value,
                "site": [F, self.read_line if line is None else line]}

    def call(self, inputs: list[int], line: int | None = None, numpy_args: int = 0,
             name: str = "fn") -> dict[str, Any]:
        return {"kind": "call", "name": name,
                "site": [F, self.call_line if line is None else line], "inputs": inputs,
                "numpy_args": numpy_args, "fn": 1}

    def wait(self, arrays: list[int], line: int | None = None,
             how: str = "block_until_ready") -> dict[str, Any]:
        return {"kind": "wait", "how": how, "arrays": arrays,
                "site": [F, self.wait_line if line is None else line]}

    def put(self, arrays: list[int], line: int | None = None) -> dict[str, Any]:
        return {"kind": "placement", "arrays": arrays,
                "site": [F, self.put_line if line is None else line]}

    def compile_event(self, line: int | None = None) -> dict[str, Any]:
        return {"kind": "compile", "event": "jaxpr_trace_duration", "fun": "fn",
                "site": [F, self.compile_line if line is None else line]}


def ret(call_seq: int, outputs: list[int]) -> dict[str, Any]:
    return {"kind": "return", "call": call_seq, "outputs": outputs}


def given(arrays: list[int]) -> dict[str, Any]:
    return {"kind": "given", "arrays": arrays}


def ready(read_seq: int, call_seq: int, is_ready: bool) -> dict[str, Any]:
    return {"kind": "ready", "read": read_seq, "call": call_seq, "ready": is_ready}


def pair(start: int, stop: int) -> dict[str, Any]:
    return {"kind": "pair", "start": start, "stop": stop}


_DEFAULT = Events()
read = _DEFAULT.read
call = _DEFAULT.call
wait = _DEFAULT.wait
put = _DEFAULT.put
compile_event = _DEFAULT.compile_event


def frame(events: list[Any], value: Any = None, frame_id: str = "main") -> CallFrame:
    """A successful call frame holding ``events``; ``value`` is its encoded return value
    (default :data:`NO_VALUE`)."""
    return CallFrame(type="call", id=frame_id, ok=True,
                     value=NO_VALUE if value is None else value, events=events)


def context(exercise: Any, events: list[Any], value: Any = None, *,
            decoded: Any = _UNSET, frames: dict[str, CallFrame] | None = None,
            hello: Any = None, inputs: dict[str, Any] | None = None,
            references: dict[str, Any] | None = None,
            values: dict[str, Any] | None = None) -> Context:
    """A :class:`~syncgrade.rubric.base.Context` of ``exercise`` (an id or an exercise)
    with one call frame ``main`` holding ``events`` (and ``value``, encoded), or the given
    ``frames``. ``decoded`` sets that frame's already-decoded return value instead of an
    encoded one; ``values`` sets the decoded return values of ``frames`` by frame id. No
    hello, inputs or references unless given."""
    from syncgrade.courses import get_exercise
    from syncgrade.rubric.base import Context

    extra: dict[str, Any] = {}
    if decoded is not _UNSET:
        frames = {"main": CallFrame(type="call", id="main", ok=True, value=None,
                                    events=events)}
        extra["_values"] = {"main": decoded}
    elif values is not None:
        extra["_values"] = values
    return Context(exercise=get_exercise(exercise) if isinstance(exercise, str) else exercise,
                   display_name=F, hello=hello, load=Load(type="load", ok=True),
                   frames=frames if frames is not None else {"main": frame(events, value)},
                   inputs=inputs or {}, references=references or {}, **extra)


def wait_until(predicate: Callable[[], Any], timeout: float = 60.0, interval: float = 0.02,
               what: str = "the condition") -> Any:
    """Poll ``predicate`` until it returns something true and return that; fail the test
    after ``timeout`` seconds (generous: a loaded machine is slow, a hang is not)."""
    end = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def printed_report(text: str, truncated: bool = False) -> GradeReport:
    """A passing report with no checks whose only content is the learner's printed
    ``text`` (its stdout excerpt, ``truncated`` as given)."""
    from syncgrade.models import SCHEMA_VERSION, GradeReport, GradingInfo, Provenance
    from syncgrade.models import StreamExcerpt as Excerpt

    return GradeReport(
        schema_version=SCHEMA_VERSION, exercise="exercise-1", title="t",
        submission="mine.py", status="passed", cause="graded", score=0.0, max_score=0.0,
        summary="s", checks=[],
        stdout=Excerpt(text=text, truncated=truncated, total_bytes=len(text)),
        stderr=Excerpt(text="", truncated=False, total_bytes=0),
        grading=GradingInfo(seconds=1.0, timeout_s=60),
        provenance=Provenance(syncgrade_version="0", rubric_version="1"))
