"""Bounded sinks for the child's byte streams.

Each sink accepts chunks as the child produces them and holds at most a fixed number of
bytes, however much the child writes: the grader runs thousands of submissions and one of
them printing in a loop must not grow the grader's memory.
"""

from __future__ import annotations

from syncgrade.protocol import HEADER as _HEADER  # the frames' length prefix

from .models import Captured


class StreamExcerpt:
    """Keeps the head and the tail of a stream, counts the rest.

    Contract: after any sequence of :meth:`feed` calls, memory held is at most
    ``limit`` bytes plus one chunk, and :meth:`captured` returns the whole stream if it
    fit in ``limit`` bytes, else its first ``limit - limit // 2`` and last ``limit // 2``
    bytes around an omission marker.
    """

    def __init__(self, limit: int) -> None:
        self._limit = max(0, limit)
        self._head_cap = self._limit - self._limit // 2
        self._tail_cap = self._limit // 2
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        """Account for ``chunk`` and keep what fits."""
        self.total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk and self._tail_cap:
            self._tail += chunk
            # Trim only when well over the cap, so a stream of small chunks costs
            # amortised O(1) per byte instead of a memmove per chunk.
            if len(self._tail) > 2 * self._tail_cap + 65536:
                del self._tail[: len(self._tail) - self._tail_cap]

    @property
    def truncated(self) -> bool:
        """Whether bytes were dropped."""
        return self.total > self._limit

    def captured(self) -> Captured:
        """The excerpt as a :class:`Captured` value."""
        tail = bytes(self._tail[-self._tail_cap :]) if self._tail_cap else b""
        if not self.truncated:
            raw = bytes(self._head) + bytes(self._tail)
            return Captured(raw.decode("utf-8", "replace"), False, self.total)
        omitted = self.total - len(self._head) - len(tail)
        marker = f"\n[... syncgrade: {omitted} bytes omitted ...]\n"
        text = (
            bytes(self._head).decode("utf-8", "replace")
            + marker
            + tail.decode("utf-8", "replace")
        )
        return Captured(text, True, self.total)


class FrameDecoder:
    """Splits the result channel into length-prefixed frames, within a budget.

    Wire format: 4-byte big-endian payload length, then the payload. Contract: ``frames``
    holds complete frames in order, at most ``max_frames`` of them, whose payloads plus
    4-byte headers total at most ``limit`` bytes; the first frame that would exceed either
    sets ``truncated`` and everything after it is discarded without being buffered (a
    header announcing 4 GiB costs nothing). Headers count, and so do empty frames, so a
    flood of zero-length frames ends at the budget like any other. A trailing partial
    frame is dropped and reported by :attr:`incomplete`.
    """

    def __init__(self, limit: int, max_frames: int = 4096) -> None:
        self._limit = max(0, limit)
        self._max_frames = max(0, max_frames)
        self._buf = bytearray()
        self._kept = 0
        self.frames: list[bytes] = []
        self.truncated = False
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        """Consume ``chunk``; complete frames are appended to :attr:`frames`."""
        self.total += len(chunk)
        if self.truncated:
            return
        self._buf += chunk
        while len(self._buf) >= _HEADER.size:
            (length,) = _HEADER.unpack_from(self._buf)
            cost = _HEADER.size + length
            if self._kept + cost > self._limit or len(self.frames) >= self._max_frames:
                self.truncated = True
                self._buf.clear()
                return
            if len(self._buf) < cost:
                return  # wait for the rest; bounded because it fits in the budget
            self.frames.append(bytes(self._buf[_HEADER.size : cost]))
            self._kept += cost
            del self._buf[:cost]

    @property
    def incomplete(self) -> bool:
        """Whether a partial frame (header or payload) is pending at the end."""
        return not self.truncated and len(self._buf) > 0


class BoundedBytes:
    """Keeps the first ``limit`` bytes of a stream (used for the stack dump and status)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self.data = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        """Keep what fits of ``chunk``."""
        self.total += len(chunk)
        room = self._limit - len(self.data)
        if room > 0:
            self.data += chunk[:room]
