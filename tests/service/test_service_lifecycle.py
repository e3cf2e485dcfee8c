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
    callback_server,
    find_gate,
    gated,
    grade_serve,
    http_request,
    json_body,
    new_gate,
    release,
)

from syncgrade import cli
from syncgrade.cli.common import UsageError
from syncgrade.cli.serve import env_name, serve_parser
from syncgrade.service.config import STALE_S
from syncgrade.service.jobs import ORPHANED, JobStore
from syncgrade.service.runner import GradeTask

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


def _replica(tmp: Path, store: Path, intervals: dict[str, float] | None = None,
             **env: str) -> Any:
    """`grade serve` with its jobs in ``store``, two workers, cold children (so a gate
    is found under its own temp directory), up once /healthz answers; ``intervals`` as
    :func:`service_support.grade_serve`'s."""
    return grade_serve(tmp, "--workers", "2", "--warm-pool", "0", ready=False,
                       env={"SYNCGRADE_SERVE_JOB_STORE": str(store), **env},
                       intervals=intervals)


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


def _stale(path: str, store: JobStore) -> None:
    """``store``'s last heartbeat, long ago (its process is taken for dead)."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE owners SET seen = ? WHERE owner = ?",
                   (time.time() - STALE_S - 1, store.owner))


def test_a_dead_stores_job_is_claimed_once_requeued_once_then_failed(tmp_path: Path) -> None:
    """A store whose heartbeat is older than STALE_S is dead: a live store claims its
    unfinished job, with the task kept beside it, once (a second live store finds
    nothing); when the claimer dies too the job is not graded a third time but ends
    failed, for a callback. A job kept without its task can only end failed."""
    path = str(tmp_path / "jobs.sqlite3")
    dead = JobStore(10, path)
    task = GradeTask("exercise-1", "x = 1\n", "mine.py", 7.0, 2**30, "r1")
    job = dead.new("exercise-1", "r1", "http://127.0.0.1:9/hook", staff=True, task=task)
    dead.start(job)
    untracked = dead.new("exercise-1", "r2", None)  # no task kept: cannot be regraded
    live, other = JobStore(10, path), JobStore(10, path)
    assert live.claim_orphans() == ([], [])  # its heartbeat is fresh: not dead
    assert (body := live.get(job.id)) is not None and body.status == "running"
    _stale(path, dead)
    again, ended = live.claim_orphans()
    assert [(j.id, j.callback_url, j.staff, t) for j, t in again] == [
        (job.id, "http://127.0.0.1:9/hook", True, task)]
    assert [(j.id, b.status, b.error) for j, b in ended] == [(untracked.id, "failed",
                                                              ORPHANED)]
    assert other.claim_orphans() == ([], [])  # claimed by one store only
    assert (body := other.get(job.id)) is not None and body.status == "queued"
    _stale(path, live)  # the replica that took it over dies too
    again, ended = other.claim_orphans()
    assert again == [] and [(j.id, j.callback_url, b.status) for j, b in ended] == [
        (job.id, "http://127.0.0.1:9/hook", "failed")]
    assert dead.finish(job, None, "late") is None  # ended once: no second callback
    with sqlite3.connect(path) as db:  # a finished job keeps no learner source
        assert db.execute("SELECT COUNT(*) FROM jobs WHERE task IS NOT NULL"
                          ).fetchone() == (0,)


def test_a_store_made_by_an_older_version_gains_the_new_columns(tmp_path: Path) -> None:
    path = str(tmp_path / "jobs.sqlite3")
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE jobs (id TEXT PRIMARY KEY, exercise TEXT NOT NULL, "
                   "status TEXT NOT NULL, submitted_at REAL NOT NULL, finished_at REAL, "
                   "report TEXT, error TEXT, owner TEXT NOT NULL)")
        db.execute("INSERT INTO jobs VALUES ('old', 'exercise-1', 'queued', 1.0, NULL, "
                   "NULL, NULL, 'gone')")
    store = JobStore(10, path)
    assert store.claim_orphans()[1][0][1].status == "failed"  # no task: failed


BEAT_S = 0.5
"""The replicas' heartbeat in the kill test (``heartbeat_s``, 2 s in production)."""
GONE_S = 5.0
"""How stale a heartbeat means a dead replica in the kill test (``stale_s``, 20 s in
production): ten beats, as in production."""


