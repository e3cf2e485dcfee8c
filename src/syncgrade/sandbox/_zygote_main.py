"""Zygote server: imports heavy libraries once, then forks one sandboxed run per request.

Started by :class:`syncgrade.sandbox.Zygote` as
``python _zygote_main.py GRADER_PID CONTROL_FD MODULE PREPARE [PRELOAD ...]`` (a script, so
that it imports neither syncgrade nor anything but the standard library, the launcher
next to it, the PRELOAD modules and PREPARE). It:

1. arms its parent-death signal and imports each PRELOAD module (e.g. ``numpy``,
   ``jax``) and PREPARE (``-``: none), checking that none started a JAX backend (a
   backend's threads do not survive a fork) and that only the main thread runs;
2. forks a throwaway process that calls PREPARE's ``prepare()`` (it may start a backend:
   it ends right after) and sends back the bytes it returns; once they are all there, the
   zygote hands them to PREPARE's ``adopt(data)`` in its own process, so that every run
   forked later inherits what it kept (:class:`Prepare`). Runs forked before that do
   without; a prepare that fails is ignored;
3. serves requests on the SOCK_SEQPACKET socket at CONTROL_FD, one at a time:

   - ``{"op": "spawn", "cfg": ..., "cwd": ..., "targets": [...]}`` with the run's fds
     attached: forks a process that becomes exactly what ``python -I -S _launcher.py``
     would be for that config (new session, its fds at the numbers the config names,
     same namespaces, jail, per-run uid, rlimits and fd closing), except that the target
     runs ``python -m MODULE`` in-process instead of exec'ing it, after dropping every
     capability. Replies ``{"pid": N}`` with a pidfd of the fork attached;
   - ``{"op": "reap", "pid": N}``: waits for that fork (the caller saw it exit on the
     pidfd) and replies its wait status and CPU seconds. Until then the fork stays a
     zombie, so its pid cannot be reused while the grader sweeps its run.

It ends at EOF on the socket (the grader closed it or died). It never runs learner code,
never sees a job, a key or a submission: those go from the grader to the run's own stdin
and workdir, after the fork. What a fork inherits is the state of a process that has
only imported libraries (docs/security.md, "Zygote").
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import threading
import traceback
from typing import Any

import _launcher  # next to this script (sys.path[0])

# Nothing else may be imported from this script's directory (its files would shadow any
# module of the same name); a run's target gets ``-m``'s first entry, its cwd, instead.
del sys.path[0]

MAX_MESSAGE = 1 << 20
MAX_FDS = 16


def preload(modules: list[str]) -> None:
    """Import ``modules``; raise if that started a JAX backend or a Python thread.

    With the collector off while importing (the imports only create objects that live as
    long as the process: collections would find nothing to free), then every object the
    imports made is frozen (``gc.freeze``): a fork's collections skip them, so they
    neither cost each run a traversal of the libraries' objects nor touch (and so copy)
    the zygote's pages shared with every fork."""
    gc.disable()
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        gc.freeze()
        gc.enable()
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is not None and getattr(bridge, "_backends", None):
        raise RuntimeError("a preloaded module initialised a JAX backend; its threads "
                           "would not survive a fork")
    if threading.active_count() != 1:
        raise RuntimeError(f"{threading.active_count()} Python threads after preloading")


MAX_PREPARED = 64 << 20  # bytes a prepare may send; more and it is ignored


class Prepare:
    """PREPARE's ``prepare()`` in a throwaway fork of the zygote, and the bytes it sent.

    The fork is made while the zygote runs one thread and has only imported modules; it
    runs grader code only (never a job, key or submission), outside any jail, may start a
    backend and its threads, writes what ``prepare()`` returned to a pipe and exits. The
    zygote reads the pipe without blocking before each fork of a run (:meth:`poll`) and,
    after the end of a prepare that exited 0, calls ``adopt(data)``: plain data kept in
    the zygote's memory, which its forks inherit and none can write back."""

    def __init__(self, name: str, control: socket.socket) -> None:
        self._module = importlib.import_module(name)
        read, write = os.pipe()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # nothing buffered may be written twice
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(read)
                control.close()
                _launcher.prctl(_launcher.PR_SET_PDEATHSIG, signal.SIGKILL)
                data = self._module.prepare()
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(write)
        os.set_blocking(read, False)
        self._pid: int | None = pid
        self._read: int | None = read
        self._chunks: list[bytes] = []
        self._size = 0

    def poll(self) -> None:
        """Read what the fork sent so far; at its end, reap it and adopt the data (only
        from a fork that exited 0 and stayed within :data:`MAX_PREPARED`)."""
        if self._read is None:
            return
        while True:
            try:
                chunk = os.read(self._read, 1 << 16)
            except BlockingIOError:
                return  # still preparing: later forks will have it
            if not chunk:
                break
            self._chunks.append(chunk)
            self._size += len(chunk)
            if self._size > MAX_PREPARED:
                self._end(kill=True)
                return
        self._end(kill=False)

    def close(self) -> None:
        """End the fork if it still runs (the zygote is ending) and reap it."""
        if self._read is not None:
            self._end(kill=True)

    def _end(self, *, kill: bool) -> None:
        assert self._read is not None and self._pid is not None
        os.close(self._read)
        self._read = None
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        data, self._chunks = b"".join(self._chunks), []
        if not kill and os.waitstatus_to_exitcode(status) == 0:
            self._module.adopt(data)


