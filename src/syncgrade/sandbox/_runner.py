"""``run_sandboxed``: run one untrusted command under limits, return what happened."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import _procs
from ._capture import BoundedBytes, FrameDecoder, StreamExcerpt
from ._classify import classify
from ._pump import Pump, Sink, enlarge_pipe
from ._workdir import RunDir
from .models import Isolation, Limits, Protection, SandboxError, SandboxOutcome

CHANNEL_FD_VAR = "SYNCGRADE_CHANNEL_FD"
STACK_FD_VAR = "SYNCGRADE_STACK_FD"
LAUNCHER = Path(__file__).with_name("_launcher.py")

_STACK_BYTES = 1 << 20
_STATUS_BYTES = 1 << 20
_STACK_QUIET_S = 0.2  # a dump is complete once the stack pipe is quiet this long
_STOP_GRACE_S = 2.0  # namespace mode: time for init to kill and report after SIGTERM
_DRAIN_S = 1.0  # after the end: bounded time to read what is left in the pipes
_UID_BASE = 1_500_000_000  # per-run uids come from here: far above any real account
_UID_SPAN = 500_000_000

PROTECTION_ORDER = (
    "process-group", "wall-limit", "cpu-limit", "address-space-limit", "file-size-limit",
    "process-limit", "no-core-dumps", "output-cap", "result-cap", "scrubbed-env",
    "temp-workdir", "drop-privileges", "user-namespace", "no-new-privileges", "pid-namespace",
    "filesystem-allowlist", "hidden-paths", "no-network", "ipc-namespace", "uts-namespace",
    "leftover-sweep", "parent-death-kill",
)


@dataclass
class _Status:
    """Parsed JSON lines from the launcher's private status fd."""

    raw: BoundedBytes = field(default_factory=lambda: BoundedBytes(_STATUS_BYTES))

    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in bytes(self.raw.data).splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a torn last line if the launcher was killed mid-write
        return out

    def last(self, event: str) -> dict[str, Any] | None:
        found = [e for e in self.events() if e.get("event") == event]
        return found[-1] if found else None


def child_environment(workdir: Path, extra: Mapping[str, str], fds: tuple[int, int],
                      token: str) -> dict[str, str]:
    """The scrubbed environment: nothing of the grader's, defaults, caller's ``env``,
    and the sandbox's own variables last (they cannot be overridden)."""
    env = {
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir),
        "TMPDIR": str(workdir / "tmp"),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
    }
    env.update(extra)
    env[CHANNEL_FD_VAR] = str(fds[0])
    env[STACK_FD_VAR] = str(fds[1])
    env[_procs.TOKEN_VAR] = token
    return env


