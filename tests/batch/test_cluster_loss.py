"""Losing the Dask scheduler mid-batch is one clear line, never a traceback (issue 26).

A real scheduler and worker (``dask scheduler`` / ``dask worker`` processes of this
environment) and a real ``grade batch --cluster``; the scheduler is killed while the
worker is inside a grade (a submission that marks its working directory, then sleeps).
``grade batch`` must then say what happened in one line and exit 3, with nothing of
Dask's logging or a Python traceback after it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_support import descendant_with_file

SLOW = "import pathlib, time\npathlib.Path('started').touch()\ntime.sleep(60)\n"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(address: str) -> bool:
    """Whether the scheduler at ``tcp://host:port`` accepts connections yet."""
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def _dask(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("dask")), *args]


def _wait(condition: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"no {what} within {seconds:g} s")
        time.sleep(0.1)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_losing_the_scheduler_is_one_line_and_exit_3(tmp_path: Path, sig: int) -> None:
    for index in range(3):
        (tmp_path / f"s{index}.py").write_text(SLOW)
    address = f"tcp://127.0.0.1:{_free_port()}"
    quiet = subprocess.DEVNULL
    scheduler = subprocess.Popen(_dask("scheduler", "--host", "127.0.0.1", "--port",
                                       address.rsplit(":", 1)[1], "--no-dashboard"),
                                 stdout=quiet, stderr=quiet)
    worker = subprocess.Popen(_dask("worker", address, "--nworkers", "1", "--nthreads", "1",
                                    "--no-dashboard"), stdout=quiet, stderr=quiet)
    batch = None
    try:
        # On a loaded machine the scheduler's start-up can outlast the batch's connect
        # timeout ("cannot reach the Dask scheduler"): this test is about losing it later.
        _wait(lambda: _listening(address) or scheduler.poll() is not None, 300,
              "scheduler listening")
        batch = subprocess.Popen(
            [str(Path(sys.executable).with_name("grade")), "batch", "s0.py", "s1.py",
             "s2.py", "--exercise", "exercise-2", "--timeout", "120", "--cluster", address,
             "--out", "grades.jsonl"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # A grade is running on the worker (its child made `started`): lose the scheduler.
        _wait(lambda: descendant_with_file("started") is not None or batch.poll() is not None,
              300, "grade on the worker")
        assert batch.poll() is None, batch.communicate()
        os.kill(scheduler.pid, sig)
        _, err = batch.communicate(timeout=120)
    finally:
        for process in (batch, worker, scheduler):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert batch.returncode == 3, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("grade: lost the Dask scheduler with 3 grades left"), err
    assert "rerun with --resume" in lines[0]
