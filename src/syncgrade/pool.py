"""A warm pool of pre-started grading children: jax already imported, no learner code yet.

Importing jax costs 1-2 s per process on a 2-core machine, most of a cold grade. A
:class:`WarmPool` keeps ``size`` sandboxed children started ahead of time. Each has
imported jax, initialised its backend and imported the grader's child modules (the
instrumentation, the recorder, the guard), then waits for a job. Nothing of any
submission exists in it yet: no job, no key, no learner file, no hidden input.

Each child is forked from the pool's zygote, which imported jax once (docs/security.md,
"The zygote"), or, where that is unavailable, started as a fresh interpreter. Isolation
is the cold child's, unchanged (docs/performance.md, "How the pool keeps isolation"):

- every pooled child is started by the same launcher with the same jail, hidden paths,
  rlimits, per-run uid, scrubbed environment and leftover sweep as a cold one
  (:func:`syncgrade.sandbox.start_sandboxed`), and runs the same ``syncgrade.child``
  program; the audit-hook guard, the sealed recorder and the channel key are set up only
  after the job arrives, exactly as in a cold child;
- each child serves exactly ONE child run of one submission and is then discarded (its
  processes killed, its directory removed); a fresh one is started in the background;
- the job (with the per-run HMAC key) is written to the child's stdin pipe and the
  submission and inputs into its fresh workdir only at delivery, and the learner's wall
  clock counts from the child's hello frame (what is left of its start-up after
  delivery has the grader's own budget, ``Limits.startup_s``), as in a cold child;
- a child that died while idle is discarded and replaced, never handed a job; one lost
  between the liveness check and delivery (it wrote no frame, so no learner code ran)
  is replaced by a cold run of the same job.

The pool falls back to a cold spawn, with the same result, when the requested limits
differ from its own (other memory, or a longer wall limit than it was started for), when
it is closed, or when no child is warm within ``wait_s``.

Usage::

    with WarmPool(size=2) as pool:
        report = grading.grade("exercise-1", path, pool=pool)

``SYNCGRADE_WARM_POOL=N`` (N > 0) makes :func:`syncgrade.grading.grade` use one
process-wide pool of size N (:func:`shared_pool`) whenever no pool is passed. This module
never imports jax: only the children do.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from syncgrade import accelerator, sandbox, timing
from syncgrade.limits import DEFAULT_MEMORY_BYTES, STARTUP_TIMEOUT_S
from syncgrade.limits import DEFAULT_TIMEOUT_S as DEFAULT_TIMEOUT_S

PACKAGE_ROOT = Path(__file__).resolve().parent  # not syncgrade.__file__: no import of the API
BUILTIN_COURSE_PATHS = (PACKAGE_ROOT / "course", PACKAGE_ROOT / "solutions",
                        PACKAGE_ROOT.parent.parent / "exercises",
                        PACKAGE_ROOT.parent.parent / "solutions")
"""Where the built-in course may be (syncgrade.courses.BUILTIN_ROOT and the folder its
``course.toml``'s ``solutions = "../solutions"`` names: the wheel's, which ships none, and
the checkout's), hidden from every child even before the course is opened, so a
pre-started child serves its grades; a path that is absent hides nothing."""
ENV_VAR = "SYNCGRADE_WARM_POOL"
ZYGOTE_ENV_VAR = "SYNCGRADE_ZYGOTE"
"""``SYNCGRADE_ZYGOTE=0`` makes pools start each child as a fresh interpreter (no zygote)."""
ZYGOTE_PRELOAD = ("numpy", "jax", "jax.numpy", "syncgrade.child.guard",
                  "syncgrade.child.harness", "syncgrade.child.instrument",
                  "syncgrade.child.recorder", "syncgrade.child.reference",
                  "syncgrade.child.values", "syncgrade.child.workloads")
"""What a pool's zygote imports once for all its children: the libraries (0.9 CPU-s a
child otherwise) and the grader's own child modules, which every child's warm-up imports
anyway before any learner code (0.04 CPU-s a child; none of them reads the environment
or starts anything at import, and the zygote checks that no backend or thread started)."""
ZYGOTE_PREPARE = "syncgrade.child.spin_executable"
"""What a pool's zygote prepares once for all its children (``sandbox.Zygote``'s
``prepare``): the probe's spin, compiled in a throwaway fork of the zygote and loaded by
each child's warm-up instead of compiled there (docs/performance.md, "The test suite's
time")."""
# DEFAULT_TIMEOUT_S (syncgrade.limits): a pool started for it serves any grade up to it.
SHARED_MAX_WALL_S = 600.0
"""The longest wall limit the process-wide pool serves warm. Its children start with the
CPU-time backstop of this wall limit; a run's own, shorter wall limit still counts from
delivery and ends it first, so a warm run ends exactly as a cold one would."""
_RESPAWN_BACKOFF_S = 1.0  # after a failed start: do not spin on a broken sandbox
_LIVENESS_S = 0.5  # how often idle children are checked for an early death