def default_exposures(argv0: str, path_var: str) -> list[str]:
    """Host paths the jail shows read-only besides system dirs: the interpreter's
    prefixes (stdlib, venv, site-packages), the syncgrade package itself (not the repo
    around it), and the resolved ``argv[0]``."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(__file__).resolve().parents[1])}
    exe = shutil.which(argv0, path=path_var)
    if exe:
        paths.add(os.path.realpath(exe))
    return sorted(paths)


def _pick_uid() -> int | None:
    """A fresh unprivileged uid for this run, or None when we cannot switch uids."""
    if os.name != "posix" or os.geteuid() != 0:
        return None
    return _UID_BASE + secrets.randbelow(_UID_SPAN)


def _parent_protections(limits: Limits, isolation_used: str) -> list[Protection]:
    """Protections enforced by the grader process itself."""
    sweep = (
        "pid-namespace teardown by its init (kill -1, reaped and counted), then a /proc "
        "scan for the run token" if isolation_used == "namespaces" else
        "/proc scan: the child's process group and session, and any process whose "
        "environment holds the run token; killed via pidfd"
    )
    linux = sys.platform.startswith("linux")
    return [
        Protection("process-group", True, "new session and process group (setsid)"),
        Protection("wall-limit", True, f"{limits.wall_s:g} s, then SIGUSR1 stack dump "
                   f"({limits.stack_grace_s:g} s grace) and SIGKILL"),
        Protection("output-cap", True, f"{limits.output_bytes} bytes kept per stream"),
        Protection("result-cap", True, f"{limits.result_bytes} bytes or "
                   f"{limits.result_frames} result frames, then the child is stopped"),
        Protection("scrubbed-env", True, "only PATH, HOME, TMPDIR, LANG, PYTHON* defaults, "
                   "the caller's env and the sandbox fds"),
        Protection("temp-workdir", True, "fresh directory, removed after the run"),
        Protection("leftover-sweep", _procs.proc_scan_available(),
                   sweep if _procs.proc_scan_available() else
                   "no /proc: only the process group is killed"),
        Protection("parent-death-kill", linux, "PR_SET_PDEATHSIG: the child dies with the "
                   "grader" if linux else "Linux only"),
    ]


def _order(protections: list[Protection]) -> list[Protection]:
    rank = {n: i for i, n in enumerate(PROTECTION_ORDER)}
    return sorted(protections, key=lambda p: rank.get(p.name, len(rank)))


class _Run:
    """One execution: owns the pipes, the launcher process and the pump."""

    def __init__(self, argv: Sequence[str], limits: Limits, isolation: Isolation,
                 rundir: RunDir) -> None:
        self.argv = list(argv)
        self.limits = limits
        self.isolation = isolation
        self.rundir = rundir
        self.token = secrets.token_hex(16)
        self.stdout = StreamExcerpt(limits.output_bytes)
        self.stderr = StreamExcerpt(limits.output_bytes)
        self.frames = FrameDecoder(limits.result_bytes, limits.result_frames)
        self.stack = BoundedBytes(_STACK_BYTES)
        self.status = _Status()
        self.cpu_limit = limits.effective_cpu_s(os.cpu_count() or 1)
        self.stack_fd = -1  # read end of the stack pipe, once spawned

    def config(self, env: dict[str, str], fds: dict[str, int], hidden: Sequence[str],
               readable: Sequence[str]) -> dict[str, Any]:
        """The launcher's instructions (see ``_launcher.py``)."""
        work = str(self.rundir.work)
        exposed = sorted({*default_exposures(self.argv[0], env["PATH"]), *readable})
        return {
            "argv": self.argv, "env": env, "cwd": work, "isolation": self.isolation,
            "grader_pid": os.getpid(), "uid": _pick_uid(), "status_fd": fds["status"],
            "keep_fds": [fds["channel"], fds["stack"]],
            "needed": [*exposed, work],
            "rlimits": {"cpu": self.cpu_limit, "as": self.limits.memory_bytes,
                        "fsize": self.limits.file_bytes, "nproc": self.limits.processes},
            "jail": {"root": str(self.rundir.jail), "expose": exposed, "hidden": list(hidden),
                     "workdir": work, "tmp_bytes": self.limits.tmp_bytes},
        }

    def spawn(self, cfg_path: Path, stdin_fd: int, ends: dict[str, tuple[int, int]]
              ) -> subprocess.Popen[bytes]:
        """Start the launcher in a new session with exactly the fds it needs."""
        try:
            return subprocess.Popen(
                [sys.executable, "-I", "-S", str(LAUNCHER), str(cfg_path)],
                stdin=stdin_fd, stdout=ends["stdout"][1], stderr=ends["stderr"][1],
                pass_fds=(ends["channel"][1], ends["stack"][1], ends["status"][1]),
                start_new_session=True, cwd=self.rundir.path,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            )
        except OSError as e:
            raise SandboxError(f"could not start the sandbox launcher: {e}") from e

    def isolation_used(self) -> str:
        prot = self.status.last("protections")
        return str(prot["isolation"]) if prot else "unknown"

    def stop(self, proc: subprocess.Popen[bytes], pump: Pump, *, dump: bool = True) -> None:
        """Timeout: ask for a stack dump (if ``dump``), give it a moment, then kill
        everything."""
        if dump:
            _signal(proc.pid, signal.SIGUSR1)  # the launcher forwards it in namespace mode
            grace_end = time.monotonic() + self.limits.stack_grace_s
            stack_fd = self.stack_fd

            def dump_done() -> bool:
                last = pump.last_data.get(stack_fd)
                quiet = last is not None and time.monotonic() - last > _STACK_QUIET_S
                return pump.exited() or quiet

            pump.run(grace_end, dump_done)
        if self.isolation_used() == "namespaces" and not pump.exited():
            # init SIGKILLs the target, kills and counts the rest, reports, exits.
            _signal(proc.pid, signal.SIGTERM)
            pump.run(time.monotonic() + _STOP_GRACE_S, pump.exited)
        _procs.kill_group(proc.pid)
        pump.run(time.monotonic() + _STOP_GRACE_S, pump.exited)

    def execute(self, stdin: bytes, env: Mapping[str, str], hidden: Sequence[str],
                readable: Sequence[str]) -> SandboxOutcome:
        """Spawn, pump until exit or timeout, sweep, reap, and build the outcome."""
        ends = {name: os.pipe() for name in ("stdout", "stderr", "channel", "stack", "status")}
        fds = {name: w for name, (_, w) in ends.items()}
        child_env = child_environment(self.rundir.work, env, (fds["channel"], fds["stack"]),
                                      self.token)
        try:
            cfg_path = self.rundir.write_config(self.config(child_env, fds, hidden, readable))
            stdin_fd = self.rundir.open_stdin(stdin)
            try:
                start = time.monotonic()
                proc = self.spawn(cfg_path, stdin_fd, ends)
            finally:
                os.close(stdin_fd)
        except BaseException:
            for r, _ in ends.values():
                os.close(r)
            raise
        finally:
            for _, w in ends.values():
                os.close(w)  # only the child holds write ends: EOF means they are gone
        try:
            pump = self.pump_for(proc.pid, ends)
        except BaseException:  # the child is running: never leave it behind
            self.abort(proc)
            for r, _ in ends.values():
                with contextlib.suppress(OSError):
                    os.close(r)
            raise
        try:
            timed_out, wall, swept, wait_status, cpu = self.supervise(proc, pump, start)
        except BaseException:  # e.g. KeyboardInterrupt in the grader: leave nothing running
            self.abort(proc)
            raise
        finally:
            pump.close()
        return self.outcome(wait_status, timed_out, wall, swept, cpu)

    def pump_for(self, pid: int, ends: dict[str, tuple[int, int]]) -> Pump:
        """A pump that feeds each read end into its bounded sink."""
        pump = Pump(pid)
        sinks: dict[str, Sink] = {
            "stdout": self.stdout, "stderr": self.stderr, "channel": self.frames,
            "stack": self.stack, "status": self.status.raw,
        }
        for name, (r, _) in ends.items():
            enlarge_pipe(r)
            pump.add(r, sinks[name])
        self.stack_fd = ends["stack"][0]
        return pump

    def supervise(self, proc: subprocess.Popen[bytes], pump: Pump, start: float
                  ) -> tuple[bool, float, int, int, float]:
        """Run to the end; (timed_out, wall_s, swept, launcher wait status, cpu_s)."""
        # Past the result cap nothing the child sends can be kept: stop it now rather
        # than read and discard a flood until the wall limit.
        timed_out = not pump.run(start + self.limits.wall_s,
                                 lambda: pump.exited() or self.frames.truncated)
        if timed_out:
            self.stop(proc, pump)
        elif not pump.exited():
            self.stop(proc, pump, dump=False)
        wall = time.monotonic() - start
        swept = self.sweep(proc.pid)
        _, wait_status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(wait_status)  # Popen must not wait
        pump.run(time.monotonic() + _DRAIN_S, lambda: pump.open_streams == 0)
        return timed_out, wall, swept, wait_status, usage.ru_utime + usage.ru_stime

    def abort(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill and reap everything of the run after a failure in the grader itself."""
        if proc.returncode is None:
            _procs.kill_group(proc.pid)
            self.sweep(proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)

    def sweep(self, pid: int) -> int:
        """Kill leftovers while the main process is an unreaped zombie (no pid reuse)."""
        group = pid if self.isolation_used() != "namespaces" else None
        reported = self.status.last("protections") or {}
        uid = reported.get("uid")
        killed = _procs.sweep(self.token, group, exclude={pid},
                              uid=int(uid) if isinstance(uid, int) else None)
        _procs.kill_group(pid)
        return killed

    def outcome(self, launcher_status: int, timed_out: bool, wall: float, swept: int,
                cpu: float) -> SandboxOutcome:
        """Assemble the value; raise only for sandbox (grader) faults."""
        fatal = self.status.last("fatal")
        if fatal:
            raise SandboxError(f"sandbox setup failed: {fatal['error']}")
        exec_error = self.status.last("exec_error")
        if exec_error:
            raise SandboxError(f"could not execute {exec_error['error']}")
        reported = self.status.last("protections")
        if reported is None and not timed_out:
            raise SandboxError("sandbox launcher ended without starting the child "
                               f"(status {launcher_status}); stderr: {self.stderr.captured().text}")
        used: Literal["namespaces", "basic"] = (
            "namespaces" if reported and reported["isolation"] == "namespaces" else "basic")
        exit_event = self.status.last("exit") if used == "namespaces" else None
        wait_status: int | None = launcher_status
        leftover = 0
        if used == "namespaces":
            wait_status = exit_event["status"] if exit_event else None
            leftover = int(exit_event["leftover"]) if exit_event else 0
            cpu = float(exit_event["cpu_s"]) if exit_event else cpu
        stderr = self.stderr.captured()
        ending = classify(wait_status=wait_status, timed_out=timed_out, cpu_used=cpu,
                          cpu_limit=self.cpu_limit, stderr_text=stderr.text)
        protections = _parent_protections(self.limits, used)
        for name, applied, detail in (reported or {}).get("items", []):
            protections.append(Protection(str(name), bool(applied), str(detail)))
        return SandboxOutcome(
            termination=ending.termination, returncode=ending.returncode,
            signal_name=ending.signal_name, wall_s=wall, stdout=self.stdout.captured(),
            stderr=stderr, frames=self.frames.frames, frames_truncated=self.frames.truncated,
            stack_dump=bytes(self.stack.data).decode("utf-8", "replace") or None,
            escaped_killed=leftover + swept, protections=_order(protections),
            isolation=used,
            frames_incomplete=self.frames.incomplete, cpu_s=cpu,
            stderr_flags=ending.memory_flags,
        )


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def run_sandboxed(
    argv: Sequence[str],
    *,
    stdin: bytes = b"",
    files: Mapping[str, bytes] = {},
    env: Mapping[str, str] = {},
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass
    hidden_paths: Sequence[str | Path] = (),
    readable_paths: Sequence[str | Path] = (),
    isolation: Isolation = "auto",
) -> SandboxOutcome:
    """Run ``argv`` in a fresh sandbox and return what happened.

    Contract:
    - ``argv[0]`` is looked up on the child's PATH (the grader's interpreter directory,
      then /usr/local/bin, /usr/bin, /bin); pass ``sys.executable`` for Python.
    - ``files`` (relative name -> bytes) are written into a fresh working directory that
      is the child's cwd and HOME and is deleted afterwards.
    - The child sees only ``env`` plus minimal defaults, and gets the write ends of the
      result channel and the stack-dump pipe as the fds named in ``SYNCGRADE_CHANNEL_FD``
      and ``SYNCGRADE_STACK_FD``.
    - In namespace mode the child sees only system dirs, the interpreter, the syncgrade
      package, ``readable_paths`` (all read-only) and its workdir; ``hidden_paths`` are
      masked even inside those.
    - A learner's failure (crash, timeout, OOM, garbage output) is returned as data. Only
      a sandbox fault raises :class:`SandboxError` (launcher could not start, ``argv[0]``
      could not be executed, ``isolation="namespaces"`` unavailable).
    """
    if not argv:
        raise ValueError("argv must name a program")
    if limits.wall_s <= 0:
        raise ValueError("Limits.wall_s must be positive")
    rundir = RunDir()
    try:
        rundir.write_files(files)
        run = _Run(argv, limits, isolation, rundir)
        return run.execute(stdin, env, [str(p) for p in hidden_paths],
                           [str(p) for p in readable_paths])
    finally:
        rundir.remove()
