"""Grading on a Dask cluster: the same :func:`syncgrade.grading.grade`, run on its workers.

Each task grades ONE submission on a Dask worker, in that worker's own sandboxed children
from that worker's own warm pool (:func:`worker_pool`: one per worker process and set of
limits, made on the first grade there, closed when the worker exits), so isolation and
the report are exactly those of a local grade. The client sends the submission's bytes
(workers need no shared file system for submissions; a course given as a folder must
exist at the same path on every worker, the built-in course always does) and gets the
report back as JSON.

When a worker dies mid-grade, the scheduler runs the task again on another worker (Dask's
``allowed-failures``; exceptions are retried ``retries`` times): the learner's code may
then run twice, but each task yields exactly one report to the client, which alone writes
it. A task that still fails becomes a grader-fault report (``status == "error"``), never
a missing one.

Dask is an optional extra (``syncgrade[cluster]``); it is imported only here and only
when a cluster is used, so syncgrade works without it (:class:`ClusterError` says what to
install).
"""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syncgrade import sandbox
from syncgrade.grading import GradeResult, Submission
from syncgrade.grading import grade as grade_locally
from syncgrade.grading.report import internal_error_report
from syncgrade.grading.submission import decode_submission
from syncgrade.limits import (
    DEFAULT_OVERHEAD_S,
    DEFAULT_TIMEOUT_S,
    check_memory_bytes,
    check_overhead,
    check_timeout,
)
from syncgrade.models import GradeReport
from syncgrade.pool import WarmPool

if TYPE_CHECKING:
    from distributed import Client

    from syncgrade.courses import Course

CONNECT_TIMEOUT_S = 10.0
"""How long :func:`connect` waits for the scheduler."""
RETRIES = 2
"""How many times a grade that raised on a worker is run again (a worker's death is
counted separately by Dask's ``distributed.scheduler.allowed-failures``, default 3)."""
INSTALL_HINT = "grading on a cluster needs Dask: pip install 'syncgrade[cluster]'"
TRANSFER_S = 10.0
"""The seconds :func:`grade` allows besides the grade's own ``timeout + overhead`` on the
worker: the scheduler's, the transfer's and the report's. Past them the grade is a
grader fault that says no worker returned it (a worker lost with no other to run it)."""
NO_WORKERS = ("no Dask worker is connected to the scheduler at {address} (keep the "
              "workers supervised so that they come back: docs/platforms.md, \"Supervising "
              "Dask workers\")")


class ClusterTimeout(Exception):
    """No worker returned a grade within its bound (:data:`TRANSFER_S`)."""


def _threads_now(client: Any) -> str:
    """:func:`live_threads`, or ``"?"`` when the scheduler does not answer."""
    try:
        return str(live_threads(client))
    except Exception:  # gone: the fault's message must still be made
        return "?"


def live_threads(client: Any) -> int:
    """How many grades the workers connected to ``client``'s scheduler can run at once
    (their threads; 0: no worker). One call to the scheduler."""
    return sum(int(n) for n in client.nthreads().values())


class ClusterError(Exception):
    """The cluster cannot be used as asked: Dask is not installed, or the scheduler's
    address is malformed or unreachable. One line, for the operator."""