@dataclass(frozen=True)
class ChildCommand:
    """How the engine's grading child is started: the same for cold and pooled runs."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    hidden_paths: tuple[Path, ...]
    device: accelerator.Device = "auto"
    readable_paths: tuple[Path, ...] = ()
    """Folders outside the interpreter's prefixes the child imports its runtime from
    (``accelerator.import_paths``): shown read-only in a jail."""

    def lease(self) -> accelerator.DeviceLease | None:
        """A fresh (not yet held) device lease for one child, or None on the CPU."""
        return accelerator.lease_for(self.device)

    def for_device(self, limits: sandbox.Limits) -> sandbox.Limits:
        """``limits`` as a child of this command runs under: resident memory instead of
        address space where it may open an accelerator (``Limits.memory_kind``)."""
        if accelerator.leased_platform(self.device) is None:
            return limits
        return dataclasses.replace(limits, memory_kind="resident")


ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1"}
"""NumPy's BLAS runs on the calling thread in the child: ``interval-clean`` counts the
learner thread's CPU time, and a matrix product that BLAS splits over its worker threads
shows only its share there. Measured by tests/pool/test_blas_threads.py on 2 cores: with
BLAS worker threads the learner's thread spent 0.36-0.51 of its products' CPU time (the
rest ran on workers its thread CPU clock does not see), with one thread more than 0.8.
Idle BLAS workers also spin for work after each product, taking a core from the device's
threads. Set before numpy is imported (the zygote's environment is the runs')."""


def child_command(hidden: Sequence[Path] = (), device: str | None = None) -> ChildCommand:
    """``python -m syncgrade.child`` with the package on ``PYTHONPATH``, then the folders
    the grader's own jax, numpy and runtime come from (the same JAX as the grader's, also
    from ``PYTHONPATH``), and the accelerator runtime's variables for ``device`` (default
    ``$SYNCGRADE_DEVICE``, else ``auto``: :mod:`syncgrade.accelerator`); hidden from it:
    the rubric library, the built-in course wherever it is (the package's
    ``syncgrade/course/``; in a checkout ``exercises/`` and ``solutions/``: declarations,
    solutions, mutants, corpus), the course ``$SYNCGRADE_COURSE`` names and every course
    this process opened (each with its solutions folder), and ``hidden`` (a course's
    folders: see :attr:`syncgrade.courses.Course.hidden_paths`)."""
    found = [PACKAGE_ROOT / "rubric", *BUILTIN_COURSE_PATHS, *_course_roots(), *hidden]
    choice = accelerator.device_choice(device)
    runtime = accelerator.import_paths()
    path = [str(PACKAGE_ROOT.parent), *(p for p in runtime if p != str(PACKAGE_ROOT.parent))]
    return ChildCommand(
        argv=(sys.executable, "-m", "syncgrade.child"),
        env={**accelerator.runtime_environment(choice),
             "PYTHONPATH": os.pathsep.join(path), "PYTHONDONTWRITEBYTECODE": "1",
             **ONE_BLAS_THREAD},
        hidden_paths=tuple(dict.fromkeys(Path(os.path.realpath(p)) for p in found)),
        device=choice, readable_paths=tuple(Path(p) for p in runtime),
    )


def _course_roots() -> list[Path]:
    """The folders (each course's and its solutions folder) of the courses this process
    knows of: every course opened so far and the one ``$SYNCGRADE_COURSE`` names. A pool
    started now hides them all, so a later grade of any of them can use its children."""
    courses = sys.modules.get("syncgrade.courses")
    roots = list(courses.opened_hidden_paths()) if courses is not None else []
    named = os.environ.get("SYNCGRADE_COURSE", "").strip()  # courses.COURSE_ENV
    if named and os.path.isdir(named):
        roots.append(Path(named))  # taken as it is: no import of the course loader...
        if not names_solutions(Path(named)):
            return roots
    if named:  # ...unless it is an installed course's name or keeps its solutions outside
        from syncgrade.courses import CourseError, course_hidden_paths, course_root

        with contextlib.suppress(CourseError):  # the grade itself reports it
            roots.extend(course_hidden_paths(course_root(named)))
    return roots


def course_hidden(spec: str | None) -> tuple[Path, ...]:
    """The folder of the course ``spec`` names (a folder, or an installed course's name)
    and its solutions folder: what a child started for it must not see, found without
    importing the grader where that can be helped (a pre-started child then starts
    sooner: the course loader's import is seconds of a loaded machine's CPU). ``None``:
    nothing beyond :func:`child_command`'s own (the built-in course and
    ``$SYNCGRADE_COURSE``). A folder is taken as it is unless its ``course.toml`` may name
    a solutions folder; then, and for an installed course, the loader reads it. Raises
    :class:`~syncgrade.courses.CourseError` when there is no such course or its
    ``course.toml`` is wrong."""
    if spec is None:
        return ()
    if os.path.isdir(spec) and not names_solutions(Path(spec)):
        return (Path(spec),)
    from syncgrade.courses import course_hidden_paths, course_root

    return course_hidden_paths(course_root(spec))


def names_solutions(root: Path) -> bool:
    """Whether the course folder's ``course.toml`` may name a solutions folder (a cheap
    look at its text; the course loader reads it properly)."""
    try:
        text = (root / "course.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "solutions" in text


def covers(command: ChildCommand, hidden: Sequence[Path]) -> bool:
    """Whether a child started with ``command`` hides every path of ``hidden``."""
    return {Path(os.path.realpath(p)) for p in hidden} <= set(command.hidden_paths)


def run_cold(stdin: bytes, files: Mapping[str, bytes],
             limits: sandbox.Limits, *, hidden: Sequence[Path] = ()) -> sandbox.SandboxOutcome:
    """One grading child started now for this job (no pool); ``hidden``: paths it must
    not see besides :func:`child_command`'s."""
    command = child_command(hidden)
    with leased(command.lease()):
        return sandbox.run_sandboxed(list(command.argv), stdin=stdin, files=files,
                                     env=command.env, limits=command.for_device(limits),
                                     hidden_paths=command.hidden_paths,
                                     readable_paths=command.readable_paths)


