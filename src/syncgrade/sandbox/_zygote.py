"""The grader's side of a zygote: a process that imported jax once and forks each run.

A warm pool's child costs about 1 CPU-second before it can take a job, 0.9 s of it
importing numpy, ml_dtypes and jax. A :class:`Zygote` pays that once: it starts
``_zygote_main.py``, which imports the libraries (without starting a JAX backend, whose
threads would not survive a fork), and from then on each :func:`start_sandboxed` run
given the zygote is a fork of it. The fork then does exactly what the launcher does for
a fresh run (own session, namespaces, jail, per-run uid, rlimits, no capabilities, only
the run's fds) and runs ``python -m MODULE`` in-process instead of exec'ing it. So each
submission still gets a process no other submission has touched; what it inherits is the
memory of a process that has imported libraries and nothing else (docs/security.md,
"Zygote").

Only argv of the form ``[sys.executable, "-m", MODULE]`` can be served, with the
environment the zygote was started with (the run's own variables are set in the fork).
Thread-safe: one request at a time over the control socket. Linux only (pidfds, fd
passing); :meth:`Zygote.start` raises :class:`SandboxError` where it cannot work, and the
caller starts its runs the ordinary way.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._environment import default_environment
from .models import SandboxError

SERVER = Path(__file__).with_name("_zygote_main.py")
_MAX_MESSAGE = 1 << 20
_START_TIMEOUT_S = 120.0  # importing jax on a loaded 2-core machine takes seconds
_REPLY_TIMEOUT_S = 30.0  # a fork and a few syscalls; a wait for an exited process


class Zygote:
    """One zygote process serving ``argv`` (``python -m MODULE``) with ``preload``
    imported. Start it from a thread that outlives it: its parent-death signal follows
    the starting thread (the warm pool's own thread). Close it when done (or use
    ``with``): it ends, and so does every run it forked that is still going.

    ``prepare``: a module, imported after ``preload``, whose ``prepare()`` runs once in
    a throwaway fork of the zygote (which may start a backend: it ends right after) and
    returns bytes; the zygote hands them to the module's ``adopt(data)`` in its own
    process as soon as they are all there, so that every run forked afterwards inherits
    what it kept (runs forked before do without; a failed prepare is ignored). For data
    that grader code makes once and every run needs, e.g. a compiled program
    (``syncgrade.child.spin_executable``): the zygote's memory is never written by a run."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str],
                 preload: Sequence[str] = ("numpy", "jax", "jax.numpy"),
                 prepare: str | None = None) -> None:
        argv = list(argv)
        if len(argv) != 3 or argv[1] != "-m" or argv[0] != sys.executable:
            raise ValueError("a zygote serves only [sys.executable, '-m', MODULE], "
                             f"not {argv!r}")
        self.argv = tuple(argv)
        self.env = dict(env)
        self.preload = tuple(preload)
        self.prepare = prepare
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._aborted = False

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the server and wait until its imports are done; SandboxError if it
        cannot start or its imports fail (the message says why)."""
        if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
            raise SandboxError("a zygote needs Linux pidfds")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, str(SERVER), str(os.getpid()), str(theirs.fileno()),
                 self.argv[2], self.prepare or "-", *self.preload],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                start_new_session=True, cwd="/", env=self.server_env(),
            )
        except OSError as e:
            ours.close()
            raise SandboxError(f"could not start the zygote: {e}") from e
        finally:
            theirs.close()
        self._sock = ours
        reply, _ = self._receive(_START_TIMEOUT_S, "its imports")
        if not reply.get("ready"):
            self.close()
            raise SandboxError(f"the zygote could not import its libraries: "
                               f"{reply.get('error', reply)}")

    def server_env(self) -> dict[str, str]:
        """The environment the zygote is started with, and so the one its PRELOAD modules
        read at import (NumPy's BLAS its thread count): the runs' environment minus their
        own variables, so that every import-time read sees what a fresh child would."""
        return {**default_environment("/nonexistent"), **self.env}

    def abort(self) -> None:
        """From another thread: stop a :meth:`start` in progress within one poll (0.5 s)
        instead of its import timeout; it then raises :class:`SandboxError`. A closing
        pool calls this so that it never waits for jax to import under load. Call
        :meth:`close` afterwards to reap the server."""
        self._aborted = True
        proc = self._proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()

    def alive(self) -> bool:
        """Whether the server is still running."""
        return self._proc is not None and self._proc.poll() is None

    def spawn(self, cfg: dict[str, Any], cwd: str, fds: Sequence[int],
              targets: Sequence[int]) -> tuple[int, int]:
        """Fork a run of launcher config ``cfg`` in ``cwd``, with ``fds[i]`` at fd
        ``targets[i]``; return its pid and a pidfd for it (the caller owns the pidfd).
        SandboxError if the zygote is gone or refused."""
        reply, got = self._ask({"op": "spawn", "cfg": cfg, "cwd": cwd,
                                "targets": list(targets)}, fds)
        if "pid" not in reply or len(got) != 1:
            for fd in got:
                os.close(fd)
            raise SandboxError(f"the zygote could not start a run: {reply.get('error')}")
        return int(reply["pid"]), got[0]

    def reap(self, pid: int) -> tuple[int, float]:
        """Collect an exited fork: its wait status and CPU seconds."""
        reply, got = self._ask({"op": "reap", "pid": pid}, ())
        for fd in got:
            os.close(fd)
        if "status" not in reply:
            raise SandboxError(f"the zygote could not reap run {pid}: {reply.get('error')}")
        return int(reply["status"]), float(reply["cpu_s"])

    def _ask(self, request: dict[str, Any], fds: Sequence[int]
             ) -> tuple[dict[str, Any], list[int]]:
        with self._lock:
            if self._sock is None:
                raise SandboxError("the zygote is closed")
            try:
                socket.send_fds(self._sock, [json.dumps(request).encode()], list(fds))
            except OSError as e:
                raise SandboxError(f"the zygote is gone: {e}") from e
            return self._receive(_REPLY_TIMEOUT_S, "a reply")

    def _receive(self, timeout: float, what: str) -> tuple[dict[str, Any], list[int]]:
        assert self._sock is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            readable, _, _ = select.select([self._sock], [], [], max(0.0, min(left, 0.5)))
            if self._aborted:  # its kill may have woken the select with an EOF
                raise SandboxError(f"the zygote was stopped before {what}")
            if readable:
                break
            if left <= 0 or not self.alive():
                raise SandboxError(f"the zygote sent no {what}"
                                   + ("" if self.alive() else " (it ended)"))
        try:
            message, got, _flags, _addr = socket.recv_fds(self._sock, _MAX_MESSAGE, 4)
        except OSError as e:
            raise SandboxError(f"the zygote is gone: {e}") from e
        if not message:
            raise SandboxError(f"the zygote ended before {what}")
        return json.loads(message), list(got)

    def close(self) -> None:
        """End the server (EOF on its socket) and reap it. Idempotent."""
        with self._lock:
            sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                proc.wait()
