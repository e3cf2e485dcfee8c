"""Readiness means gradable on a cluster (issue 36): real ``dask scheduler`` and ``dask
worker`` processes on loopback.

A scheduler with no worker (real workers exit when their scheduler goes away, and a new
scheduler starts with none): ``grade serve --cluster`` is not ready (``/readyz`` 503,
``workers`` 0, ``cluster`` says why), and a grade asked for then answers 503 at once
instead of waiting for a worker that never comes; once a worker connects it grades. A
worker that dies mid-grade with no other to run the task: the grade still ends, as a
grader fault that says so, within ``timeout + overhead + transfer_s`` (the test passes a shorter
``transfer_s``, the client's allowance for the scheduler and the transfer, than
``cluster.TRANSFER_S``: on loopback they take milliseconds, and the bound is then waited out
in full)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from builders import wait_until
from cluster_support import can_connect, start_scheduler, start_worker, stop
from service_support import find_gate, free_port, gated, grade_serve, http_request, new_gate

from syncgrade import cluster
from syncgrade.models import GradeReport

SYNTAX_ERROR = {"exercise": "exercise-1", "source": "def broken(:\n"}
TIMEOUT_S = 30.0
TRANSFER_S = 1.0
"""``cluster.grade``'s ``transfer_s`` here (``cluster.TRANSFER_S``, 10 s, in production):
what the test waits past the grade's own ``timeout + overhead`` before the lost grade is
a fault."""


def _ready(port: int) -> tuple[int, dict[str, Any]]:
    status, _, body = http_request(port, "GET", "/readyz")
    return status, json.loads(body)


def _post(port: int, path: str) -> tuple[int, dict[str, Any]]:
    status, _, body = http_request(port, "POST", path, json.dumps(SYNTAX_ERROR).encode(),
                                   {"Content-Type": "application/json"})
    return status, json.loads(body)


def test_with_no_worker_the_service_is_not_ready_and_refuses_grades_at_once(
        tmp_path: Path) -> None:
    port = free_port()
    processes = [start_scheduler(port, tmp_path)]
    try:
        wait_until(lambda: can_connect(port), 120, interval=0.2, what="the scheduler")
        # The self-test fails while no worker is connected; retried every second here,
        # not every 10 s, once one is (ServiceConfig.self_test_retry_s).
        with grade_serve(tmp_path / "serve", "--cluster", f"tcp://127.0.0.1:{port}",
                         "--workers", "1", "--timeout", f"{TIMEOUT_S:g}", ready=False,
                         intervals={"self_test_retry_s": 1.0}) as server:
            status, body = _ready(server.port)
            assert status == 503 and body["workers"] == 0, body
            assert body["cluster"].startswith("no workers: no Dask worker is connected")
            asked = time.monotonic()
            status, answer = _post(server.port, "/v1/grade")
            assert status == 503 and "no Dask worker" in answer["error"], answer
            assert time.monotonic() - asked < TIMEOUT_S  # not a wait for a worker
            status, accepted = _post(server.port, "/v1/jobs")
            job = wait_until(lambda: (j := json.loads(http_request(
                server.port, "GET", accepted["url"])[2]))["status"] == "failed" and j,
                120, interval=0.1, what="the job to fail")
            assert "no Dask worker" in job["error"]
            processes.append(start_worker(port, tmp_path))
            up = wait_until(lambda: (r := _ready(server.port))[0] == 200 and r, 180,
                            interval=0.2, what="/readyz 200 once a worker is back")
            assert up[1]["workers"] == 1 and up[1]["cluster"] == "connected"
            status, report = _post(server.port, "/v1/grade")
            assert status == 200 and report["cause"] == "syntax_error", report
    finally:
        stop(processes)


def test_a_grade_whose_worker_died_alone_ends_as_a_grader_fault(tmp_path: Path) -> None:
    port = free_port()
    worker_tmp = tmp_path / "worker-tmp"
    worker_tmp.mkdir()
    processes = [start_scheduler(port, tmp_path)]
    try:
        wait_until(lambda: can_connect(port), 120, interval=0.2, what="the scheduler")
        worker = start_worker(port, tmp_path, "--no-nanny",
                              env={**os.environ, "TMPDIR": str(worker_tmp)})
        processes.append(worker)
        client = cluster.connect(f"tcp://127.0.0.1:{port}")
        try:
            wait_until(lambda: cluster.live_threads(client) == 1, 180, interval=0.2,
                       what="the worker to connect")
            gate = new_gate()
            reports: list[GradeReport] = []
            grading = threading.Thread(target=lambda: reports.append(cluster.grade(
                client, "exercise-1", source=gated(gate, "x = 1\n"), timeout=20,
                overhead=5, transfer_s=TRANSFER_S)))
            grading.start()
            find_gate(worker_tmp, gate, timeout=300)  # the worker runs it
            assert grading.is_alive(), reports  # still waiting: the death is what ends it
            worker.kill()  # and dies, with no other worker to run it again
            worker.wait(60)
            grading.join(20 + 5 + TRANSFER_S + 120)  # the bound, and a margin
            assert reports, "cluster.grade did not return"
        finally:
            client.close()
    finally:
        stop(processes)
    report = reports[0]
    assert (report.status, report.cause) == ("error", "grader_fault")
    assert f"no Dask worker returned this grade within {20 + 5 + TRANSFER_S:g} s" in str(
        report.grading.internal_error)
