"""The job API over real HTTP on loopback: ``POST /v1/jobs`` (202 and an id),
``GET /v1/jobs/{id}`` through queued, running and done, the callback POSTed to a
loopback HTTP server the test runs, a full queue (429), jobs cancelled at shutdown
(``failed``, and still called back), and 50 concurrent jobs of which none is lost.

Servers run in-process (uvicorn on a thread) with their temp directory under the test's
``tmp_path``, so a gated submission's FIFO can be found and released
(``test_service.release``); learner code runs only in sandboxed children."""

from __future__ import annotations

import contextlib
import json
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from builders import wait_until
from service_support import (
    Response,
    callback_server,
    find_gate,
    free_port,
    gated,
    http_request,
    json_body,
    new_gate,
    release,
    thread_server,
)

from syncgrade.models import GradeReport
from syncgrade.service import ServiceConfig, create_app
from syncgrade.service.jobs import callback_problem, post_callback
from syncgrade.timing import FakeClock, use_clock

SYNTAX_ERROR = "def broken(:\n"


@pytest.fixture
def tmp_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temp directory of this process's grading children (for finding gates): cold
    children (the suite's process-wide pool keeps its own in the system's)."""
    base = tmp_path / "children"
    base.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    monkeypatch.setenv("SYNCGRADE_WARM_POOL", "0")
    return base


def _submit(port: int, payload: dict[str, Any],
            headers: dict[str, str] | None = None) -> Response:
    return http_request(port, "POST", "/v1/jobs", json.dumps(payload).encode(),
                    {"Content-Type": "application/json", **(headers or {})})


def _job(port: int, job_id: str) -> dict[str, Any]:
    response = http_request(port, "GET", f"/v1/jobs/{job_id}")
    assert response[0] == 200, response
    return json_body(response)


def _wait_job(port: int, job_id: str, status: str, timeout: float = 120) -> dict[str, Any]:
    return wait_until(
        lambda: (job := _job(port, job_id))["status"] == status and job,
        timeout, interval=0.05, what=f"job {job_id} to be {status}")


def test_a_job_is_queued_runs_is_done_and_is_called_back(tmp_children: Path) -> None:
    """A (the solution behind a gate) runs on the one worker, B (a syntax error) waits
    in the one queue place, C is refused 429. Released, A ends done and passed, B done
    with its syntax error; each callback carries the job as GET shows it, and the
    request id A was submitted with."""
    config = ServiceConfig(workers=1, queue=1, self_test=False)
    gate = new_gate()
    with callback_server() as hooks, thread_server(config) as port:
        status, headers, body = _submit(port, {
            "exercise": "exercise-1", "source": gated(gate), "display_name": "a.py",
            "callback_url": hooks.url}, {"X-Request-ID": "job-a-1"})
        assert status == 202, body
        accepted = json.loads(body)
        a = accepted["id"]
        assert accepted == {"id": a, "status": "queued", "url": f"/v1/jobs/{a}"}
        assert headers["location"] == f"/v1/jobs/{a}"
        assert headers["x-request-id"] == "job-a-1"
        find_gate(tmp_children, gate)
        assert _wait_job(port, a, "running")["report"] is None

        status, _, body = _submit(port, {"exercise": "exercise-1", "source": SYNTAX_ERROR,
                                         "callback_url": hooks.url})
        assert status == 202, body
        b = json.loads(body)["id"]
        assert _job(port, b)["status"] == "queued"  # the one worker is A's
        status, headers, body = _submit(port, {"exercise": "exercise-1", "source": ""})
        assert status == 429 and int(headers["retry-after"]) >= 1
        assert "busy" in json.loads(body)["error"]

        release(tmp_children, gate)
        done_a = _wait_job(port, a, "done")
        done_b = _wait_job(port, b, "done")
        wait_until(lambda: len(hooks.bodies()) == 2, 60, what="both callbacks")
    report_a = GradeReport.model_validate(done_a["report"])
    assert (report_a.status, report_a.submission) == ("passed", "a.py"), [
        (c.id, c.status, c.message) for c in report_a.checks if c.status != "passed"]
    assert done_a["error"] is None and done_a["finished_at"] >= done_a["submitted_at"]
    assert GradeReport.model_validate(done_b["report"]).cause == "syntax_error"
    found = hooks.for_job(a)
    assert found is not None
    hook_body, hook_headers = found
    assert hook_body == done_a  # the callback is the job as GET shows it
    assert hook_headers["x-request-id"] == "job-a-1"
    assert hook_headers["x-syncgrade-job"] == a
    assert hooks.for_job(b) is not None


def test_unknown_jobs_are_404_and_bad_jobs_422() -> None:
    with thread_server() as port:
        response = http_request(port, "GET", "/v1/jobs/0123abcd")
        assert response[0] == 404 and json_body(response) == {"error": "no such job: 0123abcd"}
        for url, words in [("http://example.com/hook", ["'example.com' is not allowed",
                                                        "--callback-host"]),
                           ("ftp://127.0.0.1/hook", ["http:// or https://"]),
                           ("http://user:pw@127.0.0.1/", ["credentials"]),
                           ("http://127.0.0.1:99999/", ["not a valid URL"])]:
            status, _, body = _submit(port, {"exercise": "exercise-1", "source": "",
                                             "callback_url": url})
            assert status == 422, (url, body)
            error = json.loads(body)["error"]
            assert all(word in error for word in words), error
        status, _, body = _submit(port, {"exercise": "exercise-9x", "source": ""})
        assert status == 422 and "unknown exercise" in json.loads(body)["error"]
        status, _, body = _submit(port, {"exercise": "exercise-1", "source": "",
                                         "timeout": 61})
        assert status == 422 and "field 'timeout'" in json.loads(body)["error"]


def test_callback_hosts_the_operator_allows() -> None:
    assert callback_problem("http://[::1]:8080/x", ()) == ""
    assert callback_problem("https://localhost/x", ()) == ""
    assert "not allowed" in callback_problem("http://10.0.0.5/x", ())
    assert callback_problem("http://lms.example.edu/x", ("LMS.example.edu",)) == ""
    assert "not allowed" in callback_problem("http://other.example.edu/x",
                                             ("lms.example.edu",))
    assert callback_problem("http://anywhere.example/x", ("*",)) == ""


def test_a_callback_that_cannot_be_delivered_says_why() -> None:
    """Every try is made, with the documented back-off (1 s, then twice that), on a fake
    clock: no real pause."""
    from syncgrade.service.jobs import CALLBACK_TRIES, JobBody

    body = JobBody(id="x", status="failed", exercise="exercise-1", submitted_at=0.0,
                   error="e")
    with use_clock(FakeClock()) as clock:
        problem = post_callback(f"http://127.0.0.1:{free_port()}/", body, "r", 5.0)
    assert "Connection refused" in problem or "ConnectionRefused" in problem, problem
    assert clock.slept == [2.0 ** i for i in range(CALLBACK_TRIES - 1)]


def test_jobs_queued_at_shutdown_end_failed_and_are_called_back(tmp_children: Path) -> None:
    """Nothing is lost when the service stops: the job running finishes (done), the two
    waiting are cancelled and end failed, and all three are called back."""
    import uvicorn

    # a drain time that outlasts A's grade on a loaded machine: this test is about waiting
    config = ServiceConfig(workers=1, queue=2, self_test=False, drain_timeout=600)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(config), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    gate = new_gate()
    with callback_server() as hooks:
        thread.start()
        wait_until(lambda: _try_status(port) == 200, 60, what="the server")
        ids = []
        for source in (gated(gate), SYNTAX_ERROR, SYNTAX_ERROR):
            status, _, body = _submit(port, {"exercise": "exercise-1", "source": source,
                                             "callback_url": hooks.url})
            assert status == 202, body
            ids.append(json.loads(body)["id"])
        find_gate(tmp_children, gate)
        server.should_exit = True  # shutdown: cancels B and C, waits for A
        wait_until(lambda: hooks.for_job(ids[1]) and hooks.for_job(ids[2]), 60,
                   what="the cancelled jobs' callbacks")
        assert thread.is_alive()  # still waiting for A
        release(tmp_children, gate)
        thread.join(120)
        assert not thread.is_alive()
        wait_until(lambda: hooks.for_job(ids[0]), 60, what="A's callback")
    first, second, third = (hooks.for_job(i) for i in ids)
    assert first and second and third
    assert first[0]["status"] == "done" and first[0]["report"]["status"] == "passed"
    for cancelled in (second[0], third[0]):
        assert cancelled["status"] == "failed" and cancelled["report"] is None
        assert cancelled["error"] == "the service stopped before the grade started"


def _try_status(port: int) -> int:
    with contextlib.suppress(OSError):
        return http_request(port, "GET", "/healthz")[0]
    return 0


def test_fifty_concurrent_jobs_all_end_done_with_the_right_verdict() -> None:
    """50 jobs submitted from 10 threads at once into 2 workers and a queue of 48: every
    one is admitted, ends done with its own report (its display name) and the verdict of
    its source (every fifth a syntax error graded in a real child, the rest empty files,
    unreadable), and is called back exactly once."""
    config = ServiceConfig(workers=2, queue=48, self_test=False)
    cases = [(f"s{i}.py", SYNTAX_ERROR if i % 5 == 0 else "") for i in range(50)]
    with callback_server() as hooks, thread_server(config) as port:
        def submit(case: tuple[str, str]) -> str:
            status, _, body = _submit(port, {"exercise": "exercise-1", "source": case[1],
                                             "display_name": case[0],
                                             "callback_url": hooks.url})
            assert status == 202, body
            return str(json.loads(body)["id"])

        with ThreadPoolExecutor(10) as submitters:
            ids = list(submitters.map(submit, cases))
        assert len(set(ids)) == 50
        finished = {job_id: _wait_job(port, job_id, "done") for job_id in ids}
        wait_until(lambda: len(hooks.bodies()) >= 50, 60, what="50 callbacks")
        metrics = http_request(port, "GET", "/metrics")[2].decode()
    for job_id, (name, source) in zip(ids, cases, strict=True):
        report = GradeReport.model_validate(finished[job_id]["report"])
        assert report.submission == name
        assert report.cause == ("syntax_error" if source else "unreadable"), (name, report)
        assert report.status == "failed"
    assert sorted(b["id"] for b in hooks.bodies()) == sorted(ids)  # each exactly once
    assert 'syncgrade_jobs_total{status="done"} 50.0' in metrics
    assert 'syncgrade_grades_total{cause="unreadable",status="failed"} 40.0' in metrics
    assert 'syncgrade_grades_total{cause="syntax_error",status="failed"} 10.0' in metrics


def test_the_runner_is_a_seam() -> None:
    """A runner other than the local one (a cluster's) plugs in through create_app: the
    service hands it every grade, and a full runner is a 429 with its Retry-After."""
    from concurrent.futures import Future

    from syncgrade.service import GradeTask, JobRunner, RunnerFull

    class Refusing(JobRunner):
        capacity = 0

        def __init__(self) -> None:
            self.seen: list[GradeTask] = []

        def submit(self, task: GradeTask, on_start: Any = None) -> Future[GradeReport]:
            self.seen.append(task)
            raise RunnerFull("the cluster is full", 42)

        def running(self) -> int:
            return 0

        def queued(self) -> int:
            return 0

        def retry_after_s(self) -> int:
            return 42

        def close(self) -> None:
            pass

    runner = Refusing()
    app = create_app(ServiceConfig(self_test=False), runner=runner)
    with thread_server(app=app) as port:
        status, headers, body = _submit(port, {"exercise": "exercise-1", "source": "",
                                               "timeout": 7})
    assert status == 429 and headers["retry-after"] == "42"
    assert json.loads(body) == {"error": "the cluster is full"}
    [task] = runner.seen
    assert (task.exercise, task.timeout, task.display_name) == ("exercise-1", 7.0,
                                                                "submission.py")

    runner.seen.clear()  # a display_name is one clean line of at most 120 characters
    with thread_server(app=app) as port:
        _submit(port, {"exercise": "exercise-1", "source": "",
                       "display_name": "a\x1b[31m\nb\tc" + "x" * 200 + ".py"})
    [task] = runner.seen
    assert len(task.display_name) == 120 and task.display_name.endswith("x.py")
    assert task.display_name.startswith("a") and "\x1b" not in task.display_name
    assert not any(c in task.display_name for c in "\n\t")
