"""The child-side event log: one global sequence counter and plain-dict events.

Everything the instrumentation observes is appended here as a small dict with a ``seq``
taken from one counter, so the parent can place any event inside or outside a timed
interval exactly, without comparing clocks. Events are plain dicts (not pydantic models)
because they are created on hot paths inside the learner's timed loop; the parent validates
them into :mod:`syncgrade.trace` models.
"""

from __future__ import annotations

import contextlib
import itertools
import sys
import weakref
from types import FrameType
from typing import Any

Event = dict[str, Any]


class Recorder:
    """Collects events for one learner call and gives arrays stable tokens.

    ``id()`` of a dead array can be reused by a new one, so arrays get tokens through a
    weak reference check: the same live object always gets the same token.
    """

    def __init__(self, learner_files: set[str]) -> None:
        self._seq = itertools.count(1)
        self._next_token = itertools.count(1)
        self._tokens: dict[int, tuple[weakref.ref[Any], int]] = {}
        self.learner_files = learner_files
        self.events: list[Event] = []
        self.enabled = False
        # Strong references to the outputs of the most recent call only: execution is in
        # dispatch order, so "latest outputs ready" implies every earlier call is done.
        self.latest_outputs: list[Any] = []
        self.latest_call_seq: int | None = None

    def next_seq(self) -> int:
        return next(self._seq)

    def token(self, array: Any) -> int:
        """Return a stable token for a live array object."""
        key = id(array)
        entry = self._tokens.get(key)
        if entry is not None and entry[0]() is array:
            return entry[1]
        token = next(self._next_token)
        with contextlib.suppress(TypeError):  # not weak-referenceable: token still unique
            self._tokens[key] = (weakref.ref(array), token)
        return token

    def emit(self, kind: str, **fields: Any) -> int:
        """Append one event and return its sequence number."""
        seq = self.next_seq()
        if self.enabled:
            fields["seq"] = seq
            fields["kind"] = kind
            self.events.append(fields)
        return seq

    def learner_site(self, frame: FrameType | None) -> tuple[str, int] | None:
        """The innermost frame, starting at ``frame``, that belongs to the learner's code."""
        while frame is not None:
            name = frame.f_code.co_filename
            if name in self.learner_files or name == "<timeit-src>":
                return (name, frame.f_lineno)
            frame = frame.f_back
        return None

    def caller_site(self, depth: int = 2) -> tuple[str, int] | None:
        return self.learner_site(sys._getframe(depth))

    def reset(self) -> None:
        self.events = []
        self.latest_outputs = []
        self.latest_call_seq = None
