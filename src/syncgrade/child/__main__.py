"""Entry point of the grading child: ``python -m syncgrade.child`` inside the sandbox.

Starts importing jax and its own modules on a warm-up thread (:class:`Warmup`; in a
warm pool's pre-started child this finishes before the job exists), reads one job (JSON)
from stdin, reads and unlinks the hidden inputs file (and points stdin at /dev/null), so
learner code finds no hidden data, compiles the submission (a syntax error is reported at
once, without waiting for jax), waits for the imports, installs the instrumentation, loads
the submission and runs the job's calls. Frames, in this order only: ``hello`` (versions,
backend; sent just before the first learner code runs: the parent starts the learner's
wall clock on it), ``load`` (did the file load, are the names there), one ``call`` per job call in
job order (none when the load failed), ``end``. A frame is sent as soon as its step ends,
so a later hang or crash loses nothing already decided. Nothing here knows the rubric or
any expected value.

Two threads (docs/security.md, "Learner code in the same process"):

- the **main thread** holds the job, the harness and the sealed recorder core (which holds
  the channel key and writes every frame). It never runs learner code and never touches an
  object the learner made;
- a **worker thread** runs every piece of learner code: the module body, each call, and
  everything that reads what the learner returned (encoding the value, formatting an
  error, checking signatures). Its bottom frame is a trampoline compiled in an empty
  namespace, so walking ``f_back`` from learner code reaches no grader state.
"""

from __future__ import annotations

import _thread
import builtins
import contextlib
import faulthandler
import gc
import io
import json
import linecache
import os
import platform
import queue
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

WORKER_FILE = "<syncgrade-worker>"
_TRAMPOLINE_SOURCE = """
def trampoline(take, give, step):
    state = {}
    while True:
        request = take()
        if request is None:
            return
        give(step(state, request))
"""


def _take_fd(env_name: str) -> int | None:
    fd = os.environ.pop(env_name, None)  # keep the fd number out of the learner's environment
    return None if fd is None else int(fd)


def _arm_stack_dump() -> int | None:
    # On the wall-clock limit the sandbox sends SIGUSR1 and reads this dump, so a timeout
    # report can say which learner line was running.
    fd = _take_fd("SYNCGRADE_STACK_FD")
    if fd is not None:
        faulthandler.register(signal.SIGUSR1, file=os.fdopen(fd, "w", buffering=1),
                              all_threads=True)
    return fd


