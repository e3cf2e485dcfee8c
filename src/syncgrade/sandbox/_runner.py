"""``run_sandboxed``: run one untrusted command under limits, return what happened."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from syncgrade import timing

from . import _procs
from ._capture import BoundedBytes, FrameDecoder, StreamExcerpt
from ._classify import classify
from ._environment import default_environment
from ._launcher import hidden_paths_problem
from ._process import ForkedProcess, LauncherProcess, RunProcess
from ._pump import Pump, Sink, enlarge_pipe
from ._resident import ResidentWatch
from ._workdir import RunDir
from ._zygote import Zygote
from .models import Isolation, Limits, Protection, SandboxError, SandboxOutcome

CHANNEL_FD_VAR = "SYNCGRADE_CHANNEL_FD"
STACK_FD_VAR = "SYNCGRADE_STACK_FD"
READY_FD_VAR = "SYNCGRADE_READY_FD"
LAUNCHER = Path(__file__).with_name("_launcher.py")

_STACK_BYTES = 1 << 20
_STATUS_BYTES = 1 << 20
_STACK_QUIET_S = 0.2  # a dump is complete once the stack pipe is quiet this long
_STOP_GRACE_S = 2.0  # namespace mode: time for init to kill and report after SIGTERM
_DRAIN_S = 1.0  # after the end: bounded time to read what is left in the pipes
_UID_BASE = 1_500_000_000  # per-run uids come from here: far above any real account
_UID_SPAN = 500_000_000

PROTECTION_ORDER = (
    "process-group", "wall-limit", "cpu-limit", "address-space-limit", "resident-memory-limit",
    "file-size-limit",
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
                      token: str, ready_fd: int | None = None) -> dict[str, str]:
    """The scrubbed environment: nothing of the grader's, defaults, caller's ``env``,
    and the sandbox's own variables last (they cannot be overridden). ``ready_fd``: the
    readiness pipe of a pre-started run (``READY_FD_VAR``)."""
    env = default_environment(str(workdir), str(workdir / "tmp"))
    env.update(extra)
    env[CHANNEL_FD_VAR] = str(fds[0])
    env[STACK_FD_VAR] = str(fds[1])
    env[_procs.TOKEN_VAR] = token
    if ready_fd is not None:
        env[READY_FD_VAR] = str(ready_fd)
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


def unprotected_reason(argv0: str, hidden: Sequence[str], *,
                       jail: bool | None = None) -> str | None:
    """Why a child ``argv0`` started now could read any of ``hidden``, or None when the
    hidden-path protection will hold (:func:`._launcher.hidden_paths_problem`): it needs
    what the launcher needs, the interpreter's prefixes and the temporary folder.
    ``jail``: whether the namespace jail can be built (default: ask the kernel)."""
    needed = [*default_exposures(argv0, os.environ.get("PATH", os.defpath)),
              tempfile.gettempdir()]
    return hidden_paths_problem([str(p) for p in hidden], needed, _UID_BASE, jail)


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
        Protection("wall-limit", True, f"{limits.wall_s:g} s"
                   + ("" if limits.startup_s is None else
                      f" from the child's first result frame (start-up: "
                      f"{limits.startup_s:g} s of its own)")
                   + ("" if limits.end_s is None else
                      f", the whole run within {limits.end_s:.1f} s (the caller's deadline)")
                   + f", then SIGUSR1 stack dump ({limits.stack_grace_s:g} s grace) "
                   "and SIGKILL"),
        *([Protection("resident-memory-limit", True,
                      f"{limits.memory_bytes} bytes of private resident memory (RssAnon of "
                      "the run's processes) over what the child held at its first result "
                      "frame, polled by the grader; stopped as a memory ending")]
          if limits.memory_kind == "resident" else []),
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
    """One execution: owns the pipes, the launcher process (or the zygote's fork that
    stands in for it) and the pump."""

    def __init__(self, argv: Sequence[str], limits: Limits, isolation: Isolation,
                 rundir: RunDir, zygote: Zygote | None = None) -> None:
        self.argv = list(argv)
        self.zygote = zygote
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
        self.feed = -1  # pre-started run: write end of the child's stdin pipe
        self.ready_fd = -1  # pre-started run: read end of the readiness pipe
        # timing.monotonic() of spawn (or delivery): the start-up's start. Every deadline
        # and clock of a run reads the grader's clock seam (a test may fake it).
        self.start = 0.0
        self.startup_timed_out = False  # stopped at Limits.startup_s, before any frame
        self.cut_short = False  # stopped at Limits.end_s before its full wall_s
        self.clock_s = 0.0  # seconds counted against Limits.wall_s
        self.stopped = False  # the sandbox itself killed the child (a limit, the cap)
        self.watch = (ResidentWatch(limits.memory_bytes, self.run_pids)
                      if limits.memory_kind == "resident" else None)
        self.proc: RunProcess
        self.pump: Pump

    def config(self, env: dict[str, str], fds: dict[str, int], hidden: Sequence[str],
               readable: Sequence[str]) -> dict[str, Any]:
        """The launcher's instructions (see ``_launcher.py``)."""
        work = str(self.rundir.work)
        exposed = sorted({*default_exposures(self.argv[0], env["PATH"]), *readable})
        return {
            "argv": self.argv, "env": env, "cwd": work, "isolation": self.isolation,
            "grader_pid": os.getpid(), "uid": _pick_uid(), "status_fd": fds["status"],
            "keep_fds": [fds["channel"], fds["stack"], *([fds["ready"]] if "ready" in fds
                                                          else [])],
            "target_only_fds": [fds["ready"]] if "ready" in fds else [],
            "needed": [*exposed, work],
            "rlimits": {"cpu": self.cpu_limit,
                        "as": (self.limits.memory_bytes
                               if self.limits.memory_kind == "address-space" else None),
                        "fsize": self.limits.file_bytes, "nproc": self.limits.processes},
            "jail": {"root": str(self.rundir.jail), "expose": exposed, "hidden": list(hidden),
                     "workdir": work, "tmp_bytes": self.limits.tmp_bytes},
        }

    def spawn(self, cfg: dict[str, Any], stdin_fd: int, ends: dict[str, tuple[int, int]]
              ) -> RunProcess:
        """Start the launcher (or have the zygote fork one) in a new session with
        exactly the fds it needs."""
        # The write ends the launcher keeps at their own numbers (the config names them).
        passed = [w for name, (_, w) in ends.items() if name not in ("stdout", "stderr")]
        if self.zygote is not None:
            pid, pidfd = self.zygote.spawn(
                cfg, str(self.rundir.path),
                fds=[stdin_fd, ends["stdout"][1], ends["stderr"][1], *passed],
                targets=[0, 1, 2, *passed])
            return ForkedProcess(self.zygote, pid, pidfd)
        cfg_path = self.rundir.write_config(cfg)
        try:
            return LauncherProcess(subprocess.Popen(
                [sys.executable, "-I", "-S", str(LAUNCHER), str(cfg_path)],
                stdin=stdin_fd, stdout=ends["stdout"][1], stderr=ends["stderr"][1],
                pass_fds=tuple(passed),
                start_new_session=True, cwd=self.rundir.path,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            ))
        except OSError as e:
            raise SandboxError(f"could not start the sandbox launcher: {e}") from e

    def isolation_used(self) -> str:
        prot = self.status.last("protections")
        return str(prot["isolation"]) if prot else "unknown"

    def stop(self, proc: RunProcess, pump: Pump, *, dump: bool = True) -> None:
        """Timeout: ask for a stack dump (if ``dump``), give it a moment, then kill
        everything."""
        self.stopped = True
        if dump:
            _signal(proc.pid, signal.SIGUSR1)  # the launcher forwards it in namespace mode
            grace_end = timing.monotonic() + self.limits.stack_grace_s
            stack_fd = self.stack_fd

            def dump_done() -> bool:
                last = pump.last_data.get(stack_fd)
                quiet = last is not None and timing.monotonic() - last > _STACK_QUIET_S
                return pump.exited() or quiet

            pump.run(grace_end, dump_done)
        if self.isolation_used() == "namespaces" and not pump.exited():
            # init SIGKILLs the target, kills and counts the rest, reports, exits.
            _signal(proc.pid, signal.SIGTERM)
            pump.run(timing.monotonic() + _STOP_GRACE_S, pump.exited)
        _procs.kill_group(proc.pid)
        pump.run(timing.monotonic() + _STOP_GRACE_S, pump.exited)

    def execute(self, stdin: bytes, env: Mapping[str, str], hidden: Sequence[str],
                readable: Sequence[str]) -> SandboxOutcome:
        """Spawn, pump until exit or timeout, sweep, reap, and build the outcome."""
        self.launch(env, hidden, readable, stdin=stdin)
        return self.finish()

    def launch(self, env: Mapping[str, str], hidden: Sequence[str], readable: Sequence[str],
               *, stdin: bytes | None) -> None:
        """Spawn the launcher and set up the pump; the clock starts now (the start-up's,
        or the wall limit's when ``Limits.startup_s`` is None).

        ``stdin=None`` pre-starts the run: the child's stdin is a pipe whose write end is
        kept in ``self.feed`` (see :meth:`deliver`), and the child gets the write end of a
        readiness pipe (``SYNCGRADE_READY_FD``, read end in ``self.ready_fd``)."""
        names = ["stdout", "stderr", "channel", "stack", "status"]
        if stdin is None:
            names.append("ready")
        ends = {name: os.pipe() for name in names}
        fds = {name: w for name, (_, w) in ends.items()}
        child_env = child_environment(self.rundir.work, env, (fds["channel"], fds["stack"]),
                                      self.token, ready_fd=fds.get("ready"))
        feed: tuple[int, int] | None = None
        try:
            cfg = self.config(child_env, fds, hidden, readable)
            if stdin is None:
                feed = os.pipe()
                enlarge_pipe(feed[1])
                stdin_fd = feed[0]
            else:
                stdin_fd = self.rundir.open_stdin(stdin)
            try:
                self.start = timing.monotonic()
                proc = self.spawn(cfg, stdin_fd, ends)
            finally:
                os.close(stdin_fd)
        except BaseException:
            for r, _ in ends.values():
                os.close(r)
            if feed is not None:
                os.close(feed[1])
            raise
        finally:
            for _, w in ends.values():
                os.close(w)  # only the child holds write ends: EOF means they are gone
        self.proc = proc
        if feed is not None:
            self.feed = feed[1]
            self.ready_fd = ends.pop("ready")[0]
            os.set_blocking(self.ready_fd, False)
        try:
            self.pump = self.pump_for(proc, ends)
        except BaseException:  # the child is running: never leave it behind
            self.abort(proc)
            for r, _ in ends.values():
                with contextlib.suppress(OSError):
                    os.close(r)
            self.close_feed()
            raise

    def finish(self) -> SandboxOutcome:
        """Pump until exit or the limits (from ``self.start``: see :meth:`supervise`),
        sweep, reap, and build the outcome. Always leaves nothing running."""
        try:
            timed_out, wall, swept, wait_status, cpu = self.supervise(self.proc, self.pump,
                                                                      self.start)
        except BaseException:  # e.g. KeyboardInterrupt in the grader: leave nothing running
            self.abort(self.proc)
            raise
        finally:
            self.pump.close()
            self.close_feed()
        return self.outcome(wait_status, timed_out, wall, swept, cpu)

    def close_feed(self) -> None:
        """Close the parent's ends of the stdin and readiness pipes (pre-started runs)."""
        for name in ("feed", "ready_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                setattr(self, name, -1)
                with contextlib.suppress(OSError):
                    os.close(fd)

    def pump_for(self, proc: RunProcess, ends: dict[str, tuple[int, int]]) -> Pump:
        """A pump that feeds each read end into its bounded sink."""
        pump = Pump(proc)
        sinks: dict[str, Sink] = {
            "stdout": self.stdout, "stderr": self.stderr, "channel": self.frames,
            "stack": self.stack, "status": self.status.raw,
        }
        for name, (r, _) in ends.items():
            enlarge_pipe(r)
            pump.add(r, sinks[name])
        self.stack_fd = ends["stack"][0]
        return pump

    def supervise(self, proc: RunProcess, pump: Pump, start: float
                  ) -> tuple[bool, float, int, int, float]:
        """Run to the end; (timed_out, wall_s, swept, launcher wait status, cpu_s). Sets
        :attr:`startup_timed_out` and :attr:`clock_s` (see ``Limits.startup_s``)."""

        def over() -> bool:
            # Past the result cap nothing the child sends can be kept: stop it now rather
            # than read and discard a flood until the wall limit.
            return pump.exited() or self.frames.truncated or self.memory_over()

        clock: float | None = start
        end = math.inf if self.limits.end_s is None else start + self.limits.end_s
        if self.limits.startup_s is not None:
            # The child's start-up has its own budget; the wall limit counts from its
            # first write on the result channel (the grading child's hello frame).
            # Before the hello frame the baseline of the resident limit is not set: the
            # runtime's own memory is not the learner's (only exit and the cap stop it).
            began = pump.run(min(start + self.limits.startup_s, end),
                             lambda: pump.exited() or self.frames.truncated
                             or self.frames.total > 0)
            clock = timing.monotonic() if began and self.frames.total > 0 else None
            self.startup_timed_out = not began
            if self.watch is not None and clock is not None:
                self.watch.set_baseline()  # the runtime's own memory: not the learner's
        limit = (clock or start) + self.limits.wall_s
        timed_out = self.startup_timed_out or not pump.run(min(limit, end), over)
        # Stopped by the caller's deadline before its own limit: no stack dump (no
        # learner line to name; the time is the grader's to account for).
        self.cut_short = timed_out and not self.startup_timed_out and end < limit
        if timed_out:
            self.stop(proc, pump, dump=not self.cut_short)
        elif not pump.exited():
            self.stop(proc, pump, dump=False)
        wall = timing.monotonic() - start
        self.clock_s = 0.0 if clock is None else wall + start - clock
        swept = self.sweep(proc.pid)
        reaped = proc.reap()
        assert reaped is not None  # reap() without a timeout waits for the exit
        wait_status, cpu = reaped
        pump.run(timing.monotonic() + _DRAIN_S, lambda: pump.open_streams == 0)
        return timed_out, wall, swept, wait_status, cpu

    def run_pids(self) -> set[int]:
        """The run's live processes (the resident-memory watchdog sums their memory)."""
        group = self.proc.pid if self.isolation_used() != "namespaces" else None
        return {self.proc.pid, *_procs.find_leftovers(self.token, group, exclude=())}

    def memory_over(self) -> bool:
        """Whether the resident-memory watchdog (if any) says stop."""
        return self.watch is not None and self.watch.over()

    def abort(self, proc: RunProcess) -> None:
        """Kill and reap everything of the run after a failure in the grader itself."""
        if not proc.reaped():
            _procs.kill_group(proc.pid)
            self.sweep(proc.pid)
            with contextlib.suppress(SandboxError):  # the zygote is gone: so is the run
                proc.reap(timeout=5)

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
                          cpu_limit=self.cpu_limit, stderr_text=stderr.text,
                          stopped=self.stopped or timed_out)
        if self.watch is not None and self.watch.exceeded and not timed_out:
            ending = dataclasses.replace(ending, termination="memory", unexplained_kill=False)
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
            stderr_flags=ending.memory_flags, startup_timeout=self.startup_timed_out,
            cut_short=self.cut_short, clock_s=self.clock_s,
            unexplained_kill=ending.unexplained_kill,
        )


