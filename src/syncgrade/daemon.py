"""The per-user warm grader daemon (issue 27), like ``dmypy``: a repeat ``grade`` from
the command line skips the interpreter's, the grader's and jax's start-up.

**Where.** One daemon per user and installation, listening on a Unix socket
``grader-<key>.sock`` in a folder only that user can enter (mode 0700, owned by the user,
not a link): ``$SYNCGRADE_DAEMON_DIR`` when set (tests), else ``$XDG_RUNTIME_DIR/syncgrade``,
else ``<temp>/syncgrade-daemon-<uid>``. The key (:func:`installation_key`) is a digest of
the client's :func:`identity`: two checkouts or virtual environments of one user, or two
``$SYNCGRADE_COURSE`` settings, each have a daemon of their own and never stop each other's.
The socket is mode 0600; on Linux each side also checks the other's uid
(``SO_PEERCRED``). A folder or socket that fails these checks is never used.

**Protocol.** One request per connection: a JSON object on one line, then the client
shuts its side; one JSON object back, then the daemon closes. ``op`` is ``ping``
(status), ``stop``, or ``grade``. Every request carries the client's :func:`identity`
(protocol, syncgrade version, package folder, Python executable, ``$SYNCGRADE_COURSE``).

**Versions.** The daemon answers a grade only while nothing it was started from has
changed: the same identity, the same package sources (:func:`tree_fingerprint` of the
package's ``.py`` files: their sizes and mtimes), and for each course the same course
files it holds in memory as when it first graded for it (:func:`course_fingerprint`:
``course.toml`` and the declarations; never a learner's ``submission.py`` beside them,
nor the files a grade reads afresh or never reads). On any mismatch it
answers ``{"ok": false, "error": "stale"}`` and exits; the client grades cold and, in
``grade watch``, starts a new daemon.

**Isolation.** The daemon never runs learner code: each grade is :func:`syncgrade.grading.grade`
with the daemon's :class:`~syncgrade.pool.WarmPool`, so the submission runs in a fresh
sandboxed child (pre-started, jax imported, used once), exactly as ``SYNCGRADE_WARM_POOL``
grades do, and the report is the one the cold path makes (``tests/cli/test_daemon.py``).
The daemon renders it (text, JSON, HTML, a platform's format) so the client needs no
grader import.

**Lifetime.** It exits after :data:`IDLE_S` without a request, on ``stop``, on a stale
request, or when its socket is removed or replaced. A lock file per key keeps a second
daemon for the same installation from starting.

The client side (:func:`call`, :func:`socket_path`, :func:`identity`) imports only the
standard library, so ``grade`` stays fast; the server side imports the grader when it
starts. Nothing here prints or exits: ``grade daemon`` (:mod:`syncgrade.cli.daemon`) does.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import struct
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syncgrade.version import __version__

if TYPE_CHECKING:
    from syncgrade.courses import Course
    from syncgrade.grading import GradeResult
    from syncgrade.models import GradeReport
    from syncgrade.pool import WarmPool

PROTOCOL = 1
IDLE_S = 600.0
"""A daemon with no request for this long exits (10 minutes)."""
DIR_ENV = "SYNCGRADE_DAEMON_DIR"
USE_ENV = "SYNCGRADE_DAEMON"
"""``SYNCGRADE_DAEMON=0``: ``grade`` never uses a daemon (the cold path only)."""
SOCKET_PREFIX = "grader-"
LOCK_PREFIX = "daemon-"
KEY_CHARS = 12
"""Hex digits of :func:`installation_key`: the socket's path stays well under the 108
bytes a Unix socket's path may have."""
MAX_MESSAGE = 64 << 20
PACKAGE_ROOT = Path(__file__).resolve().parent
_TICK_S = 1.0  # how often an idle daemon checks its deadline and its socket


class DaemonUnavailable(Exception):
    """No daemon answered usefully (none running, stale, a protocol error, a crash):
    the caller grades cold. The message says why, in a few words."""


# ------------------------------------------------------------------ where and who


def enabled() -> bool:
    return os.environ.get(USE_ENV, "1").strip() != "0"


