"""Operating the service (issue 26): every `grade serve` option from an environment
variable, the drain on SIGTERM bounded by ``--drain-timeout``, and jobs kept in SQLite:
they survive a restart, and replicas that share the file read each other's jobs.

The drain and the store are tested with `grade serve` subprocesses over real HTTP on
loopback, the signal a real SIGTERM; a grade is kept running by a gate (a FIFO it reads)
that the test never opens, so the drain's deadline, not the grade, ends it."""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from builders import wait_until
from service_support import (
    Response,
    find_gate,
    gated,
    grade_serve,
    http_request,
    json_body,
    new_gate,
)

from syncgrade import cli
from syncgrade.cli.common import UsageError
from syncgrade.cli.serve import env_name, serve_parser
from syncgrade.service.jobs import ORPHANED, STALE_S, JobStore

SYNTAX_ERROR = "def broken(:\n"


# --- every option from the environment --------------------------------------------------

def test_every_option_is_read_from_its_environment_variable_and_named_in_help(
        capsys: pytest.CaptureFixture[str]) -> None:
    parser = serve_parser()
    options = [a for a in parser._actions if a.option_strings and a.dest != "help"]
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    shown = "".join(capsys.readouterr().out.split())  # help wraps its lines anywhere
    for action in options:
        assert env_name(action) in shown, action.dest
    environ = {"SYNCGRADE_SERVE_HOST": "0.0.0.0", "SYNCGRADE_SERVE_PORT": "8123",
               "SYNCGRADE_SERVE_WORKERS": "3", "SYNCGRADE_SERVE_MAX_MEMORY": "6",
               "SYNCGRADE_SERVE_NO_AUTH": "yes", "SYNCGRADE_SERVE_DRAIN_TIMEOUT": "25",
               "SYNCGRADE_SERVE_JOB_STORE": "/var/lib/syncgrade/jobs.sqlite3",
               "SYNCGRADE_SERVE_CALLBACK_HOST": "lms.example, grader.example",
               "SYNCGRADE_SERVE_TOKEN_FILE": "/run/secrets/token"}
    args = serve_parser(environ).parse_args([])
    assert (args.host, args.port, args.workers, args.max_memory, args.no_auth) == (
        "0.0.0.0", 8123, 3, 6.0, True)
    assert (args.drain_timeout, args.job_store) == (25.0, "/var/lib/syncgrade/jobs.sqlite3")
    assert args.callback_host == ["lms.example", "grader.example"]
    assert str(args.token_file) == "/run/secrets/token"
    # the command line wins over the environment
    assert serve_parser(environ).parse_args(["--workers", "5"]).workers == 5
    for name, value in (("SYNCGRADE_SERVE_WORKERS", "zero"),
                        ("SYNCGRADE_SERVE_NO_AUTH", "perhaps"),
                        ("SYNCGRADE_SERVE_DRAIN_TIMEOUT", "-1")):
        with pytest.raises(UsageError, match=rf"^\${name}: "):
            serve_parser({name: value})


# --- the drain, and jobs across processes ---------------------------------------------

def _job(port: int, job_id: str) -> dict[str, Any]:
    response = http_request(port, "GET", f"/v1/jobs/{job_id}")
    assert response[0] == 200, response
    return json_body(response)


def _submit(port: int, source: str, path: str = "/v1/jobs") -> Response:
    return http_request(port, "POST", path, json.dumps(
        {"exercise": "exercise-1", "source": source}).encode(),
        {"Content-Type": "application/json"})


def _finished(port: int, job_id: str) -> dict[str, Any]:
    return wait_until(
        lambda: (job := _job(port, job_id))["status"] in ("done", "failed") and job,
        300, interval=0.1, what=f"job {job_id} to end")


def _replica(tmp: Path, store: Path, **env: str) -> Any:
    """`grade serve` with its jobs in ``store``, two workers, cold children (so a gate
    is found under its own temp directory), up once /healthz answers."""
    return grade_serve(tmp, "--workers", "2", "--warm-pool", "0", ready=False,
                       env={"SYNCGRADE_SERVE_JOB_STORE": str(store), **env})


def test_sigterm_drains_within_the_bound_and_jobs_outlive_the_process(
        tmp_path: Path) -> None:
    store = tmp_path / "jobs.sqlite3"
    gate = new_gate()
    with _replica(tmp_path / "a", store, SYNCGRADE_SERVE_DRAIN_TIMEOUT="1") as a, \
            _replica(tmp_path / "b", store) as b:
        accepted = _submit(a.port, SYNTAX_ERROR)
        assert accepted[0] == 202, accepted
        first = json_body(accepted)["id"]
        done = _finished(b.port, first)  # replica B reads the job replica A graded
        assert done["status"] == "done" and done["report"]["cause"] == "syntax_error"

        stuck = json_body(_submit(a.port, gated(gate)))["id"]  # runs until the drain
        find_gate(a.tmp, gate)
        held: list[Response] = []
        waiting = threading.Thread(target=lambda: held.append(
            _submit(a.port, gated(gate + "-sync"), "/v1/grade")))
        waiting.start()
        find_gate(a.tmp, gate + "-sync")
        a.process.send_signal(signal.SIGTERM)
        # not held by the grades still running (uvicorn ends by the signal it caught)
        assert a.process.wait(timeout=120) in (0, -signal.SIGTERM)
        waiting.join(60)
        assert held and held[0][0] == 503, held
        assert "drain time (1 s) ran out" in json_body(held[0])["error"]
        failed = _job(b.port, stuck)  # ended by A's drain, read by B
        assert failed["status"] == "failed" and "drain time (1 s)" in failed["error"]
        log = [json.loads(line) for line in a.log.read_text().splitlines()]
        assert [e["abandoned"] for e in log if e["event"] == "stopped"] == [2]

    with _replica(tmp_path / "c", store) as restarted:  # a new process, the same file
        again = _job(restarted.port, first)
        assert again == done  # the report and every field, as before the restart
        assert _job(restarted.port, stuck)["status"] == "failed"


def test_a_job_whose_process_died_reads_failed(tmp_path: Path) -> None:
    """A store's process killed outright ends no job: once its heartbeat is older than
    STALE_S, another store reads its unfinished jobs as failed."""
    path = str(tmp_path / "jobs.sqlite3")
    dead = JobStore(10, path)
    job = dead.new("exercise-1", "r1", None)
    dead.start(job)
    live = JobStore(10, path)
    assert (body := live.get(job.id)) is not None and body.status == "running"
    with sqlite3.connect(path) as db:  # its last heartbeat, long ago
        db.execute("UPDATE owners SET seen = ? WHERE owner = ?",
                   (time.time() - STALE_S - 1, dead.owner))
    body = live.get(job.id)
    assert body is not None and (body.status, body.error) == ("failed", ORPHANED)
    assert dead.finish(job, None, "late") is None  # ended once: no second callback
