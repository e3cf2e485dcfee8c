"""Output and result channel stay bounded however much the child writes."""

from __future__ import annotations

import resource

from process_support import LoadBudget
from sandbox_support import Runner

from syncgrade.sandbox import Limits

MB = 2**20


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def test_hundreds_of_megabytes_of_output_keep_the_grader_bounded(run_auto: Runner) -> None:
    before = _peak_rss_bytes()
    out = run_auto(
        """
        import sys
        block = b"o" * 2**20
        for _ in range(200):
            sys.stdout.buffer.write(block)
        sys.stdout.flush()
        block = b"e" * 2**20
        for _ in range(200):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"\\nTraceback: the end")
        """,
        limits=Limits(wall_s=30, output_bytes=10_000),
    )
    grown = _peak_rss_bytes() - before
    assert out.termination == "exited" and out.returncode == 0
    assert out.stdout.truncated and out.stderr.truncated
    assert out.stdout.total_bytes == 200 * MB
    assert out.stderr.total_bytes == 200 * MB + len("\nTraceback: the end")
    assert len(out.stdout.text) < 10_200 and len(out.stderr.text) < 10_200
    assert out.stdout.text.startswith("ooo") and "bytes omitted" in out.stdout.text
    assert out.stderr.text.endswith("Traceback: the end")  # the tail is kept
    assert grown < 64 * MB, f"grader peak RSS grew by {grown / MB:.0f} MiB"


def test_small_output_is_kept_whole(run: Runner) -> None:
    out = run("import sys; print('out'); print('err', file=sys.stderr); print('\\xff!')")
    assert out.stdout.text == "out\n\xff!\n" and not out.stdout.truncated
    assert out.stderr.text == "err\n"


def test_invalid_utf8_is_replaced(run_auto: Runner) -> None:
    out = run_auto("import sys; sys.stdout.buffer.write(b'a\\xffb')")
    assert out.stdout.text == "a\ufffdb"


SEND_FRAMES = """
import os, struct
fd = int(os.environ["SYNCGRADE_CHANNEL_FD"])
def send(payload):
    data = struct.pack(">I", len(payload)) + payload
    while data:
        data = data[os.write(fd, data):]
"""


def test_frames_arrive_in_order_and_partial_tail_is_dropped(run: Runner) -> None:
    out = run(SEND_FRAMES + "send(b'one'); send(b''); send(b'three')\n"
              "os.write(fd, struct.pack('>I', 100) + b'cut off')\n")
    assert out.frames == [b"one", b"", b"three"]
    assert not out.frames_truncated
    assert out.frames_incomplete


def test_result_frames_past_the_cap_are_truncated_and_the_child_stopped(
        run_auto: Runner) -> None:
    out = run_auto(SEND_FRAMES + "for i in range(10):\n    send(bytes([i]) * 300_000)\n"
                   "import time; time.sleep(30)\n",
                   limits=Limits(wall_s=LoadBudget().limit(20), result_bytes=1_000_000))
    assert [f[:1] for f in out.frames] == [b"\x00", b"\x01", b"\x02"]
    assert all(len(f) == 300_000 for f in out.frames)
    assert out.frames_truncated
    # Stopped as soon as the cap was passed, not at the wall limit, without a stack dump.
    assert out.termination == "signal" and out.wall_s < LoadBudget().bound(5), (
        out.termination, out.wall_s)
    assert out.stack_dump is None


def test_a_flood_of_empty_frames_is_capped_and_stopped(run: Runner) -> None:
    out = run(SEND_FRAMES + "data = b'\\x00' * 2**16\n"
              "while True:\n    os.write(fd, data)\n",
              limits=Limits(wall_s=LoadBudget().limit(20), result_frames=100))
    assert out.frames == [b""] * 100
    assert out.frames_truncated and out.wall_s < LoadBudget().bound(5), out.wall_s
    assert out.termination == "signal"


def test_empty_frames_count_toward_the_byte_cap(run_auto: Runner) -> None:
    out = run_auto(SEND_FRAMES + "for _ in range(1000):\n    send(b'')\n"
                   "import time; time.sleep(30)\n",
                   limits=Limits(wall_s=LoadBudget().limit(20), result_bytes=400,
                                 result_frames=10**6))
    assert out.frames == [b""] * 100  # 4 header bytes each
    assert out.frames_truncated and out.wall_s < LoadBudget().bound(5)


def test_a_frame_header_claiming_gigabytes_costs_nothing(run_auto: Runner) -> None:
    out = run_auto(SEND_FRAMES + "send(b'ok')\nos.write(fd, struct.pack('>I', 2**32 - 1))\n"
                   "for _ in range(50):\n    os.write(fd, b'x' * 2**20)\n",
                   limits=Limits(wall_s=10, result_bytes=4 * MB))
    assert out.frames == [b"ok"]
    assert out.frames_truncated


def test_stdin_and_files_reach_the_child(run: Runner) -> None:
    out = run(
        """
        import os, sys
        print(sys.stdin.read().upper())
        print(open("data/in.txt").read())
        print(os.getcwd() == os.environ["HOME"])
        """,
        stdin=b"from the grader",
        extra_files={"data/in.txt": b"nested file"},
    )
    assert out.stdout.text == "FROM THE GRADER\nnested file\nTrue\n", out.stderr.text