def runtime_dir() -> Path:
    """The daemon's folder (see the module's docstring); not created here."""
    override = os.environ.get(DIR_ENV, "").strip()
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(xdg) and os.path.isdir(xdg):
        return Path(xdg) / "syncgrade"
    import tempfile  # only here: its imports (shutil, random) are a client's milliseconds

    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"syncgrade-daemon-{uid}"


def installation_key(client: Mapping[str, Any] | None = None) -> str:
    """A short digest of ``client`` (default: this process's :func:`identity`): what
    names this installation's socket and lock. A name, not a secret: what keeps other
    users out is the folder's mode and the peer's uid. CRC-32 and Adler-32 of the
    identity, not :mod:`hashlib`, whose OpenSSL load was the largest single import of a
    ``grade`` through the daemon (issue 35); two installations of one user sharing a
    name (they would stop each other's daemon) is as unlikely as a 48-bit collision."""
    import zlib

    text = json.dumps(dict(client if client is not None else identity()), sort_keys=True)
    data = text.encode()
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"[:KEY_CHARS]


def socket_path() -> Path:
    """This installation's socket (see the module's docstring)."""
    return runtime_dir() / f"{SOCKET_PREFIX}{installation_key()}.sock"


def lock_path() -> Path:
    """The lock a daemon for this installation holds while it serves."""
    return runtime_dir() / f"{LOCK_PREFIX}{installation_key()}.lock"


def private_dir(folder: Path, *, create: bool) -> bool:
    """Whether ``folder`` is this user's own (a real folder, owned by the user, no
    access for group or others), creating it (0700) first when ``create``."""
    if create:
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        info = folder.lstat()
    except OSError:
        return False
    import stat

    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & 0o077)


def identity() -> dict[str, Any]:
    """What a daemon must share with a client to grade for it."""
    return {"protocol": PROTOCOL, "version": __version__, "package": str(PACKAGE_ROOT),
            "python": sys.executable,
            "course_env": os.environ.get("SYNCGRADE_COURSE", "").strip()}


def _peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end (Linux); None where unknown."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    data = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return int(struct.unpack("3i", data)[1])


# ------------------------------------------------------------------ the client


def call(request: Mapping[str, Any], timeout: float) -> dict[str, Any]:
    """Send ``request`` (with :func:`identity` added) to the user's daemon and return its
    answer, a JSON object with ``"ok": true``. Raises :class:`DaemonUnavailable` for
    everything else: no daemon, a folder or peer that is not the user's own, a
    connection refused (a daemon that died), a closed connection, a timeout, an answer
    that is not such an object (``stale``, ``busy``, a protocol error)."""
    path = socket_path()
    folder = path.parent
    if not enabled() or not path.exists():
        raise DaemonUnavailable("no daemon running")
    if not private_dir(folder, create=False):
        raise DaemonUnavailable(f"{folder} is not private to this user")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
            if _peer_uid(sock) not in (None, os.getuid()):
                raise DaemonUnavailable("the socket is another user's")
            _send(sock, {**request, "identity": identity()})
            sock.shutdown(socket.SHUT_WR)
            answer = _receive(sock)
        except (OSError, ValueError) as exc:
            raise DaemonUnavailable(f"{type(exc).__name__}: {exc}") from None
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        reason = answer.get("reason") if isinstance(answer, dict) else None
        raise DaemonUnavailable(str(reason or "the daemon refused the request"))
    return answer