@contextlib.contextmanager
def leased(lease: accelerator.DeviceLease | None) -> Iterator[None]:
    """Hold ``lease`` (if any) around a child run; a device busy past the lease's wait
    is a :class:`~syncgrade.sandbox.SandboxError` (a grader fault, never the learner's)."""
    try:
        with accelerator.holding(lease):
            yield
    except accelerator.DeviceBusy as exc:
        raise sandbox.SandboxError(str(exc)) from None


@dataclass
class PoolStats:
    """Counters, for tests, benchmarks and ``/healthz``-style reporting."""

    started: int = 0  # children started (warm-up begun)
    warm: int = 0  # child runs served by a pooled child
    cold: int = 0  # child runs that fell back to a cold spawn
    replaced: int = 0  # pooled children that died while idle and were replaced
    start_failures: int = 0  # pooled starts that raised (SandboxError)
    forked: int = 0  # children forked from the pool's zygote (of ``started``)
    zygote: str = "off"  # "off", "on", or "failed: why" (children then start fresh)
    fallback_reasons: dict[str, int] = field(default_factory=dict)


class WarmPool:
    """``size`` pre-started grading children, each used for exactly one child run.

    Thread-safe: any number of threads may call :meth:`run` (or grade with
    ``pool=``) at once. ``timeout``/``memory_bytes`` (or ``limits``) are the limits the
    children are started under; a run asking for the same memory and a wall limit up to
    ``timeout`` is served warm. ``wait_s`` bounds how long a run waits for a warm child
    before starting a cold one. ``refill=False`` starts ``size`` children once and never
    replaces them; ``only_ready=False`` hands a child the job even while it is still
    importing (:func:`prestart`). ``base``: where the children's run directories go
    (default: the temp directory when the pool is made). ``idle_limit_s``: discard a
    child idle longer than this (default: never). ``defer_refill`` (default): while runs
    are in flight, start replacements only as :func:`children_to_start` says (latency:
    a learner's grade keeps its cores); ``False``: always refill to ``size`` at once
    (throughput: ``grade batch``). ``zygote`` (default: unless ``SYNCGRADE_ZYGOTE=0``):
    fork the children from one :class:`~syncgrade.sandbox.Zygote` that imported jax
    once, instead of starting each as a fresh interpreter; if the zygote cannot start or
    dies, children start fresh again (``stats.zygote`` says why). Close it (or use
    ``with``): that kills
    the idle children, waits for runs in progress and removes every directory; it is
    also closed at interpreter exit, and a one-shot pool closes itself once its children
    are used or discarded.

    All children are started from one long-lived thread of the pool: the sandbox's
    parent-death signal follows the thread that started a child, so a short-lived
    caller thread must never start one.
    """

    _cold_runs = 0  # cold runs in flight on a leased device: start nothing meanwhile
    _starting = False  # a child is being started (its lease taken or being waited for)

    def __init__(self, size: int = 2, *, timeout: float = DEFAULT_TIMEOUT_S,
                 memory_bytes: int | None = None, limits: sandbox.Limits | None = None,
                 wait_s: float = 3.0, refill: bool = True,
                 only_ready: bool = True, base: str | None = None,
                 idle_limit_s: float | None = None, defer_refill: bool = True,
                 zygote: bool | None = None, hidden: Sequence[Path] = ()) -> None:
        if size < 1:
            raise ValueError("a warm pool needs at least one child")
        self.size = size
        self.refill = refill
        self.only_ready = only_ready
        self.idle_limit_s = idle_limit_s
        self.defer_refill = defer_refill
        self.limits = limits or sandbox.Limits(
            wall_s=timeout, startup_s=STARTUP_TIMEOUT_S,
            memory_bytes=memory_bytes or DEFAULT_MEMORY_BYTES)
        self.wait_s = wait_s
        self.stats = PoolStats()
        # Captured now: run directories go where the temp dir was when the pool was made
        # (or into ``base``), wherever it points later.
        self._base = base or tempfile.gettempdir()
        self._command = child_command(hidden)
        self._want_zygote = (os.environ.get(ZYGOTE_ENV_VAR, "1").strip() != "0"
                             if zygote is None else zygote)
        # On an accelerator each child holds the device lease from its start (its warm-up
        # opens the device) until it is used or discarded; grades wait for it rather than
        # go cold behind it, a cold run first discards the idle children (their leases),
        # and no zygote is used (docs/accelerators.md, "One chip, one holder").
        self._leases: dict[int, accelerator.DeviceLease] = {}
        self._leasing = self._command.lease() is not None
        if self._leasing:
            # One device, one holder: a second idle child could only wait for the lease
            # the first holds, so a pool on an accelerator keeps one child warm.
            self.size = 1
            self.limits = self._command.for_device(self.limits)
            self._want_zygote = False
            self.wait_s = max(wait_s, self.limits.startup_s or 0.0)
        self._zygote: sandbox.Zygote | None = None
        self._zygote_starting: sandbox.Zygote | None = None  # aborted by close()
        self._cond = threading.Condition()
        self._idle: list[sandbox.PreStarted] = []
        self._born: dict[int, float] = {}  # id(child) -> when it was started
        self._in_use = 0
        self._closed = False
        self._failing = False  # the last child died before it was warm: do not wait
        self._thread = threading.Thread(target=self._keep_filled, name="syncgrade-warm-pool",
                                        daemon=True)
        self._thread.start()
        atexit.register(self.close)

    # ------------------------------------------------------------------ public API

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def warm_children(self) -> int:
        """How many idle children are warm and alive now (benchmarks, health checks)."""
        with self._cond:
            return sum(child.ready() for child in self._idle)

    def compatible(self, limits: sandbox.Limits) -> bool:
        """Whether a run under ``limits`` can use a child started under the pool's: the
        same limits in every field but ``wall_s`` and ``startup_s``, whose sum may be
        smaller (the CPU-time backstop, fixed at start, then stays that of the pool's)."""
        limits = self._command.for_device(limits)
        return (_clock_budget(limits) <= _clock_budget(self.limits)
                and _without_wall(limits) == _without_wall(self.limits))

    def run(self, stdin: bytes, files: Mapping[str, bytes],
            limits: sandbox.Limits, *, hidden: Sequence[Path] = ()) -> sandbox.SandboxOutcome:
        """Run the grading child on ``stdin`` (the job) and ``files``: in a warm child
        when one fits, else cold. The same contract as :func:`run_cold`. A job whose
        ``hidden`` paths (its course folder) the pool's children do not hide always goes
        cold."""
        if not covers(self._command, hidden):
            self._count_fallback("a course the pool does not hide")
            return self._cold(stdin, files, limits, hidden)
        child = self._take(limits)
        if child is None:
            return self._cold(stdin, files, limits, hidden)
        delivered = timing.monotonic()
        try:
            outcome = child.deliver(stdin, files, limits.wall_s, startup_s=limits.startup_s,
                                    end_s=limits.end_s)
        except sandbox.SandboxError:
            if not child.forked:
                raise
            # The zygote died under the run (its forks die with it): nothing the
            # learner's code can do from inside its pid namespace. Run the job cold.
            self._count_fallback("zygote ended during the run")
            return self._cold(stdin, files, limits, hidden)
        finally:
            self._release(child)
            with self._cond:
                self._in_use -= 1
                self._cond.notify_all()
        if not outcome.frames and outcome.unexplained_kill:
            # Killed from outside before it read the job: this grade's child, lost. The
            # engine counts it toward its one retry after a kill (as a kill in a cold
            # child's start-up is), rather than a hidden rerun here that no count sees.
            self._count_fallback("killed at delivery")
            return outcome
        if not outcome.frames and outcome.termination in ("exited", "signal"):
            # Not one frame: the child was gone before it read the job (the hello frame
            # comes before any learner code), e.g. exited between the liveness check
            # and delivery. Never the learner's doing; run the same job cold.
            self._count_fallback("lost at delivery")
            return self._cold(stdin, files,
                              _less_startup(limits, timing.monotonic() - delivered), hidden)
        return outcome

    def _cold(self, stdin: bytes, files: Mapping[str, bytes], limits: sandbox.Limits,
              hidden: Sequence[Path]) -> sandbox.SandboxOutcome:
        """:func:`run_cold`; on a leased device, first stop starting children, wait for
        a start in progress and discard the idle ones, so their leases never block it."""
        if not self._leasing:
            return run_cold(stdin, files, limits, hidden=hidden)
        with self._cond:
            self._cold_runs += 1
            while self._starting:
                self._cond.wait(0.05)
            idle, self._idle = self._idle, []
        try:
            for child in idle:
                self._discard(child)
            return run_cold(stdin, files, limits, hidden=hidden)
        finally:
            with self._cond:
                self._cold_runs -= 1
                self._cond.notify_all()

    def _release(self, child: sandbox.PreStarted) -> None:
        """Give back the device lease ``child`` held, if any."""
        lease = self._leases.pop(id(child), None)
        if lease is not None:
            lease.release()

    def _discard(self, child: sandbox.PreStarted) -> None:
        """Kill ``child``, remove its directory, give back its lease."""
        try:
            child.discard()
        finally:
            self._release(child)

    def close(self) -> None:
        """Kill every idle child, wait for the runs in progress, remove all their
        directories, stop the pool's thread. Idempotent; later runs go cold."""
        with self._cond:
            self._closed = True
            starting = self._zygote_starting
            self._cond.notify_all()
        if starting is not None:
            # Its import can take a minute on a loaded machine: a closing pool (a batch
            # or `grade watch` exiting on Ctrl-C) never waits for it.
            starting.abort()
        if threading.current_thread() is not self._thread:
            self._thread.join()
        atexit.unregister(self.close)

    # ------------------------------------------------------------------ internals

    def _count_fallback(self, reason: str) -> None:
        with self._cond:
            self.stats.cold += 1
            self.stats.fallback_reasons[reason] = self.stats.fallback_reasons.get(reason,
                                                                                  0) + 1

    def _take(self, limits: sandbox.Limits) -> sandbox.PreStarted | None:
        """A ready, live child, now owned by the caller; None to go cold."""
        if not self.compatible(limits):
            self._count_fallback("other limits")
            return None
        deadline = timing.monotonic() + self.wait_s
        with self._cond:
            while not self._closed:
                for child in self._idle:
                    # ready() implies alive(): a dead child is never taken.
                    if child.ready() or (not self.only_ready and child.alive()):
                        self._failing = self._failing and not child.said_ready
                        self._idle.remove(child)
                        self._born.pop(id(child), None)
                        self._in_use += 1
                        self.stats.warm += 1
                        self._cond.notify_all()  # the filler starts a replacement
                        return child
                left = deadline - timing.monotonic()
                if left <= 0 or self._failing or (not self.refill and not self._idle
                                 and self.stats.started + self.stats.start_failures):
                    break  # out of time, or a one-shot pool already handed out its child
                self._cond.wait(min(left, 0.02))  # readiness is polled, not signalled
        self._count_fallback("closed" if self._closed else "children fail to warm up"
                             if self._failing else "none warm in time")
        return None

    def _to_start(self) -> int:
        """How many children to start now (under the lock): :func:`children_to_start`,
        or up to ``size`` at once for a pool made with ``defer_refill=False``; none while
        a cold run needs the device lease."""
        if self._cold_runs:
            return 0
        if not self.defer_refill:
            return max(0, self.size - len(self._idle))
        return children_to_start(self.size, len(self._idle), self._in_use)

    def _start_one(self) -> sandbox.PreStarted | None:
        zygote = self._running_zygote()
        with self._cond:
            if self._closed or self._cold_runs:
                return None  # closed while the zygote started: start nothing more
            self._starting = True
        lease = self._command.lease()
        try:
            if lease is not None:
                # Before the child opens the device in its warm-up; a close or a cold
                # run's turn ends the wait at once.
                lease.acquire(stop=lambda: self._closed or self._cold_runs > 0)
            child = sandbox.start_sandboxed(
                list(self._command.argv), env=self._command.env, limits=self.limits,
                hidden_paths=self._command.hidden_paths,
                readable_paths=self._command.readable_paths, base=self._base, zygote=zygote)
        except Exception as exc:
            if lease is not None:
                lease.release()
            with self._cond:
                self._starting = False
                self._cond.notify_all()
            if zygote is not None and isinstance(exc, sandbox.SandboxError):
                self._drop_zygote(f"failed: {exc}")  # start fresh children from now on
                return self._start_one()
            with self._cond:  # a broken sandbox: runs go cold, and report it themselves
                self.stats.start_failures += 1
            return None
        with self._cond:
            self.stats.started += 1
            self.stats.forked += zygote is not None
            if lease is not None:
                self._leases[id(child)] = lease
            self._starting = False
            self._cond.notify_all()
        return child

    def _running_zygote(self) -> sandbox.Zygote | None:
        """The pool's zygote, started on first use (on the pool's own thread: its
        parent-death signal follows that thread); None when not wanted or broken."""
        if not self._want_zygote:
            return None
        if self._zygote is None:
            zygote = sandbox.Zygote(self._command.argv, self._command.env,
                                    preload=ZYGOTE_PRELOAD, prepare=ZYGOTE_PREPARE)
            with self._cond:
                if self._closed:
                    return None
                self._zygote_starting = zygote
            try:
                zygote.start()
            except sandbox.SandboxError as exc:
                with self._cond:
                    closing = self._closed
                if closing:  # close() aborted the start: nothing failed
                    zygote.close()
                    return None
                self._drop_zygote(f"failed: {exc}")
                return None
            finally:
                with self._cond:
                    self._zygote_starting = None
            self._zygote = zygote
            with self._cond:
                self.stats.zygote = "on"
        if not self._zygote.alive():
            self._drop_zygote("failed: the zygote ended")
            return None
        return self._zygote

    def _drop_zygote(self, why: str) -> None:
        """Stop using a zygote (children start fresh from now on); close it if any."""
        self._want_zygote = False
        zygote, self._zygote = self._zygote, None
        if zygote is not None:
            zygote.close()
        with self._cond:
            self.stats.zygote = why

    def _keep_filled(self) -> None:
        """The pool's own thread: starts children up to ``size``, replaces those that die
        idle, and at close discards the idle ones and outlives the runs in progress (their
        launchers' parent-death signal is tied to this thread)."""
        while True:
            with self._cond:
                dead = [c for c in self._idle if not c.alive()]
                self.stats.replaced += len(dead)
                if self.idle_limit_s is not None:
                    old = timing.monotonic() - self.idle_limit_s
                    dead += [c for c in self._idle
                             if c not in dead and self._born.get(id(c), 0.0) < old]
                self._idle = [c for c in self._idle if c not in dead]
                for child in dead:
                    self._born.pop(id(child), None)
                if (not self.refill and not self._idle and not self._in_use
                        and self.stats.started + self.stats.start_failures):
                    self._closed = True  # a one-shot pool with nothing left to do
                closing = self._closed
                if closing:
                    dead += self._idle
                    self._idle = []
                    self._born.clear()
                missing = 0 if closing else self._to_start()
                if not self.refill and self.stats.started + self.stats.start_failures:
                    missing = 0  # a one-shot pool starts its children once
            for child in dead:
                self._discard(child)
            if not closing and any(not c.said_ready and c.forked for c in dead):
                # E.g. no namespaces here (a zygote's runs require them): start fresh.
                self._drop_zygote("failed: a forked child died before it was warm")
            if not closing and any(not child.said_ready for child in dead):
                # Died while warming up (e.g. a memory limit too small for jax): do not
                # restart in a tight loop, and let grades go cold at once meanwhile
                # (the cold child reports what went wrong).
                with self._cond:
                    self._failing = True
                timing.sleep(_RESPAWN_BACKOFF_S)
            if closing:
                with self._cond:
                    while self._in_use:
                        self._cond.wait()
                if self._zygote is not None:  # after the runs: it reaps their processes
                    self._zygote.close()
                    self._zygote = None
                return
            for _ in range(missing):
                started = self._start_one()
                if started is None:
                    if not self._closed:  # closing: no back-off, the loop ends next
                        timing.sleep(_RESPAWN_BACKOFF_S)
                    break
                with self._cond:
                    kept = not self._closed and not self._cold_runs  # a cold run's turn
                    if kept:
                        self._idle.append(started)
                        self._born[id(started)] = timing.monotonic()
                        self._cond.notify_all()
                if not kept:
                    self._discard(started)  # closed while it was starting
            with self._cond:
                if not self._closed and (not self._to_start() or not self.refill):
                    self._cond.wait(_LIVENESS_S)


