"""Pure parts of the sandbox: excerpts, frame decoding, termination classification."""

from __future__ import annotations

import signal
import struct
import time

import pytest

from syncgrade.sandbox import Limits
from syncgrade.sandbox._capture import FrameDecoder, StreamExcerpt
from syncgrade.sandbox._classify import classify


def _status_exit(code: int) -> int:
    return code << 8


def _status_signal(sig: int) -> int:
    return int(sig)


def test_excerpt_keeps_head_and_tail_and_counts_everything() -> None:
    ex = StreamExcerpt(10)
    for chunk in (b"0123", b"4567", b"89ab", b"cdef"):
        ex.feed(chunk)
    got = ex.captured()
    assert got.truncated and got.total_bytes == 16
    assert got.text.startswith("01234") and got.text.endswith("bcdef")
    assert "6 bytes omitted" in got.text


def test_excerpt_that_fits_is_verbatim() -> None:
    ex = StreamExcerpt(10)
    ex.feed(b"hello")
    ex.feed(b"!")
    assert ex.captured().text == "hello!" and not ex.captured().truncated


def test_frame_decoder_handles_split_headers_and_budget() -> None:
    dec = FrameDecoder(limit=16)  # payloads plus 4-byte headers: 7 + 9 fit, 7 more do not
    wire = b"".join(struct.pack(">I", len(p)) + p for p in (b"abc", b"defgh", b"ijk"))
    for i in range(len(wire)):  # one byte at a time: headers split across feeds
        dec.feed(wire[i : i + 1])
    assert dec.frames == [b"abc", b"defgh"]
    assert dec.truncated and not dec.incomplete


def test_frame_decoder_counts_empty_frames() -> None:
    by_count = FrameDecoder(limit=2**20, max_frames=5)
    by_count.feed(b"\x00" * 4 * 1000)
    assert by_count.frames == [b""] * 5 and by_count.truncated
    by_bytes = FrameDecoder(limit=40, max_frames=10**6)
    by_bytes.feed(b"\x00" * 4 * 1000)
    assert by_bytes.frames == [b""] * 10 and by_bytes.truncated


def test_frame_decoder_stops_a_flood_in_constant_work() -> None:
    dec = FrameDecoder(limit=32 * 2**20, max_frames=4096)
    chunk = b"\x00" * 2**20
    started = time.process_time()  # CPU time: a load-proof measure of the work done
    for _ in range(256):  # 256 MiB of empty frames: only the first 4096 are ever looked at
        dec.feed(chunk)
    assert time.process_time() - started < 1
    assert len(dec.frames) == 4096 and dec.truncated and dec.total == 256 * 2**20


@pytest.mark.parametrize(
    ("status", "stderr", "timed_out", "cpu", "expected"),
    [
        (_status_exit(0), "", False, 0.1, ("exited", 0, None)),
        (_status_exit(1), "MemoryError\n", False, 0.1, ("memory", 1, None)),
        (_status_signal(signal.SIGABRT), "terminate called after throwing an instance of "
         "'std::bad_alloc'", False, 0.1, ("memory", -6, "SIGABRT")),
        (_status_exit(1), "RESOURCE_EXHAUSTED: Out of memory allocating", False, 0.1,
         ("memory", 1, None)),
        (_status_exit(0), "caught MemoryError, recovered", False, 0.1, ("exited", 0, None)),
        (_status_exit(127), "cannot allocate memory for thread-local data: ABORT", False, 0.1,
         ("memory", 127, None)),
        (_status_signal(signal.SIGKILL), "", False, 0.1, ("signal", -9, "SIGKILL")),
        (_status_signal(signal.SIGKILL), "", False, 2.0, ("cpu", -9, "SIGKILL")),
        (_status_signal(signal.SIGXCPU), "", False, 1.0, ("cpu", -24, "SIGXCPU")),
        (_status_signal(signal.SIGKILL), "MemoryError", True, 0.1, ("timeout", -9, "SIGKILL")),
        (None, "", True, None, ("timeout", -9, "SIGKILL")),
    ],
)
def test_classification(status: int | None, stderr: str, timed_out: bool, cpu: float | None,
                        expected: tuple[str, int, str | None]) -> None:
    end = classify(wait_status=status, timed_out=timed_out, cpu_used=cpu, cpu_limit=2.0,
                   stderr_text=stderr)
    assert (end.termination, end.returncode, end.signal_name) == expected


def test_cpu_limit_defaults_to_wall_time_on_every_core() -> None:
    assert Limits(wall_s=10).effective_cpu_s(cpu_count=4) == 41.0
    assert Limits(wall_s=10, cpu_s=3).effective_cpu_s(cpu_count=4) == 3
    # A start-up with its own budget (the imports) must not eat the wall limit's CPU.
    assert Limits(wall_s=10, startup_s=5).effective_cpu_s(cpu_count=4) == 61.0