def _forget_stdin() -> None:
    """Point fd 0 at ``/dev/null`` once the job is read: a cold child's stdin is the job's
    unlinked file, which learner code could otherwise read again from the start
    (``os.pread(0, ...)``, ``/proc/self/fd/0``), channel key and all."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)


def _take_file(name: str | None) -> bytes | None:
    """The bytes of ``name``, a file the grader wrote into the working directory for the
    grader's eyes only (the hidden inputs), unlinked at once: nothing learner code can
    list or open by its known name holds hidden data. Raises (a grader fault, before the
    hello frame) when it cannot be removed."""
    if not name:
        return None
    with open(name, "rb") as handle:
        data = handle.read()
    os.unlink(name)
    return data


def _compile(source: str, display_name: str) -> tuple[types.CodeType | None, Any]:
    linecache.cache[display_name] = (len(source), None, source.splitlines(True), display_name)
    try:
        return compile(source, display_name, "exec"), None
    except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte in the source
        return None, exc


def _syntax_error(exc: BaseException, display_name: str) -> dict[str, Any]:
    """The load error for source that does not compile (no jax needed)."""
    line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == display_name \
        else None
    text = "".join(traceback.format_exception_only(type(exc), exc))
    return {"type": type(exc).__name__, "message": str(exc)[:500], "line": line,
            "traceback": text[-4000:]}


def _report_unparsable(core: Any, exc: BaseException, display_name: str) -> None:
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "unknown"

    from syncgrade.child.recorder import SEND

    core.send((SEND, {
        "type": "hello", "jax_version": version("jax"), "jaxlib_version": version("jaxlib"),
        "numpy_version": version("numpy"), "python_version": platform.python_version(),
        "backend": "not started", "device": "not started", "platform": "not started",
    }, None))
    load = {"ok": False, "error": _syntax_error(exc, display_name), "problems": []}
    core.send((SEND, {"type": "load", "tampered": []}, json.dumps(load)))
    core.send((SEND, {"type": "end", "tampered": []}, None))


# --------------------------------------------------------------------------- worker side


def _make_worker_step(check_signature: Any, describe_error: Any, encode: Any) -> Any:
    """The worker's request handler, bound to the grader functions it needs (the grader's
    modules leave ``sys.modules`` before learner code runs, so it cannot import them)."""

    def step(state: dict[str, Any], request: tuple[Any, ...]) -> tuple[Any, Any]:
        return _worker_step(state, request, check_signature, describe_error, encode)

    return step


def _worker_step(state: dict[str, Any], request: tuple[Any, ...], check_signature: Any,
                 describe_error: Any, encode: Any) -> tuple[Any, Any]:
    """Run one request on the worker thread; reply ``(tag, payload)``. Every learner
    object stays in ``state``; replies carry only bools and JSON text."""
    op = request[0]
    try:
        if op == "load":
            _op, code, display, required = request
            module = types.ModuleType("submission")
            module.__file__ = display
            sys.modules["submission"] = module
            state["display"] = display
            try:
                exec(code, module.__dict__)
            except BaseException as exc:  # SystemExit at import is a learner fault too
                return "load", (False, json.dumps(
                    {"ok": False, "error": describe_error(exc, display), "problems": []}))
            namespace = state["namespace"] = module.__dict__
            problems = []
            for item in required:
                name = item["name"]
                if name not in namespace:
                    problems.append({"name": name, "problem": "missing"})
                    continue
                if item.get("kind", "function") != "function":
                    continue
                reason = check_signature(namespace[name], item["positional"],
                                         item.get("keywords", []))
                if reason:
                    problems.append({"name": name, "problem": "signature",
                                     "detail": str(reason)})
            ok = not problems
            return "load", (ok, json.dumps({"ok": ok, "error": None, "problems": problems}))
        if op == "call":
            _op, name, args, kwargs = request
            state.pop("value", None)
            state.pop("error", None)
            try:
                state["value"] = state["namespace"][name](*args, **kwargs)
            except BaseException as exc:  # SystemExit and KeyboardInterrupt included
                state["error"] = describe_error(exc, state["display"])
            return "called", (True, "")
        if op == "attribute":
            found = request[1] in state["namespace"]
            state["value"] = state["namespace"].get(request[1])
            state.pop("error", None)
            if not found:
                return "encoded", (True, json.dumps({"ok": False, "value": None,
                                                     "error": None}))
            return "encoded", (True, json.dumps({"ok": True, "value": encode(
                state.pop("value")), "error": None}))
        if op == "encode":
            if "error" in state:
                error = state.pop("error")
                return "encoded", (True, json.dumps({"ok": False, "value": None,
                                                     "error": error}))
            value = state.pop("value", None)
            try:
                return "encoded", (True, json.dumps({"ok": True, "value": encode(value),
                                                     "error": None}))
            except BaseException as exc:  # reading the value ran learner code that failed
                return "encoded", (True, json.dumps({
                    "ok": False, "value": None,
                    "error": describe_error(exc, state["display"])}))
    except BaseException as exc:  # a grader fault on the worker: reported, never hidden
        error = describe_error(exc, "")  # never raises, whatever the exception's __str__
        return "fault", (False, f"{error['type']}: {error['message']}"[:500])
    return "fault", (False, f"unknown request {op!r}")


def _start_worker(step: Any) -> Any:
    """Start the worker thread running ``step``; return ``ask(request) -> reply``."""
    namespace: dict[str, Any] = {}
    exec(compile(_TRAMPOLINE_SOURCE, WORKER_FILE, "exec"), namespace)
    inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
    # _thread, not threading: no Thread object or bootstrap frame holds the target.
    _thread.start_new_thread(namespace["trampoline"], (inbox.get, outbox.put, step))
    put, get = inbox.put, outbox.get

    def ask(request: tuple[Any, ...] | None) -> Any:
        put(request)
        return None if request is None else get()

    return ask


# --------------------------------------------------------------------------- warm-up


class Warmup:
    """Imports jax, the backend and the grader's child modules on a helper thread while
    the main thread waits for the job; in a warm pool's child, also compiles the probe's
    spin and measures its rate; then says so on the readiness fd, if any.

    The same in a cold child (job already on stdin: a syntax error is reported without
    waiting for jax, and the spin is left to the harness) and in a warm pool's pre-started
    child (job delivered later: everything is imported before the learner's wall clock
    starts; a job that arrives mid-measurement waits for at most one ~10-40 ms spin run).
    Only grader and library code runs here, and the thread has ended before any learner
    code runs; the thread never touches the job, key or submission."""

    def __init__(self, ready_fd: int | None) -> None:
        import threading

        self._ready_fd = ready_fd
        self._fd_lock = threading.Lock()
        self._error: BaseException | None = None
        self._arrived = False
        self.spin_rate: Any = None  # workloads.SpinRate, when the warm-up measured one
        self._thread = threading.Thread(target=self._run, name="syncgrade-warmup",
                                        daemon=True)
        self._thread.start()

    def _run(self) -> None:
        # The collector off while importing: the imports make only objects that live as
        # long as the process, so collections would find nothing to free (about a tenth
        # of a cold ``import jax``); then they are frozen, so that the learner's
        # collections do not traverse the libraries' objects. No learner code runs before
        # this thread has ended (``join``).
        gc.disable()
        try:
            self._import()
        finally:
            gc.freeze()
            gc.enable()

    def _import(self) -> None:
        try:
            import jax
            import jaxlib  # noqa: F401
            import numpy  # noqa: F401

            from syncgrade.child import (  # noqa: F401
                guard,
                harness,
                instrument,
                recorder,
                spin_executable,
                values,
                workloads,
            )

            jax.devices()  # the backend, as the cold child's hello frame needs it anyway
        except BaseException as exc:  # re-raised on the main thread by join()
            self._error = exc
            self.job_arrived()  # EOF on the readiness fd: a pool will not wait for us
            return
        self._measure_spin(workloads, spin_executable)
        with self._fd_lock:
            if self._ready_fd is not None:
                with contextlib.suppress(OSError):  # the grader may have stopped waiting
                    os.write(self._ready_fd, b"R")

    def _measure_spin(self, workloads: Any, spin_executable: Any) -> None:
        """In a pool child (no job yet): compile the probe's spin and measure its rate
        (~0.1 s), so a probe costs the job no compile and no search. A child forked from
        a zygote that compiled the spin loads that executable instead of compiling it
        (``spin_executable.adopted``, ~0.07 CPU-s less), and starts the rate's search
        where the zygote's own measurement ended. Stops as soon as the job arrives
        (a cold child's job is there before the imports end, so it never starts); a
        failure only leaves the measurement to the harness."""
        if self._arrived:
            return
        try:
            with spin_executable.adopted():
                self.spin_rate = workloads.prewarm_spin(
                    stop=lambda: self._arrived, first_steps=spin_executable.first_steps())
        except Exception:  # the harness measures again and reports what goes wrong
            self.spin_rate = None

    def job_arrived(self) -> None:
        """Close the readiness fd (kept open until now: its EOF tells the grader that an
        idle child died or cannot warm up). Under the lock, so a late warm-up never
        writes to a closed and possibly reused fd number."""
        self._arrived = True
        with self._fd_lock:
            if self._ready_fd is not None:
                os.close(self._ready_fd)
                self._ready_fd = None

    def join(self) -> None:
        """Wait for the imports; raise what they raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error


# --------------------------------------------------------------------------- main thread


def main() -> int:
    channel_fd = _take_fd("SYNCGRADE_CHANNEL_FD")
    if channel_fd is None:
        print("syncgrade.child: no SYNCGRADE_CHANNEL_FD; run through the grader", file=sys.stderr)
        return 2
    stack_fd = _arm_stack_dump()
    warming = Warmup(_take_fd("SYNCGRADE_READY_FD"))
    job = json.loads(sys.stdin.buffer.read())
    warming.job_arrived()
    _forget_stdin()
    inputs_npz = _take_file(job.get("inputs"))
    call_ids = [call["id"] for call in job["calls"]]
    display = job["display_name"]
    # utf-8-sig: a byte-order mark is not part of the source (the parent drops it too).
    with open(job["submission"], encoding="utf-8-sig") as handle:
        source = handle.read()
    code, unparsable = _compile(source, display)

    from syncgrade.child import recorder as rec

    if code is None:
        core = rec.new_core(bytes.fromhex(job.pop("key", "")), channel_fd, call_ids,
                            _thread.get_ident(), CONTROL_CODES, None, None, type(None))
        _report_unparsable(core, unparsable, display)
        return 0

    warming.join()
    import jax
    import jaxlib
    import numpy as np

    from syncgrade.child import guard, harness, instrument, reference, values, workloads

    array_type = instrument.ArrayImpl
    # The key goes straight into the sealed core; the job keeps no copy.
    core = rec.new_core(bytes.fromhex(job.pop("key", "")), channel_fd, call_ids,
                        _thread.get_ident(), CONTROL_CODES, array_type.__dict__["is_ready"],
                        array_type.__dict__["is_deleted"], array_type)
    hello, inputs, spin_rate = _before_learner_code(jax, jaxlib, np, inputs_npz, job, warming)
    del inputs_npz
    recorder = rec.Recorder(core, {display})
    installation = instrument.install(recorder)
    modules = [instrument, rec, harness, reference, values, workloads, guard,
               sys.modules[__name__]]
    core.send((rec.PROTECT, instrument.hook_codes() | {harness.call_steps.__code__},
               frozenset({harness.call_steps.__code__, harness.checked_reply.__code__}),
               rec.EMIT_CODES, integrity_table(
                   installation.hooks(), instrument.EMITTING_HELPERS, [instrument, rec])))
    ask = _start_worker(_make_worker_step(harness.check_signature, harness.describe_error,
                                          values.encode))
    attempts = guard.arm(sealed=[core], protected=[*guard.grader_objects(modules),
                                                   *installation.hooks()],
                         fds={fd for fd in (channel_fd, stack_fd) if fd is not None},
                         note_fd=stack_fd)
    for name in [n for n in sys.modules if n == "syncgrade" or n.startswith("syncgrade.")]:
        del sys.modules[name]  # a learner's `import syncgrade...` is refused, not served
    del modules

    runner = harness.Harness(recorder=recorder, inputs=inputs, rate=spin_rate)
    # From here on learner code exists, and a learner thread may be inside the core:
    # every send holds the recorder's lock (see Recorder.__init__).
    lock = recorder._lock
    # The hello frame ends the grader's start-up: the parent starts the learner's wall
    # clock when it arrives (sandbox.Limits.startup_s), so it is sent only now, just
    # before the first learner code runs (the module body).
    with lock:
        core.send((rec.SEND, hello, None))
    ok, text = harness.checked_reply(core, ask(("load", code, display,
                                                 job.get("required", []))), "load", lock)
    with lock:
        core.send((rec.SEND, {"type": "load", "tampered": [*installation.tampered(),
                                                           *attempts()]}, text))
    if ok:
        for call in job["calls"]:
            harness.run_call(runner, core, ask, call)
    with lock:
        core.send((rec.SEND, {"type": "end", "tampered": [*installation.tampered(),
                                                          *attempts()]}, None))
    return 0


def _hello(jax: Any, jaxlib: Any, np: Any) -> dict[str, Any]:
    """The hello frame: the versions, the device the child grades on, and the step of the
    CPU clock the recorder stamps events with (:func:`cpu_clock_step_ns`)."""
    device = jax.devices()[0]
    return {
        "type": "hello", "jax_version": jax.__version__, "jaxlib_version": jaxlib.__version__,
        "numpy_version": np.__version__, "python_version": platform.python_version(),
        "backend": jax.default_backend(), "device": device.device_kind,
        "platform": device.platform, "cpu_clock_step_ns": cpu_clock_step_ns(),
    }


CPU_STEP_SPIN_S = 0.05
"""The most wall time :func:`cpu_clock_step_ns` spins for."""


def cpu_clock_step_ns(clock: Callable[[], int] = time.thread_time_ns,
                      wall: Callable[[], float] = time.perf_counter,
                      limit_s: float = CPU_STEP_SPIN_S) -> int:
    """How far this thread's CPU clock (``time.thread_time_ns``, the recorder's event
    stamps) moves at a time: on Linux the cost of one read (well under a microsecond);
    under gVisor, which counts a thread's CPU time in scheduler ticks (the TPU machines
    measured), 10 ms, so an interval's CPU time is only known to within a step.

    Spins until the clock has moved twice and returns the second move (the first may end
    a step already under way): microseconds on a fine clock, about two steps of CPU on a
    coarse one. A clock that has not moved twice within ``limit_s`` of wall time (a
    coarser one, or a thread that got no CPU) counts as ``limit_s`` coarse."""
    deadline = wall() + limit_s
    last, moves = clock(), 0
    while True:
        now = clock()
        if now != last:
            moves += 1
            if moves == 2:
                return now - last
            last = now
        elif wall() > deadline:
            return int(limit_s * 1e9)


def _before_learner_code(jax: Any, jaxlib: Any, np: Any, inputs_npz: bytes | None,
                         job: dict[str, Any], warming: Warmup) -> tuple[Any, Any, Any]:
    """The hello frame, the hidden inputs and the spin's rate (a pool child's warm-up's;
    else, when the job builds from the spin, :func:`_spin_rate_before_learner_code`;
    else ``None``), made before any hook is installed or learner code runs."""
    from syncgrade.child import harness, workloads

    rate = warming.spin_rate
    if rate is None and harness.needs_spin_rate(job["calls"]):
        rate = _spin_rate_before_learner_code(workloads)
    return _hello(jax, jaxlib, np), _load_inputs(np, inputs_npz), rate


def _spin_rate_before_learner_code(workloads: Any) -> Any:
    """A cold child's spin rate (``workloads.SpinRate``), measured as a warm pool child's
    warm-up measures it: before any hook is installed and before the learner's module
    runs, in the start-up's time, not the learner's. Measured later, a thread the
    learner's module started could hold the interpreter while each measuring run waits
    for it after its output is ready: on the chip, where the spin's runs take a few
    milliseconds, exercise-1's ``background_busy_thread`` (a busy thread from its import
    on) made them read 10 ms, the probe's estimate three times its real length, and the
    learner's waited samples fail ``covers-device-work`` (docs/accelerators.md, the
    seventh session). ``None`` when the measurement fails: the harness measures again
    and reports what goes wrong."""
    try:
        return workloads.prewarm_spin(stop=lambda: False)
    except Exception:
        return None


def _load_inputs(np: Any, inputs_npz: bytes | None) -> dict[str, Any]:
    """The job's inputs (an .npz file's bytes; none: no inputs)."""
    if not inputs_npz:
        return {}
    return dict(np.load(io.BytesIO(inputs_npz)).items())


IntegrityEntry = tuple[list[Any], list[tuple[dict[str, Any], str]],
                       list[tuple[dict[str, Any], str]]]


def integrity_table(hooks: list[Any], helpers: list[Any], modules: list[Any]
                    ) -> dict[Any, IntegrityEntry]:
    """For each hook code: the closure cells and (module dict, name) globals it depends
    on, and the (module dict, name) of each builtin it uses that the dict does not shadow,
    which the recorder re-checks whenever that code sends an event.

    Cells are followed into the grader functions they hold; globals are the names the
    code (its nested code, the grader functions it calls by name and those its cells
    hold) looks up in ``modules``. A name found in no such dict but in ``builtins`` is a
    builtin the code may use: a learner who adds a global of that name to a grader module
    would replace it for the hook. Hooks of one code installed under several names (the
    wait hook) have their cells merged."""
    dicts = [vars(module) for module in modules]
    table: dict[Any, IntegrityEntry] = {}

    def names_of(code: Any, seen: set[Any]) -> set[str]:
        if code in seen:
            return set()
        seen.add(code)
        names = set(code.co_names)
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                names |= names_of(const, seen)
        for name in list(names):
            for namespace in dicts:
                helper = namespace.get(name)
                if isinstance(helper, types.FunctionType) and helper.__globals__ is namespace:
                    names |= names_of(helper.__code__, seen)
        return names

    def add(fn: Any) -> None:
        target = getattr(fn, "__func__", fn)
        if not isinstance(target, types.FunctionType):
            return
        cells, entries, builtin_entries = table.setdefault(target.__code__, ([], [], []))
        pending, seen = [target], set()
        codes_seen: set[Any] = set()
        names: set[str] = set()
        while pending:
            current = pending.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            names |= names_of(current.__code__, codes_seen)
            for cell in current.__closure__ or ():
                cells.append(cell)
                try:
                    content = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if isinstance(content, types.FunctionType) and any(
                        content.__globals__ is namespace for namespace in dicts):
                    pending.append(content)
        entries.extend((namespace, name) for namespace in dicts for name in sorted(names)
                       if name in namespace and (namespace, name) not in entries)
        builtin_names = sorted(n for n in names if hasattr(builtins, n)
                               and not any(n in namespace for namespace in dicts))
        builtin_entries.extend(
            (namespace, name) for namespace in dicts for name in builtin_names
            if (namespace, name) not in builtin_entries)

    for fn in [*hooks, *helpers]:
        add(fn)
    return table


CONTROL_CODES = frozenset({main.__code__, _report_unparsable.__code__})


if __name__ == "__main__":
    status = main()
    # End now: a learner thread still running must not keep the child alive, and
    # learner atexit handlers have nothing to add once the end frame is sent.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a learner may have closed or replaced them
            stream.flush()
    os._exit(status)
