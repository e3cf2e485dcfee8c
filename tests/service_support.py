"""What the service tests share (tests/service/, and the cluster and registry tests that
serve over HTTP too): requests over http.client, `grade serve` in a subprocess and uvicorn
on a thread on free loopback ports, waits on /healthz and /readyz, and the *gate*: a
submission that makes a FIFO in its work directory and blocks reading it until the test
opens it for writing (:func:`release`), so no test relies on a sleep outlasting a step."""

from __future__ import annotations

import contextlib
import http.client
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builders import wait_until

ROOT = Path(__file__).resolve().parent.parent


COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)
SOLUTIONS = ROOT / "solutions"  # the built-in course's reference solutions


SOLUTION = (SOLUTIONS / "exercise-1" / "solution.py").read_text(encoding="utf-8")


NO_WAIT = (COURSE / "exercise-1" / "corpus" / "flawed" / "no_wait.py").read_text(
    encoding="utf-8")


MAX_BODY = 64 * 1024


Response = tuple[int, dict[str, str], bytes]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_request(port: int, method: str, path: str, body: bytes | None = None,
             headers: dict[str, str] | None = None, chunked: bool = False) -> Response:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        if chunked:
            def pieces() -> Iterator[bytes]:
                assert body is not None
                for start in range(0, len(body), 8192):
                    yield body[start:start + 8192]
            conn.request(method, path, body=pieces(), headers=headers or {},
                         encode_chunked=True)
        else:
            conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        conn.close()


def post_json(port: int, payload: Any) -> Response:
    return http_request(port, "POST", "/v1/grade", json.dumps(payload).encode("utf-8"),
                    {"Content-Type": "application/json"})


def json_body(response: Response) -> Any:
    _status, headers, body = response
    assert headers.get("content-type", "").startswith("application/json"), headers
    return json.loads(body)


def wait_until_up(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    def up() -> bool:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"grade serve exited with {process.returncode}")
        with contextlib.suppress(OSError):
            return http_request(port, "GET", "/healthz")[0] == 200
        return False

    wait_until(up, 120, interval=0.1, what="the server to come up")


def wait_until_ready(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    """Until ``/readyz`` is 200: the warm pool filled and the self-test passed."""
    def ready() -> bool:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"grade serve exited with {process.returncode}")
        with contextlib.suppress(OSError):
            return http_request(port, "GET", "/readyz")[0] == 200
        return False

    wait_until(ready, 180, interval=0.1, what="/readyz to answer 200")


def gated(name: str, then: str = SOLUTION) -> str:
    """A submission that makes the FIFO ``name`` in its work directory and blocks reading
    it (a grade kept running), then runs ``then``."""
    return (f"import os as _os\n_os.mkfifo({name!r}, 0o666)\n"
            f"with open({name!r}) as _gate:\n    _gate.read()\n{then}")


def new_gate() -> str:
    return f"gate-{uuid.uuid4().hex}"


def find_gate(base: Path, name: str, timeout: float = 120) -> Path:
    """The gate FIFO once the child under ``base`` (its temp directory) made it: in its
    work directory, ``base/syncgrade-*/work`` (not a recursive search, which would walk
    into the run directory's jail)."""
    def found() -> Path | None:
        return next(iter(base.glob(f"syncgrade-*/work/{name}")), None)

    return wait_until(found, timeout, interval=0.05,
                      what=f"the submission to open its gate {name}")


def release(base: Path, name: str) -> None:
    """Let the gated submission ``name`` under ``base`` go on: open its FIFO for writing
    once it is reading (non-blocking, retried), and close it (it reads end of file)."""
    path = find_gate(base, name)

    def opened() -> int | None:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader yet
            return None

    os.close(wait_until(opened, 60, interval=0.02, what=f"a reader on {name}"))


@dataclass(frozen=True)
class Served:
    """A `grade serve` subprocess: its port, its temp directory (the children's work
    directories are under it) and the file its stderr (the JSON logs) goes to."""

    port: int
    tmp: Path
    log: Path
    process: subprocess.Popen[bytes]


@contextlib.contextmanager
def grade_serve(tmp: Path, *args: str, env: dict[str, str] | None = None,
                ready: bool = True, intervals: dict[str, float] | None = None
                ) -> Iterator[Served]:
    """`grade serve ARGS` on a free loopback port, with ``TMPDIR`` under ``tmp``; waits
    for /readyz 200 (``ready``) or /healthz; terminated at the end. ``intervals``: the
    service's heartbeat, stale and self-test retry seconds (``ServiceConfig``'s
    ``heartbeat_s``, ``stale_s``, ``self_test_retry_s``) for a test that waits one out:
    the same command (``cmd_serve``), given them as its caller."""
    port = free_port()
    children = tmp / "tmp"
    children.mkdir(parents=True, exist_ok=True)
    log = tmp / "serve.log"
    command = ["-m", "syncgrade.cli", "serve"] if not intervals else [
        "-c", "import sys; from syncgrade.cli.serve import cmd_serve; "
              f"sys.exit(cmd_serve(sys.argv[1:], **{intervals!r}))"]
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, *command, "--port", str(port), *args],
            stdout=subprocess.DEVNULL, stderr=stderr,
            env={**os.environ, "TMPDIR": str(children),
                 "SYNCGRADE_SERVE_JOB_STORE": str(tmp / "jobs.sqlite3"), **(env or {})})
    try:
        if ready:
            wait_until_ready(port, process)
        else:
            wait_until_up(port, process)
        yield Served(port, children, log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def assert_error(response: Response, status: int, *words: str) -> str:
    assert response[0] == status, response
    error = json_body(response)
    assert set(error) == {"error"}
    message: str = error["error"]
    assert message and "\n" not in message and "Traceback" not in message
    for word in words:
        assert word in message, message
    return message


GOOD = {"exercise": "exercise-1", "source": "x = 1\n"}


@contextlib.contextmanager
def thread_server(config: Any = None, app: Any = None) -> Iterator[int]:
    """uvicorn serving ``app`` (default: ``create_app(config)``, by default one worker,
    no queue, no self-test) on a thread, on a free loopback port; yields the port once
    /healthz answers, and at the end stops it and waits for its shutdown (which waits
    for the grades in flight)."""
    import uvicorn

    from syncgrade.service import ServiceConfig, create_app

    port = free_port()
    if app is None:
        app = create_app(config or ServiceConfig(workers=1, queue=0, self_test=False))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until_up(port)
        yield port
    finally:
        server.should_exit = True
        thread.join(120)
        assert not thread.is_alive(), "the server did not shut down"


class Callbacks:
    """What a loopback HTTP server received as POSTs: (JSON body, headers) in order."""

    def __init__(self, port: int) -> None:
        self.url = f"http://127.0.0.1:{port}/hook"
        self.received: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.lock = threading.Lock()

    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return [body for body, _ in self.received]

    def for_job(self, job_id: str) -> tuple[dict[str, Any], dict[str, str]] | None:
        with self.lock:
            return next(((b, h) for b, h in self.received if b.get("id") == job_id), None)


@contextlib.contextmanager
def callback_server() -> Iterator[Callbacks]:
    """A threading HTTP server on a free loopback port that records each POST and
    answers 204."""
    holder: list[Callbacks] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with holder[0].lock:
                holder[0].received.append(
                    (body, {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(Callbacks(server.server_address[1]))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield holder[0]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