def _check_clocks(wall_s: float, startup_s: float | None, end_s: float | None = None
                  ) -> None:
    if not wall_s > 0:
        raise ValueError("Limits.wall_s must be positive")
    if startup_s is not None and not startup_s > 0:
        raise ValueError("Limits.startup_s must be positive (or None)")
    if end_s is not None and not end_s > 0:
        raise ValueError("Limits.end_s must be positive (or None)")


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
    - ``limits.wall_s`` counts from spawn, or, with ``limits.startup_s``, from the
      child's first write on the result channel, which must come within ``startup_s``
      of spawn (else a timeout with ``startup_timeout``).
    - In namespace mode the child sees only system dirs, the interpreter, the syncgrade
      package, ``readable_paths`` (all read-only) and its workdir; ``hidden_paths`` are
      masked even inside those.
    - A learner's failure (crash, timeout, OOM, garbage output) is returned as data. Only
      a sandbox fault raises :class:`SandboxError` (launcher could not start, ``argv[0]``
      could not be executed, ``isolation="namespaces"`` unavailable).
    """
    if not argv:
        raise ValueError("argv must name a program")
    _check_clocks(limits.wall_s, limits.startup_s, limits.end_s)
    rundir = RunDir()
    try:
        rundir.write_files(files)
        run = _Run(argv, limits, isolation, rundir)
        return run.execute(stdin, env, [str(p) for p in hidden_paths],
                           [str(p) for p in readable_paths])
    finally:
        rundir.remove()


class PreStarted:
    """A sandboxed child started before its input exists (see :func:`start_sandboxed`).

    Used exactly once: :meth:`deliver` runs it to the end, or :meth:`discard` kills it.
    Not thread-safe: one owner at a time (the warm pool hands each to one caller).
    """

    def __init__(self, run: _Run) -> None:
        self._run = run
        self._ready = False
        self._gone = False  # EOF on the readiness pipe: the child is dead or dying
        self._used = False

    @property
    def limits(self) -> Limits:
        """The limits it was started under (its rlimits are fixed)."""
        return self._run.limits

    @property
    def pid(self) -> int:
        """The launcher's pid (the process group of the run)."""
        return self._run.proc.pid

    @property
    def forked(self) -> bool:
        """Whether it was forked from a zygote."""
        return self._run.zygote is not None

    @property
    def said_ready(self) -> bool:
        """Whether the child ever said it is warm (alive or not now)."""
        return self._ready

    def ready(self) -> bool:
        """Whether the child said it is warm (a byte on its readiness fd) and is still
        alive; never blocks."""
        return self.alive() and self._ready

    def alive(self) -> bool:
        """Whether the child is still there: its readiness pipe (held by the child alone,
        until it has read its job) has not reached EOF and the launcher has not exited.
        Never blocks and never reaps (the pid stays reserved until :meth:`discard`)."""
        fd = self._run.ready_fd
        while fd >= 0 and not self._gone:
            try:
                data = os.read(fd, 16)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            self._ready = self._ready or bool(data)
            self._gone = not data
        return not (self._used or self._gone or self._run.pump.exited())

    def deliver(self, stdin: bytes, files: Mapping[str, bytes], wall_s: float, *,
                startup_s: float | None = None, end_s: float | None = None
                ) -> SandboxOutcome:
        """Write ``files`` into the workdir, then ``stdin`` (and EOF) to the child, and
        run it to the end with ``wall_s`` of wall time counted from now, or, given
        ``startup_s`` (``Limits.startup_s``), with ``startup_s`` from now for the rest
        of the child's start-up and ``wall_s`` from its first result frame; ``end_s``
        (``Limits.end_s``) caps the whole from now. Same outcome and same cleanup as
        :func:`run_sandboxed`; raises only for grader faults."""
        if self._used:
            raise RuntimeError("a pre-started sandbox run can be used only once")
        _check_clocks(wall_s, startup_s, end_s)
        self._used = True
        run = self._run
        try:
            run.limits = dataclasses.replace(run.limits, wall_s=wall_s, startup_s=startup_s,
                                             end_s=end_s)
            try:
                run.rundir.write_files(files)
            except BaseException:
                run.abort(run.proc)
                run.pump.close()
                run.close_feed()
                raise
            run.start = timing.monotonic()
            self._feed(stdin, run.start + (wall_s if startup_s is None else startup_s))
            return run.finish()
        finally:
            run.rundir.remove()

    def _feed(self, data: bytes, deadline: float) -> None:
        """Write ``data`` to the child's stdin and close it. A child that is gone or
        does not read by ``deadline`` is left to :meth:`_Run.finish` to report."""
        fd, self._run.feed = self._run.feed, -1
        try:
            os.set_blocking(fd, False)
            view = memoryview(data)
            while view and timing.monotonic() < deadline:
                try:
                    view = view[os.write(fd, view):]
                except BlockingIOError:
                    select.select([], [fd], [], min(0.05, max(0.0, deadline - timing.monotonic())))
                except OSError:  # EPIPE: the child is gone
                    break
        finally:
            os.close(fd)

    def discard(self) -> None:
        """Kill the child and everything it started, reap, and remove its directory.
        Idempotent; a no-op after :meth:`deliver`."""
        if self._used:
            return
        self._used = True
        run = self._run
        try:
            run.abort(run.proc)
            # SIGKILL is asynchronous: return only once init and the child are gone too.
            _procs.wait_gone(run.token, run.proc.pid, _STOP_GRACE_S)
        finally:
            run.pump.close()
            run.close_feed()
            run.rundir.remove()