def place_fds(fds: list[int], targets: list[int]) -> None:
    """Make ``fds[i]`` available as fd ``targets[i]`` and close the originals (in the
    fork, before any other fd is opened)."""
    top = max([*fds, *targets, 2]) + 1
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, top) for fd in fds]
    for fd in fds:
        os.close(fd)
    for fd, target in zip(high, targets, strict=True):
        os.dup2(fd, target)
    for fd in high:
        os.close(fd)


def become(module: str) -> _launcher.Become:
    """The launcher's ``become``: what ``python -m MODULE`` would do from here on, in a
    process whose environment, signals, argv and path are reset to a fresh one's."""

    def run(cfg: dict[str, Any]) -> None:
        os.environ.clear()  # unsetenv for each: C code reading getenv sees the same
        os.environ.update(cfg["env"])
        # A fresh interpreter's dispositions (the launcher reset these to SIG_DFL).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_IGN)
        sys.argv = ["-m"]
        sys.path.insert(0, os.getcwd())  # -m puts the working directory first
        sys.modules.pop("_launcher", None)
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            code = exit_code(exc)
        except BaseException:
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the module may have closed them
                stream.flush()
        os._exit(code)

    return run


def exit_code(exc: SystemExit) -> int:
    """The status ``python`` exits with for an uncaught ``SystemExit`` (it prints a
    non-integer code to stderr and exits 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def spawn(control: socket.socket, request: dict[str, Any], fds: list[int],
          module: str) -> tuple[dict[str, Any], list[int]]:
    """Fork one run; return the reply and the fds to send with it (a pidfd)."""
    cfg = request["cfg"]
    cfg["grader_pid"] = os.getpid()  # the fork's parent, for the launcher's death check
    targets = [int(t) for t in request["targets"]]
    if len(targets) != len(fds):
        for fd in fds:
            os.close(fd)
        return {"error": f"{len(fds)} fds for {len(targets)} targets"}, []
    for stream in (sys.stdout, sys.stderr):
        stream.flush()  # nothing buffered may be written twice
    try:
        pid = os.fork()
    except OSError:  # e.g. EAGAIN: the request fails, the zygote keeps nothing of it
        for fd in fds:
            os.close(fd)
        raise
    if pid == 0:
        try:
            control.close()
            os.setsid()  # the run's own session and process group, as Popen's would be
            place_fds(fds, targets)
            os.chdir(request["cwd"])
            _launcher.launch(cfg, become(module))
        finally:
            os._exit(125)
    for fd in fds:
        os.close(fd)
    try:
        pidfd = os.pidfd_open(pid)  # before any reap: the pid cannot have been reused
    except OSError as exc:  # a kernel without pidfds: the grader could not watch it
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return {"error": f"pidfd_open: {exc.strerror}"}, []
    return {"pid": pid}, [pidfd]


def reap(pid: int) -> dict[str, Any]:
    """Wait for a fork of ours; its wait status and CPU seconds."""
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return {"error": f"no child {pid}"}
    return {"status": status, "cpu_s": usage.ru_utime + usage.ru_stime}


def serve(control: socket.socket, module: str, prepare: Prepare | None) -> None:
    """Answer requests until EOF; before each fork, take in what ``prepare`` sent."""
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, MAX_MESSAGE, MAX_FDS)
        except ConnectionResetError:
            return
        if not message:
            return
        reply_fds: list[int] = []
        try:
            request = json.loads(message)
            if request.get("op") == "spawn":
                if prepare is not None:
                    with contextlib.suppress(Exception):  # optional: never a failed run
                        prepare.poll()
                reply, reply_fds = spawn(control, request, fds, module)
            elif request.get("op") == "reap":
                reply = reap(int(request["pid"]))
            else:
                reply = {"error": f"unknown request {request.get('op')!r}"}
        except Exception as exc:  # a bad request must not end the zygote
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        try:
            socket.send_fds(control, [json.dumps(reply).encode()], reply_fds)
        finally:
            for fd in reply_fds:
                os.close(fd)


def main(argv: list[str]) -> int:
    grader_pid, control_fd, module = int(argv[1]), int(argv[2]), argv[3]
    prepared, modules = (None if argv[4] == "-" else argv[4]), argv[5:]
    _launcher.prctl(_launcher.PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != grader_pid:
        return 125  # the grader died before the death signal was armed
    control = socket.socket(fileno=control_fd)
    try:
        preload([*modules, *([prepared] if prepared else [])])
    except BaseException as exc:
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        socket.send_fds(control, [json.dumps({"error": error[-2000:]}).encode()], [])
        return 1
    # Forked before the ready reply, still with one thread; it prepares while the grader
    # asks for the first runs (those do without what it makes).
    prepare = Prepare(prepared, control) if prepared else None
    try:
        socket.send_fds(control, [json.dumps({"ready": True}).encode()], [])
        serve(control, module, prepare)
    finally:
        if prepare is not None:
            prepare.close()  # nothing of the zygote outlives it
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