def _distributed() -> Any:
    """The ``distributed`` module, or :class:`ClusterError` when the extra is missing."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None
    return distributed


def connect(address: str, *, timeout: float = CONNECT_TIMEOUT_S) -> Client:
    """A :class:`distributed.Client` of the scheduler at ``address`` (``tcp://host:port``
    or ``host:port``). Raises :class:`ClusterError` (one line) when Dask is missing, the
    address is malformed, or nothing answers there within ``timeout`` seconds. The
    address is checked and its port probed first, so a typo or a refused port fails at
    once, and a client that failed to connect never complains when it is collected."""
    distributed = _distributed()
    address = address.strip()
    _probe(address, timeout)
    made: list[Client] = []
    failed: list[BaseException] = []

    def make() -> None:  # on a thread: a server that is not Dask's may never answer
        try:
            made.append(distributed.Client(address, timeout=timeout, set_as_default=False))
        except BaseException as exc:
            failed.append(exc)

    thread = threading.Thread(target=make, name="syncgrade-connect", daemon=True)
    thread.start()
    thread.join(timeout + 5.0)
    if made:
        return made[0]
    _quiet_half_made_clients()
    why = f": {failed[0]}" if failed else f" (no answer in {timeout:g} s: not Dask's port?)"
    raise ClusterError(f"cannot reach the Dask scheduler at {address}{why}")


def _probe(address: str, timeout: float) -> None:
    """:class:`ClusterError` unless ``address`` (``tcp://`` when it names no scheme) has
    a known scheme and (for the TCP-based ones) something accepts connections on its
    host and port."""
    from distributed.comm import parse_address, parse_host_port
    from distributed.comm.registry import backends

    try:
        scheme, location = parse_address(address if "://" in address else f"tcp://{address}")
        if scheme not in backends:
            raise ValueError(f"unknown scheme {scheme!r}, e.g. tcp://HOST:8786")
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = parse_host_port(location)
            with socket.create_connection((host, port), timeout=timeout):
                pass
    except ValueError as exc:
        raise ClusterError(f"bad scheduler address {address!r}: {exc}") from None
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                           f"{exc.strerror or exc}") from None


def _quiet_half_made_clients() -> None:
    """A ``Client`` whose connection failed raises, then tries to close itself when it
    is collected and prints that second failure as a traceback: say nothing of it (any
    other unraisable error still goes to the previous hook)."""
    import sys

    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if getattr(unraisable.object, "__qualname__", "") != "Client.__del__":
            previous(unraisable)

    sys.unraisablehook = hook


class ClusterUnavailable(ClusterError):
    """The scheduler cannot be reached now (a grade may be asked for again later)."""


RECONNECT_S = 2.0
"""How often :class:`Reconnecting` tries a new client once Dask's own gave up."""


class Reconnecting:
    """A client of the scheduler at ``address`` that outlives scheduler outages, for a
    long-running process (``grade serve --cluster``).

    Dask's :class:`~distributed.Client` tries to reconnect for its connect timeout
    (``timeout``) and then closes for good: every later call raises
    ``ClosedClientError``. Here a watcher thread checks the client every
    :data:`RECONNECT_S` and, once it is closed, connects a new one (each try fails fast
    while nothing listens). :meth:`problem` says what is wrong ("" when connected), for
    readiness; :meth:`client` gives the connected client or raises
    :class:`ClusterUnavailable`. The first connection is made in the constructor
    (:class:`ClusterError` as :func:`connect`)."""

    def __init__(self, address: str, *, timeout: float = CONNECT_TIMEOUT_S,
                 retry_s: float = RECONNECT_S) -> None:
        self.address = address.strip()
        self._timeout = timeout
        self._client = connect(self.address, timeout=timeout)
        self._why = ""  # why the last new client could not be made
        self._threads = self._count(self._client)  # the workers' threads, last counted
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._watcher = threading.Thread(target=self._watch, args=(retry_s,), daemon=True,
                                         name="syncgrade-cluster-watch")
        self._watcher.start()

    def problem(self) -> str:
        """"" when the client is connected and some worker is, else one line:
        ``reconnecting: ...`` while Dask's client still tries, ``unreachable: ...`` once a
        new one is needed, ``no workers: ...`` while no worker is connected (counted
        every :data:`RECONNECT_S`: a grade asked for then would wait for ever)."""
        with self._lock:
            client, why, threads = self._client, self._why, self._threads
        status = getattr(client, "status", "closed")
        if status == "running":
            return "" if threads else "no workers: " + NO_WORKERS.format(
                address=self.address)
        if status in ("connecting", "newly-created"):
            return f"reconnecting: lost the Dask scheduler at {self.address}"
        return f"unreachable: {why or f'the Dask scheduler at {self.address} went away'}"

    def client(self) -> Client:
        """The connected client, or :class:`ClusterUnavailable`."""
        problem = self.problem()
        if problem:
            raise ClusterUnavailable(problem)
        with self._lock:
            return self._client

    def threads(self) -> int:
        """The connected workers' threads, as last counted (0 while not connected)."""
        with self._lock:
            running = getattr(self._client, "status", "closed") == "running"
            return self._threads if running else 0

    def _count(self, client: Any) -> int:
        """The workers' threads of ``client``, or 0 when the scheduler does not say."""
        try:
            return live_threads(client)
        except Exception:  # the scheduler went away meanwhile: the watcher sees it
            return 0

    def _watch(self, retry_s: float) -> None:
        while not self._closed.wait(retry_s):
            with self._lock:
                old = self._client
            if getattr(old, "status", "closed") not in ("closing", "closed"):
                threads = self._count(old) if getattr(old, "status", "") == "running" else 0
                with self._lock:
                    self._threads = threads
                continue
            try:
                new = connect(self.address, timeout=self._timeout)
            except ClusterError as exc:
                with self._lock:
                    self._why = str(exc)
                continue
            threads = self._count(new)
            with self._lock:
                self._client, self._why, self._threads = new, "", threads
            _close_quietly(old)

    def close(self) -> None:
        self._closed.set()
        self._watcher.join(self._timeout + 10)
        with self._lock:
            client = self._client
        _close_quietly(client)


def _close_quietly(client: Any) -> None:
    with contextlib.suppress(Exception):  # its scheduler gone, it may fail to say bye
        client.close()


# ------------------------------------------------------------------ on the worker

_POOLS: dict[tuple[float, int | None, tuple[str, ...]], WarmPool] = {}
_POOLS_LOCK = threading.Lock()


MAX_POOLS = 4
"""Warm pools one worker keeps at most (one per set of limits and course): a service's
requests may each ask for other limits, and every pool holds children with jax loaded."""


def worker_pool(timeout: float, memory_bytes: int | None,
                course: str | None) -> WarmPool | None:
    """This worker process's warm pool for these limits and course: made on first use with
    one child per worker thread (refilled at once, as ``grade batch`` does), reused by
    every later grade here, closed at the worker's exit (the pool registers that itself).
    ``None`` (the grade runs in a cold child) once :data:`MAX_POOLS` other pools exist.
    Thread-safe."""
    hidden = tuple(str(p) for p in _worker_course(course).hidden_paths)
    key = (timeout, memory_bytes, hidden)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None and len(_POOLS) >= MAX_POOLS:
            return None
        if pool is None or pool.closed:
            pool = WarmPool(_worker_threads(), timeout=timeout, memory_bytes=memory_bytes,
                            defer_refill=False, hidden=[Path(p) for p in hidden])
            _POOLS[key] = pool
        return pool


def _worker_course(course: str | None) -> Course:
    """The course a task names: None is the built-in course (whatever this worker's
    ``$SYNCGRADE_COURSE`` says: the client resolved that already)."""
    from syncgrade.courses import builtin_course, open_course

    return builtin_course() if course is None else open_course(course)


def _worker_threads() -> int:
    """How many grades this Dask worker runs at once (1 outside a worker)."""
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


def grade_task(exercise_id: str, data: bytes, display_name: str, timeout: float,
               memory_bytes: int | None, course: str | None,
               overhead: float = DEFAULT_OVERHEAD_S) -> str:
    """One grade, run on a worker: ``data`` (the submission's bytes, as read from its file)
    graded by :func:`syncgrade.grading.grade` in this worker's warm pool, within
    ``timeout + overhead``; returns the report as JSON. Raises only for the usage errors
    ``grade`` raises."""
    with tempfile.TemporaryDirectory(prefix="syncgrade-task-") as folder:
        path = Path(folder) / "submission.py"
        path.write_bytes(data)
        report = grade_locally(exercise_id, path, timeout=timeout, memory_bytes=memory_bytes,
                               display_name=display_name, course=_worker_course(course),
                               pool=worker_pool(timeout, memory_bytes, course),
                               overhead=overhead)
    return report.model_dump_json()


# ------------------------------------------------------------------ on the client

def _course_spec(course: str | os.PathLike[str] | Course | None) -> str | None:
    """What a worker opens for the course this process means by ``course``: None for
    the built-in course, an installed course's name as given, else the folder (which
    must exist at the same path on the workers). Raises
    :class:`~syncgrade.courses.CourseError` when there is no such course here."""
    from syncgrade.courses import open_course

    if isinstance(course, str) and not os.path.isdir(course):
        open_course(course)  # an installed course's name: the workers have it installed
        return course
    opened = open_course(course)
    return None if opened.builtin else str(opened.root)


def _client(cluster: Client | str) -> Client:
    return connect(cluster) if isinstance(cluster, str) else cluster


def grade_all(cluster: Client | str, exercise_id: str, paths: Sequence[Path], *,
              timeout: float = DEFAULT_TIMEOUT_S, memory_bytes: int | None = None,
              course: str | os.PathLike[str] | Course | None = None,
              retries: int = RETRIES) -> Iterator[GradeResult]:
    """Yield one report per path, with the lines it graded (decoded here from the very
    bytes sent to the worker, as the worker decodes them), in completion order, each
    graded on a worker of
    ``cluster`` (a :class:`distributed.Client`, or a scheduler address: then a client
    made here and closed when the iterator ends). Each report names its file as given
    (``str(path)``). Every path yields exactly one report, even when a worker dies
    mid-grade (the task runs again elsewhere) or a task keeps failing (a grader-fault
    report). Raises before submitting anything: :class:`ClusterError`, the usage errors
    of :func:`syncgrade.grading.grade` (unknown exercise, bad limits) and
    :class:`~syncgrade.errors.SubmissionError` for a file that cannot be read."""
    from syncgrade.courses import open_course
    from syncgrade.errors import SubmissionError

    timeout = check_timeout(timeout)
    memory_bytes = None if memory_bytes is None else check_memory_bytes(memory_bytes)
    spec = _course_spec(course)
    exercise = open_course(course).get(exercise_id)
    payloads = []
    for path in paths:
        try:
            payloads.append((path, path.read_bytes()))
        except OSError as exc:
            raise SubmissionError(f"cannot read {path}: {exc.strerror or exc}") from None
    sent = dict(payloads)  # each file's bytes as its worker grades them, for its lines
    client = _client(cluster)
    futures: dict[Any, Path] = {}  # distributed.Future -> its file, until it is done
    try:
        for path, data in payloads:
            futures[client.submit(grade_task, exercise_id, data, str(path), timeout,
                                  memory_bytes, spec, retries=retries, pure=False)] = path
        started = time.perf_counter()
        for future in _distributed().as_completed(list(futures), loop=client.loop):
            path = futures.pop(future)
            try:
                if future.status == "finished":
                    report = GradeReport.model_validate_json(future.result())
                elif future.status == "error":  # it kept failing: a fault, never no report
                    error = future.exception()
                    fault = error if isinstance(error, Exception) else RuntimeError(str(error))
                    report = internal_error_report(
                        exercise, Submission(None, str(path)), None,
                        sandbox.Limits(wall_s=timeout), fault, time.perf_counter() - started)
                else:
                    raise ClusterError("cancelled")
                lines = decode_submission(sent[path], str(path)).lines
            except Exception as exc:
                if client.status == "running" and not isinstance(exc, ClusterError):
                    raise
                # Cancelled, or the scheduler went away while this result was fetched:
                # what was yielded stays yielded; never Dask's traceback.
                raise ClusterError(f"lost the Dask scheduler with {len(futures) + 1} "
                                   f"grades left") from None
            yield GradeResult(report, lines)
    finally:
        for future in futures:
            future.cancel()
        if client is not cluster:
            client.close()


def grade(cluster: Client | str, exercise_id: str, path: Path | None = None, *,
          source: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
          memory_bytes: int | None = None, display_name: str | None = None,
          course: str | os.PathLike[str] | Course | None = None,
          retries: int = RETRIES, overhead: float = DEFAULT_OVERHEAD_S,
          transfer_s: float = TRANSFER_S) -> GradeReport:
    """:func:`syncgrade.grading.grade` run on a worker of ``cluster`` (a Client, or a
    scheduler address: a client made and closed for this one grade); blocks until the
    report is back, so call it from a thread (e.g. the service's job runner). Same
    arguments, same report, same usage errors, plus :class:`ClusterError`
    (:class:`ClusterUnavailable` at once when no worker is connected); a grade that
    keeps failing on the workers raises what it raised there. Returns within
    ``timeout + overhead + transfer_s`` seconds (default :data:`TRANSFER_S`): a grade
    no worker returned by then (its worker lost, no other connected) is a grader-fault
    report that says so."""
    from syncgrade.courses import open_course
    from syncgrade.grading import SubmissionError, read_submission

    begun = time.perf_counter()
    overhead = check_overhead(overhead)
    timeout = check_timeout(timeout)
    memory_bytes = None if memory_bytes is None else check_memory_bytes(memory_bytes)
    # Checked (and named) as a local grade would; the worker gets the bytes themselves, so
    # an unreadable file gets the same report there as here.
    submission = read_submission(path, source=source, display_name=display_name)
    if path is not None:
        try:
            data = path.read_bytes()
        except OSError as exc:  # gone or unreadable since: a usage error, as locally
            raise SubmissionError(f"cannot read {path}: {exc.strerror or exc}") from None
    else:
        assert source is not None
        data = source.encode("utf-8", "surrogatepass")
    exercise = open_course(course).get(exercise_id)
    client = _client(cluster)
    try:
        if not live_threads(client):  # the task would wait for a worker for ever
            raise ClusterUnavailable(NO_WORKERS.format(address=client.scheduler.address))
        future = client.submit(grade_task, exercise_id, data, submission.display_name,
                               timeout, memory_bytes, _course_spec(course), overhead,
                               retries=retries, pure=False)
        bound = timeout + overhead + transfer_s
        try:
            return GradeReport.model_validate_json(future.result(timeout=bound))
        except TimeoutError:
            future.cancel()
            fault = ClusterTimeout(
                f"no Dask worker returned this grade within {bound:g} s (timeout + overhead + "
                f"transfer: {timeout:g} + {overhead:g} + {transfer_s:g} s); "
                f"{_threads_now(client)} worker "
                "thread(s) connected now")
            return internal_error_report(exercise, submission, None,
                                         sandbox.Limits(wall_s=timeout), fault,
                                         time.perf_counter() - begun)
    finally:
        if client is not cluster:
            client.close()
