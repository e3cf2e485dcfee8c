"""Real Dask processes on loopback for the cluster tests (tests/batch/): a ``dask
scheduler`` and ``dask worker`` processes started and stopped by the test, so the
service and the client meet what an operator's cluster does (a worker that exits, a
scheduler that goes away), never a sleep."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from pathlib import Path

DASK = str(Path(sys.executable).with_name("dask"))


def start_scheduler(port: int, logs: Path) -> subprocess.Popen[bytes]:
    """A ``dask scheduler`` on loopback ``port``; its output appended to ``logs/dask.log``."""
    with (logs / "dask.log").open("ab") as log:
        return subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port",
                                 str(port), "--no-dashboard"], stdout=log, stderr=log)


def start_worker(port: int, logs: Path, *extra: str,
                 env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """One ``dask worker`` process (one thread) of the scheduler on loopback ``port``;
    ``extra``: more options (``--no-nanny``: the worker is this very process, so a
    SIGKILL of it is the worker's death)."""
    with (logs / "dask.log").open("ab") as log:
        return subprocess.Popen([DASK, "worker", f"tcp://127.0.0.1:{port}", "--nworkers",
                                 "1", "--nthreads", "1", "--no-dashboard", "--host",
                                 "127.0.0.1", *extra], stdout=log, stderr=log, env=env)


def start_cluster(port: int, logs: Path) -> list[subprocess.Popen[bytes]]:
    """A scheduler on ``port`` and one worker (one thread), both on loopback."""
    scheduler = start_scheduler(port, logs)
    return [start_worker(port, logs), scheduler]


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def can_connect(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
        return True
    return False
