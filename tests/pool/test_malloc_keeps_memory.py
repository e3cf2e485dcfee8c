"""glibc's allocator in every grading child, cold or forked from the pool's zygote, keeps
freed buffers under 32 MiB for reuse (``pool.MALLOC_KEEPS_MEMORY``): handing a several-MB
jax output's pages back to the OS at a free cost 0.5-2.5 ms of the freeing thread's CPU
time, inside a learner's timed interval, where ``interval-clean`` counts it as host work
(docs/performance.md, "Unexplained host time").

The environment is checked where runs and the zygote are started; its effect, exactly (no
timing), in an interpreter started with it: an 8 MB buffer comes from the heap, not from
a mapping of its own (glibc's ``mallinfo2().hblks``), where by default it is mapped."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from syncgrade import pool
from syncgrade.sandbox import Zygote
from syncgrade.sandbox._runner import child_environment

MAPPED_BLOCKS = '''
import ctypes, numpy as np

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
        "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
counts = []
for _ in range(3):  # glibc's own sliding threshold maps the first one at least
    buffer = np.ones(2 * 1024 * 1024, np.float32)  # 8 MB, touched
    counts.append(libc.mallinfo2().hblks)
    del buffer
print(max(counts))
'''


def _has_mallinfo2() -> bool:
    name = ctypes.util.find_library("c")
    return name is not None and hasattr(ctypes.CDLL(name), "mallinfo2")


def test_the_child_command_keeps_freed_memory_for_runs_and_the_zygote(tmp_path: Path
                                                                      ) -> None:
    command = pool.child_command()
    assert pool.MALLOC_KEEPS_MEMORY.items() <= dict(command.env).items()
    run = child_environment(tmp_path, command.env, (3, 4), "token")
    assert pool.MALLOC_KEEPS_MEMORY.items() <= run.items()
    zygote = Zygote(command.argv, command.env)._server_env()
    assert pool.MALLOC_KEEPS_MEMORY.items() <= zygote.items()


@pytest.mark.skipif(not _has_mallinfo2(), reason="glibc's allocator only (mallinfo2)")
def test_a_several_mb_buffer_is_not_mapped_on_its_own_under_the_setting() -> None:
    def mapped(extra: dict[str, str]) -> int:
        env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"} | extra
        done = subprocess.run([sys.executable, "-c", MAPPED_BLOCKS], env=env,
                              capture_output=True, text=True, timeout=60, check=True)
        return int(done.stdout.split()[-1])

    assert mapped({}) >= 1  # the default: a buffer this size gets a mapping of its own
    assert mapped(pool.MALLOC_KEEPS_MEMORY) == 0