def children_to_start(size: int, idle: int, in_use: int) -> int:
    """How many children a pool of ``size`` starts now, with ``idle`` children waiting
    (warm or still warming up) and ``in_use`` runs in flight.

    With no run in flight: up to ``size``. While runs are in flight: only enough for one
    idle child per run in flight (so a batch or a loaded service refills at once), and the
    rest when they end. A child warming up (importing jax, measuring the probe's spin)
    takes CPU from the grades in flight; on a small machine that slows the very grade a
    learner is waiting for, while a spare warm child is already there for the next one."""
    wanted = size if not in_use else min(size, in_use)
    return max(0, wanted - idle)


def prestart(timeout: float = DEFAULT_TIMEOUT_S, memory_bytes: int | None = None,
             hidden: Sequence[Path] = ()) -> WarmPool:
    """One grading child started now, for the single grade the caller is about to
    prepare (the CLI's cold grade): its jax import overlaps the parent's own imports
    and preparation, and the job is handed over as soon as it exists, warm or not (the
    child reports a syntax error without waiting for jax). Only the first child run of
    the grade uses it; any further one (an exercise that isolates its calls) is cold.
    Closed at interpreter exit, or by the caller. ``hidden``: the folder of the course
    the grade is for (:attr:`syncgrade.courses.Course.hidden_paths`)."""
    # No zygote: it would import jax just as the one child does, then fork it.
    return WarmPool(1, timeout=timeout, memory_bytes=memory_bytes, refill=False,
                    only_ready=False, idle_limit_s=PRESTART_IDLE_LIMIT_S, zygote=False,
                    hidden=hidden)