def start_sandboxed(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] = {},
    limits: Limits = Limits(),  # noqa: B008 - frozen dataclass
    hidden_paths: Sequence[str | Path] = (),
    readable_paths: Sequence[str | Path] = (),
    isolation: Isolation = "auto",
    base: str | None = None,
    zygote: Zygote | None = None,
) -> PreStarted:
    """Start ``argv`` in a fresh sandbox now; give it its stdin and files later.

    Everything is as in :func:`run_sandboxed` (same launcher, jail, hidden paths,
    rlimits, scrubbed environment, sweep), except:

    - the child starts with an empty workdir and its stdin is a pipe; nothing of the
      later input exists yet. :meth:`PreStarted.deliver` writes the files, then the stdin
      bytes, and supervises the child with the wall limit counted from that moment;
    - the child finds a readiness fd in ``SYNCGRADE_READY_FD``: writing a byte to it
      (then closing it) marks the child warm (:meth:`PreStarted.ready`);
    - the rlimits, including the CPU limit derived from ``limits.wall_s`` and
      ``limits.startup_s``, are fixed now, so deliver with a ``wall_s`` and a
      ``startup_s`` no larger than those;
    - ``base``: the directory for the run directory (default: the temp directory now);
    - ``zygote``: a started :class:`Zygote` for ``argv``, to fork the run from instead of
      starting a fresh interpreter (same sandbox; the imports it did are not paid again).
      Such a run requires namespace isolation (``isolation="basic"`` is a ValueError;
      where namespaces are unavailable the run ends at once with a sandbox fault):
      without a pid namespace its parent, the zygote, would be the learner's to signal.

    The launcher's parent-death signal follows the *thread* that calls this: call it
    from a thread that outlives the run (the warm pool's own spawner thread).
    """
    if not argv:
        raise ValueError("argv must name a program")
    _check_clocks(limits.wall_s, limits.startup_s, limits.end_s)
    rundir = RunDir(base)
    try:
        if zygote is not None:
            if list(argv) != list(zygote.argv):
                raise ValueError(f"the zygote serves {list(zygote.argv)!r}, not {list(argv)!r}")
            if isolation == "basic":
                raise ValueError("a zygote's runs need namespace isolation")
            isolation = "namespaces"  # never a run the zygote is visible to (see Zygote)
        run = _Run(argv, limits, isolation, rundir, zygote)
        run.launch(env, [str(p) for p in hidden_paths], [str(p) for p in readable_paths],
                   stdin=None)
    except BaseException:
        rundir.remove()
        raise
    return PreStarted(run)