def _send(sock: socket.socket, message: Mapping[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


def _receive(sock: socket.socket) -> Any:
    """One JSON value: everything until the other side shuts its end (bounded)."""
    chunks, size = [], 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        size += len(chunk)
        if size > MAX_MESSAGE:
            raise ValueError("message too long")
        chunks.append(chunk)
    if not chunks:
        raise ValueError("the connection closed with no answer")
    return json.loads(b"".join(chunks))


# ------------------------------------------------------------------ versions


def _files_fingerprint(files: Iterable[Path], base: Path) -> str:
    """A digest of ``files``' names (relative to ``base``), sizes and mtimes; a file
    that does not exist counts by its name, so creating it changes the digest."""
    return _digest((str(path.relative_to(base)) if path.is_relative_to(base) else str(path),
                    str(path)) for path in files)


def _digest(named: Iterable[tuple[str, str]]) -> str:
    """A digest of ``(name, path)`` pairs: each ``name`` with the size and mtime of the
    file at ``path`` (or ``missing``), in the order of the names."""
    import hashlib  # the server's: the client never fingerprints

    digest = hashlib.sha256()
    for name, path in sorted(named):
        try:
            info = os.stat(path)
        except OSError:
            digest.update(f"{name}\0missing\n".encode())
            continue
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def tree_fingerprint(root: Path = PACKAGE_ROOT) -> str:
    """The package's Python sources (sizes and mtimes), the built-in course left out
    (:func:`course_fingerprint` covers courses) and ``__pycache__`` folders too. Checked
    on every grade, so walked with :func:`os.scandir` and plain strings: the same walk
    through :mod:`pathlib` (``rglob``, ``relative_to``, sorting paths) cost about 9 ms of
    the daemon's CPU per repeat grade at load 16, the largest part of its staleness check."""
    top = str(root)
    return _digest((path[len(top) + 1:], path) for path in _python_files(top, top))


def _python_files(folder: str, top: str) -> Iterator[str]:
    """The ``.py`` files under ``folder`` (``top``'s ``course`` and every ``__pycache__``
    left out); an unreadable folder is skipped (its files then count as gone)."""
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__" and not (folder == top and entry.name == "course"):
                yield from _python_files(entry.path, top)
        elif entry.name.endswith(".py"):
            yield entry.path


def course_fingerprint(root: Path) -> str:
    """What a daemon holds of a course in memory, and so what makes it stale: the
    course's ``course.toml`` (title, solutions folder), its exercise folders (their
    names) and each one's declaration, ``exercise.py`` (imported once, its checks and
    data kept). Nothing else, because nothing else can make a warm grade differ from a
    cold one: the statement and the stub are read afresh by the grade that needs them
    (exercise-2 reads its stub in every grade), the solution, mutants and corpus are
    never read by a grade, and a learner's ``submission.py`` saved beside the stub (the
    README's own layout), an editor's swap file, or a folder's modification time (which
    every file created in it moves) is not course content at all. A dozen ``stat``
    calls: stat-ing the corpus's thousand files took 65-180 ms of every grade under load
    (about a tenth of a repeat grade, issue 35). A declaration that reads other files when
    imported is not followed: ``grade daemon stop`` after editing those files
    (docs/performance.md, figure 5)."""
    from syncgrade.courses import COURSE_FILE, exercise_folders, read_config

    _, solutions = read_config(root)
    files = [root / COURSE_FILE, *(f.declaration for f in exercise_folders(root, solutions))]
    return _files_fingerprint(iter(files), root)


# ------------------------------------------------------------------ the server


class Daemon:
    """The server: one warm pool, one request at a time (a learner's grades come one
    after another; a second client waits in the listen queue).

    ``pool_size`` 2 (default): a spare child is warm while a grade runs, so the pool
    starts no replacement during it (:func:`syncgrade.pool.children_to_start`): with
    one, the replacement's jax start-up would take a core from the very grade the
    learner is waiting for."""

    def __init__(self, *, idle_s: float = IDLE_S, course: str | None = None,
                 pool_size: int = 2) -> None:
        from syncgrade.courses import open_course
        from syncgrade.pool import SHARED_MAX_WALL_S, WarmPool, _system_tempdir

        self.idle_s = idle_s
        self.started = time.time()
        self.grades = 0
        self.last_grade_s: float | None = None
        """Wall seconds of the last grade request, from reading it to its answer (the
        staleness check, the grade and the rendering): what a client waited, less its
        own start-up and the socket (``grade daemon status``; benchmarks/watch_saves.py)."""
        self.stopping = False
        self.identity = identity()
        self.package = tree_fingerprint()
        self.courses: dict[Path, str] = {}
        hidden: tuple[Path, ...] = ()
        if course is not None:  # hidden from the pool's children from the start
            opened = open_course(course)
            self.courses[opened.root] = course_fingerprint(opened.root)
            hidden = opened.hidden_paths
        # wait_s: a child is always on its way (one grade at a time, refilled at once);
        # waiting for it is never slower than a cold child, which imports jax too.
        self.pool: WarmPool = WarmPool(pool_size, timeout=SHARED_MAX_WALL_S, wait_s=30.0,
                                       base=_system_tempdir(), hidden=hidden)

    def status(self) -> dict[str, Any]:
        return {"ok": True, "pid": os.getpid(), "version": __version__,
                "started": self.started, "grades": self.grades, "idle_s": self.idle_s,
                "last_grade_s": self.last_grade_s,
                "warm_children": self.pool.warm_children(),
                "courses": [str(root) for root in self.courses]}

    def stale(self, client: Any, course: Course | None = None) -> str | None:
        """Why this daemon can no longer grade for ``client`` (None: it can)."""
        if client != self.identity:
            return "the client is another syncgrade, Python or course setting"
        if tree_fingerprint() != self.package:
            return "syncgrade's sources changed since the daemon started"
        if course is not None:
            now = course_fingerprint(course.root)
            if self.courses.setdefault(course.root, now) != now:
                return f"the course {course.root} changed since the daemon started"
        return None

    def handle(self, request: Any) -> dict[str, Any]:
        """The answer to one request; sets :attr:`stopping` on ``stop`` or staleness."""
        if not isinstance(request, dict):
            return {"ok": False, "error": "protocol", "reason": "not a JSON object"}
        op = request.get("op")
        if op == "ping":
            return {**self.status(), "stale": self.stale(request.get("identity"))}
        if op == "stop":
            self.stopping = True
            return {"ok": True, "stopping": True}
        if op != "grade":
            return {"ok": False, "error": "protocol", "reason": f"unknown op {op!r}"}
        begun = time.perf_counter()
        answer = self.grade(request)  # checks staleness, with the request's course
        if answer.get("ok"):
            self.last_grade_s = time.perf_counter() - begun
        return answer

    def grade(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """One grade, answered with the rendered report and what the client records.
        A usage error (unknown exercise, unreadable course) is answered ``ok: false``:
        the client then grades cold and says it as the cold path does."""
        from syncgrade.courses import open_course
        from syncgrade.errors import SubmissionError, UnknownExercise

        try:
            course = open_course(request["course"] or None)
            why = self.stale(request.get("identity"), course)
            if why is not None:
                self.stopping = True
                return {"ok": False, "error": "stale", "reason": why}
            result = self._grade(request, course)
        except (UnknownExercise, SubmissionError, KeyError, TypeError, ValueError) as exc:
            # ValueError: CourseError, RubricError, a limit; all the cold path's to say
            return {"ok": False, "error": "usage", "reason": f"{type(exc).__name__}: {exc}"}
        self.grades += 1
        report = result.report  # quoted from the lines graded, never the file read again
        text = render_report(report, request["format"], reveal=bool(request["reveal"]),
                             lines=result.source_lines, colour=bool(request["colour"]),
                             width=request.get("width") or _default_width(),
                             html=bool(request["html"]), passing=bool(request["passing"]),
                             warm=True)
        return {"ok": True, "text": text, "status": report.status, "score": report.score,
                "max_score": report.max_score, "exercise": report.exercise,
                "internal_error": bool(report.grading.internal_error),
                "course_root": str(course.root)}

    def _grade(self, request: Mapping[str, Any], course: Course) -> GradeResult:
        from syncgrade.grading import grade_result

        return grade_result(str(request["exercise"]), Path(request["path"]),
                            display_name=str(request["display"]),
                            timeout=float(request["timeout"]),
                            memory_bytes=int(request["memory_bytes"]), pool=self.pool,
                            course=course, draw_passing=bool(request["passing"]))

    def close(self) -> None:
        self.pool.close()


def _default_width() -> int:
    """The text view's width where the client has no terminal: the renderer's own
    default, never this daemon's environment."""
    from syncgrade.render import DEFAULT_WIDTH

    return DEFAULT_WIDTH


def render_report(report: GradeReport, fmt: str, *, reveal: bool, lines: Sequence[str] | None,
                  colour: bool, width: int | None = None, html: bool = False,
                  passing: bool = False, warm: bool = False) -> str:
    """The report in ``fmt``, as ``grade`` writes it: the learner's view (hidden checks
    redacted) unless ``reveal``; ``colour`` and ``width`` for the text view (the
    client's terminal); ``html``: a platform format's HTML outputs; ``passing``: the
    page draws passing checks' intervals too; ``warm``: the daemon graded it (the text
    and the page say so in place of "+ start-up"). The cold path and the daemon both render
    through this, so their output is the same."""
    from syncgrade.platforms.visibility import redact

    if fmt == "html":
        from syncgrade.picture import render_html

        return render_html(report if reveal else redact(report), source_lines=lines,
                           passing=passing, warm=warm)
    if fmt == "text":
        from syncgrade.render import render

        return render(report if reveal else redact(report), lines, colour=colour,
                      width=width, warm=warm)
    from syncgrade.platforms.output import format_report

    return format_report(report, fmt, reveal=reveal, source_lines=lines, html=html)


# ------------------------------------------------------------------ serving


def serve(daemon: Daemon, on_ready: Any = None) -> str:
    """Listen on :func:`socket_path` and answer requests until idle, stopped, stale or
    displaced; then remove the socket and close the pool. Returns why it stopped (one
    line). ``on_ready()`` is called once the socket accepts connections. Returns at once
    (``"already running"``) when another daemon holds the folder's lock."""
    folder, path = runtime_dir(), socket_path()
    if not private_dir(folder, create=True):
        daemon.close()
        return f"{folder} is not a folder private to this user; not serving"
    with _lock(lock_path()) as held:
        if not held:
            daemon.close()
            return "already running"
        try:
            listener, inode = _listen(path)
        except OSError as exc:
            daemon.close()
            return f"cannot listen on {path}: {exc.strerror or exc}"
        try:
            if on_ready is not None:
                on_ready()
            return _loop(daemon, listener, path, inode)
        finally:
            listener.close()
            with contextlib.suppress(OSError):
                if path.stat().st_ino == inode:
                    path.unlink()
            daemon.close()


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[bool]:
    """An exclusive lock on ``path`` held while the block runs (``True``), or ``False``
    at once when another process holds it."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _listen(path: Path) -> tuple[socket.socket, int]:
    """A listening socket at ``path`` (mode 0600; a leftover socket of a dead daemon is
    replaced: the lock says none is alive) and its inode."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # the socket is born 0600: no window with wider access
    try:
        listener.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    listener.listen(8)
    return listener, path.stat().st_ino


def _loop(daemon: Daemon, listener: socket.socket, path: Path, inode: int) -> str:
    last = time.monotonic()
    while not daemon.stopping:
        ready, _, _ = select.select([listener], [], [], _TICK_S)
        if not ready:
            if time.monotonic() - last > daemon.idle_s:
                return f"idle for {daemon.idle_s:g} s"
            try:
                if path.stat().st_ino != inode:
                    return "its socket was replaced"
            except OSError:
                return "its socket was removed"
            continue
        connection, _ = listener.accept()
        with connection:
            _answer(daemon, connection)
        last = time.monotonic()
    return "stopped"


def _answer(daemon: Daemon, connection: socket.socket) -> None:
    """Read one request from ``connection`` and answer it; a client that is not this
    user, sends garbage or goes away gets an error answer or none, never a crash."""
    connection.settimeout(10.0)  # the request is sent at once; the grade is not bounded
    try:
        if _peer_uid(connection) not in (None, os.getuid()):
            return
        try:
            request = _receive(connection)
        except ValueError as exc:
            answer: dict[str, Any] = {"ok": False, "error": "protocol", "reason": str(exc)}
        else:
            try:
                answer = daemon.handle(request)
            except Exception as exc:  # a fault of the daemon: the client grades cold
                daemon.stopping = True
                answer = {"ok": False, "error": "internal",
                          "reason": f"{type(exc).__name__}: {exc}"}
        connection.settimeout(None)
        _send(connection, answer)
    except OSError:
        return  # the client went away (e.g. Ctrl-C in `grade watch`): nothing to tell