PRESTART_IDLE_LIMIT_S = 30.0
"""A pre-started child nobody used (the command stopped at a usage error, in a process
that lives on, e.g. a test calling ``cli.main``) is discarded after this long."""


def _less_startup(limits: sandbox.Limits, spent: float) -> sandbox.Limits:
    """``limits`` with ``spent`` seconds less of start-up and of the whole run (the
    grade's overall deadline sized them), never below a hair."""
    return dataclasses.replace(
        limits,
        startup_s=None if limits.startup_s is None else max(limits.startup_s - spent, 0.001),
        end_s=None if limits.end_s is None else max(limits.end_s - spent, 0.001))


def _without_wall(limits: sandbox.Limits) -> sandbox.Limits:
    return dataclasses.replace(limits, wall_s=1.0, startup_s=None, end_s=None)


def _clock_budget(limits: sandbox.Limits) -> float:
    """The wall time a run may take in all, start-up included (what its CPU backstop
    is derived from)."""
    return limits.wall_s + (limits.startup_s or 0.0)


_SHARED: WarmPool | None = None
_SHARED_LOCK = threading.Lock()


def _system_tempdir() -> str:
    """The temp directory the environment names (``TMPDIR``, ``TEMP``, ``TMP``, else
    ``/tmp``), ignoring a process-local ``tempfile.tempdir``: the shared pool lives for
    the whole process, so its children's run directories must not land in a directory
    that one test pointed ``tempfile`` at and then checks for leftovers."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        path = os.environ.get(name)
        if path and os.path.isdir(path):
            return path
    return "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()


def shared_pool() -> WarmPool | None:
    """The process-wide pool when ``SYNCGRADE_WARM_POOL=N`` (N > 0) is set, else None.

    Read on every call (unset it and grades go cold again); the pool is created on first
    use with N children, the engine's default memory limit and wall limits up to
    :data:`SHARED_MAX_WALL_S`, and closed at interpreter exit.
    Raises ``ValueError`` when the variable is not a whole number.
    """
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return None
    try:
        size = int(text)
    except ValueError:
        raise ValueError(f"{ENV_VAR} must be a whole number of children, not {text!r}") \
            from None
    if size <= 0:
        return None
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None or _SHARED.closed:
            _SHARED = WarmPool(size, timeout=SHARED_MAX_WALL_S, base=_system_tempdir())
        return _SHARED
