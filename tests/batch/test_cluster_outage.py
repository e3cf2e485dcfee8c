"""``grade serve --cluster`` through a scheduler outage (issue 26).

A real ``dask scheduler`` process and one ``dask worker`` process on loopback, and
`grade serve --cluster` in a subprocess spoken to over HTTP. The scheduler is stopped for
longer than Dask's own client keeps trying to reconnect (its connect timeout, 10 s), then
started again on the same port: the service says it is not ready (``/readyz`` 503,
``syncgrade_ready`` 0) and answers grades 503 while the scheduler is gone, and grades
again once it is back, without a restart. Dask's own log lines come out as the
service's JSON lines.

The waits are on events the service reports (its ``/readyz`` body says when Dask's client
gave up and when it is connected again), never on a sleep."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builders import wait_until
from cluster_support import can_connect, start_cluster, stop
from service_support import free_port, grade_serve, http_request, json_body

SYNTAX_ERROR = {"exercise": "exercise-1", "source": "def broken(:\n"}


def _ready(port: int) -> tuple[int, dict[str, Any]]:
    status, _, body = http_request(port, "GET", "/readyz")
    return status, json.loads(body)


def _grade(port: int) -> tuple[int, dict[str, str], bytes]:
    return http_request(port, "POST", "/v1/grade", json.dumps(SYNTAX_ERROR).encode(),
                        {"Content-Type": "application/json"})


def _metric(port: int, name: str) -> float:
    text = http_request(port, "GET", "/metrics")[2].decode()
    return float(next(line.split()[-1] for line in text.splitlines()
                      if line.startswith(name + " ")))


def test_the_service_grades_again_after_a_scheduler_outage(tmp_path: Path) -> None:
    port = free_port()
    cluster = start_cluster(port, tmp_path)
    try:
        wait_until(lambda: can_connect(port), 120, interval=0.2, what="the scheduler")
        with grade_serve(tmp_path / "serve", "--cluster", f"tcp://127.0.0.1:{port}",
                         "--workers", "1") as server:
            status, _, body = _grade(server.port)
            assert status == 200 and json.loads(body)["cause"] == "syntax_error", body
            stop(cluster)
            # Not ready while the scheduler is gone, past the time Dask's own client
            # gives up in (the service then says "unreachable" and keeps trying).
            down = wait_until(lambda: (r := _ready(server.port))[0] == 503
                              and "unreachable" in r[1]["cluster"] and r, 180,
                              interval=0.2, what="/readyz to say the scheduler is gone")
            assert down[1]["ready"] is False
            assert _metric(server.port, "syncgrade_ready") == 0
            status, headers, body = _grade(server.port)
            assert status == 503 and headers["retry-after"].isdigit(), body
            assert "Dask scheduler" in json_body((status, headers, body))["error"]
            cluster = start_cluster(port, tmp_path)  # the same address again
            up = wait_until(lambda: (r := _ready(server.port))[0] == 200 and r, 180,
                            interval=0.2, what="/readyz 200 with the scheduler back")
            assert up[1]["cluster"].startswith("connected")
            assert _metric(server.port, "syncgrade_ready") == 1
            status, _, body = _grade(server.port)
            assert status == 200 and json.loads(body)["cause"] == "syntax_error", body
            log = server.log.read_text(encoding="utf-8").splitlines()
    finally:
        stop(cluster)
    entries = [json.loads(line) for line in log]  # every line one JSON object
    assert any(e["logger"].startswith("distributed") for e in entries), entries[-5:]