def test_a_job_of_a_replica_killed_outright_is_graded_again_and_called_back(
        tmp_path: Path) -> None:
    """Issue 36: replica A is killed with SIGKILL while it grades a job (its gate kept
    closed); replica B, sharing the job store, takes the job over within the stale time
    plus two heartbeats of A's last beat, grades it again, and its callback gets the
    report, once. Both replicas beat every :data:`BEAT_S` and take a heartbeat
    :data:`GONE_S` old for a death (``ServiceConfig.stale_s`` and ``heartbeat_s``,
    shortened for this test: the same code waits less)."""
    store = tmp_path / "jobs.sqlite3"
    gate = new_gate()
    quick = {"heartbeat_s": BEAT_S, "stale_s": GONE_S}
    with callback_server() as hooks, _replica(tmp_path / "a", store, quick) as a, \
            _replica(tmp_path / "b", store, quick) as b:
        accepted = http_request(a.port, "POST", "/v1/jobs", json.dumps(
            {"exercise": "exercise-1", "source": gated(gate, "x = 1\n"),
             "callback_url": hooks.url}).encode(), {"Content-Type": "application/json"})
        job = json_body(accepted)["id"]
        find_gate(a.tmp, gate)  # A runs it
        a.process.kill()
        a.process.wait(60)
        killed = time.monotonic()
        release(b.tmp, gate)  # found only once B grades it again
        taken = time.monotonic() - killed
        done = _finished(b.port, job)
        assert done["status"] == "done" and done["report"]["cause"] == "graded"
        assert taken < GONE_S + 4 * BEAT_S + 120  # bounded (120 s: start-up at load)
        hook = wait_until(lambda: hooks.for_job(job), 120, interval=0.1,
                          what="the callback")
        assert hook[0]["status"] == "done"
        log = [json.loads(line) for line in b.log.read_text().splitlines()]
        assert [e["job"] for e in log if e["event"] == "job requeued"] == [job]
        assert len([body for body in hooks.bodies() if body["id"] == job]) == 1


def test_a_drain_answers_503_cancels_the_queue_and_lets_running_grades_finish(
        tmp_path: Path) -> None:
    """Issue 36: after SIGTERM the replica keeps answering while its grades run:
    ``/readyz`` 503 (not a refused connection), a new grade 503; a job still queued ends
    ``failed`` at once and is called back; the running ones finish and are called back
    ``done``; then the process exits, long before its drain deadline."""
    store = tmp_path / "jobs.sqlite3"
    gates = [new_gate(), new_gate()]
    with callback_server() as hooks, _replica(tmp_path / "a", store,
                                              SYNCGRADE_SERVE_DRAIN_TIMEOUT="300") as a:
        def job(source: str) -> str:
            return str(json_body(http_request(a.port, "POST", "/v1/jobs", json.dumps(
                {"exercise": "exercise-1", "source": source,
                 "callback_url": hooks.url}).encode(),
                {"Content-Type": "application/json"}))["id"])

        running = [job(gated(gate, "x = 1\n")) for gate in gates]  # both workers busy
        for gate in gates:
            find_gate(a.tmp, gate)
        queued = job(SYNTAX_ERROR)
        assert _job(a.port, queued)["status"] == "queued"
        a.process.send_signal(signal.SIGTERM)
        cancelled = wait_until(lambda: hooks.for_job(queued), 120, interval=0.1,
                               what="the queued job's callback")
        assert cancelled[0]["status"] == "failed"
        assert "stopped before the grade started" in cancelled[0]["error"]
        status, _, body = http_request(a.port, "GET", "/readyz")  # still answering
        assert status == 503 and json.loads(body)["ready"] is False
        refused = _submit(a.port, SYNTAX_ERROR, "/v1/grade")
        assert refused[0] == 503 and "shutting down" in json_body(refused)["error"]
        assert [_job(a.port, j)["status"] for j in running] == ["running", "running"]
        for gate in gates:
            release(a.tmp, gate)
        assert a.process.wait(timeout=240) in (0, -signal.SIGTERM)
        ended = wait_until(lambda: all(hooks.for_job(j) for j in running) and [
            hooks.for_job(j) for j in running], 60, interval=0.1, what="their callbacks")
        assert [hook[0]["status"] for hook in ended if hook] == ["done", "done"]
    log = [json.loads(line) for line in a.log.read_text().splitlines()]
    assert [e["abandoned"] for e in log if e["event"] == "stopped"] == [0]
