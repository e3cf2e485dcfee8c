"""Running the service: ``/readyz`` (warm pool filled and self-test passed),
``/metrics`` (Prometheus, per app), bearer-token authentication, JSON logs with request
ids, and per-request ``timeout``/``memory`` within the service's caps, over real HTTP on
loopback.

One `grade serve` subprocess (a token, caps raised to 120 s and 6 GiB, its stderr in a
file) serves the auth, metrics, logs and caps tests; readiness is driven in-process, where
the self-test can be held until the test lets it go."""

from __future__ import annotations

import argparse
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import wait_until
from prometheus_client.parser import text_string_to_metric_families
from service_support import (
    COURSE,
    Response,
    Served,
    grade_serve,
    http_request,
    json_body,
    thread_server,
)

from syncgrade import cli
from syncgrade.cli.common import UsageError
from syncgrade.cli.serve import NO_AUTH_ENV, TOKEN_ENV, auth_token, serve_parser
from syncgrade.courses import forget, open_course
from syncgrade.limits import GIB
from syncgrade.models import GradeReport
from syncgrade.service import ServiceConfig, choose_self_test
from syncgrade.service.app import Service

TOKEN = "s3cret-token-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SYNTAX_ERROR = "def broken(:\n"


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`grade serve` with a token from a file, one worker, a queue of two, and caps of
    120 s and 6 GiB over the default 60 s and 4 GiB; ready."""
    tmp = tmp_path_factory.mktemp("ops")
    token_file = tmp / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    with grade_serve(tmp, "--workers", "1", "--queue", "2", "--max-timeout", "120",
                     "--max-memory", "6", "--token-file", str(token_file)) as server:
        yield server


def _grade(port: int, payload: dict[str, Any], headers: dict[str, str] | None = None,
           ) -> Response:
    return http_request(port, "POST", "/v1/grade", json.dumps(payload).encode(),
                    {"Content-Type": "application/json", **AUTH, **(headers or {})})


def _metrics(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics`` by (name, sorted labels)."""
    status, headers, body = http_request(port, "GET", "/metrics", headers=AUTH)
    assert status == 200 and headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body.decode())
            for s in family.samples}


# --- authentication ------------------------------------------------------------------

def test_a_token_is_required_except_on_the_probes(ops: Served) -> None:
    port = ops.port
    for path in ("/v1/exercises", "/metrics", "/v1/jobs/abc", "/openapi.json"):
        status, headers, body = http_request(port, "GET", path)
        assert status == 401, path
        assert headers["www-authenticate"] == 'Bearer realm="syncgrade"'
        assert json.loads(body) == {"error": "this service needs Authorization: Bearer "
                                             "<token>"}
    status, headers, body = http_request(port, "GET", "/v1/exercises",
                                     headers={"Authorization": "Bearer wrong"})
    assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]
    assert "not valid" in json.loads(body)["error"]
    status, headers, _ = http_request(port, "GET", "/v1/exercises",
                                  headers={"Authorization": f"Basic {TOKEN}"})
    assert status == 401 and 'error="invalid_request"' in headers["www-authenticate"]
    # A grade without the token is refused before anything is read or graded.
    status, _, _ = http_request(port, "POST", "/v1/grade", b"{}",
                            {"Content-Type": "application/json"})
    assert status == 401
    assert http_request(port, "GET", "/v1/exercises", headers=AUTH)[0] == 200
    assert http_request(port, "GET", "/healthz")[0] == 200
    assert http_request(port, "GET", "/readyz")[0] == 200


def test_auth_is_off_on_loopback_by_default() -> None:
    with thread_server() as port:
        assert http_request(port, "GET", "/v1/exercises")[0] == 200
        assert http_request(port, "GET", "/metrics")[0] == 200


def _args(*argv: str) -> argparse.Namespace:
    return serve_parser().parse_args(list(argv))


def test_where_the_token_comes_from(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-file\nignored\n", encoding="utf-8")
    assert auth_token(_args(), {}) is None  # loopback: off
    assert auth_token(_args(), {TOKEN_ENV: "from-env"}) == "from-env"
    assert auth_token(_args("--token-file", str(token_file)),
                      {TOKEN_ENV: "from-env"}) == "from-file"
    assert auth_token(_args("--host", "0.0.0.0", "--no-auth"), {}) is None
    assert auth_token(_args("--host", "0.0.0.0"), {NO_AUTH_ENV: "1"}) is None
    assert auth_token(_args("--host", "0.0.0.0"), {TOKEN_ENV: "t"}) == "t"
    assert auth_token(_args("--host", "::1"), {}) is None  # loopback too
    with pytest.raises(UsageError, match=r"refusing to serve on 0\.0\.0\.0 without"):
        auth_token(_args("--host", "0.0.0.0"), {})
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no token"):
        auth_token(_args("--token-file", str(tmp_path / "empty")), {})


def test_serve_refuses_a_public_host_without_a_token(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.delenv(NO_AUTH_ENV, raising=False)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "8000"]) == cli.EXIT_USAGE
    assert "without authentication" in capsys.readouterr().err


# --- per-request limits ---------------------------------------------------------------

@pytest.mark.parametrize(("limits", "words"), [
    ({"timeout": 121}, ["field 'timeout'", "at most 120 (this service's cap)", "not 121"]),
    ({"timeout": 0}, ["field 'timeout'", "above 0", "not 0"]),
    ({"timeout": float("nan")}, ["field 'timeout'", "not nan"]),
    ({"timeout": True}, ["field 'timeout'", "number"]),
    ({"memory": 6.5}, ["field 'memory'", "at most 6 (this service's cap)", "not 6.5"]),
    ({"memory": -1}, ["field 'memory'", "above 0"]),
    ({"memory": "2"}, ["field 'memory'", "number"]),
    ({"memory_bytes": 1}, ["unknown field 'memory_bytes'"]),
])
def test_limits_over_the_cap_or_invalid_are_422(ops: Served, limits: dict[str, Any],
                                               words: list[str]) -> None:
    response = _grade(ops.port, {"exercise": "exercise-1", "source": SYNTAX_ERROR, **limits})
    assert response[0] == 422, response
    error = json_body(response)
    assert list(error) == ["error"]
    assert all(word in error["error"] for word in words), error


def test_limits_within_the_cap_are_used(ops: Served) -> None:
    status, _, body = _grade(ops.port, {"exercise": "exercise-1", "source": SYNTAX_ERROR,
                                        "timeout": 120, "memory": 6})
    assert status == 200, body
    report = GradeReport.model_validate_json(body)
    assert report.cause == "syntax_error" and report.grading.timeout_s == 120
    memory = next(p for p in report.grading.protections if p.name == "address-space-limit")
    assert f"{6 * GIB} bytes" in memory.detail
    status, _, body = _grade(ops.port, {"exercise": "exercise-1", "source": SYNTAX_ERROR})
    assert GradeReport.model_validate_json(body).grading.timeout_s == 60  # the default
    health = json_body(http_request(ops.port, "GET", "/healthz"))
    assert (health["max_timeout"], health["max_memory_gib"]) == (120, 6)


# --- metrics ------------------------------------------------------------------------------

def test_metrics_count_grades_by_status_and_cause(ops: Served) -> None:
    before = _metrics(ops.port)
    for source in (SYNTAX_ERROR, SYNTAX_ERROR, ""):
        assert _grade(ops.port, {"exercise": "exercise-1", "source": source})[0] == 200
    after = _metrics(ops.port)

    def grown(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert grown("syncgrade_grades_total", status="failed", cause="syntax_error") == 2
    assert grown("syncgrade_grades_total", status="failed", cause="unreadable") == 1
    assert grown("syncgrade_grade_seconds_count") == 3
    assert grown("syncgrade_grade_seconds_bucket", le="+Inf") == 3
    assert grown("syncgrade_grade_seconds_sum") > 0
    assert after[("syncgrade_running", ())] == 0
    assert after[("syncgrade_queue_depth", ())] == 0
    assert after[("syncgrade_ready", ())] == 1
    # The self-test and both syntax errors ran in warm children of the service's pool
    # (the unreadable file never starts a child).
    assert after[("syncgrade_pool_hits_total", ())] >= 3
    assert grown("syncgrade_pool_hits_total") == 2
    assert after[("syncgrade_grade_faults_total", ())] == 0


def test_metrics_count_http_answers_by_route_and_status_code(ops: Served) -> None:
    port = ops.port
    before = _metrics(port)
    assert http_request(port, "GET", "/v1/exercises")[0] == 401  # no token
    assert http_request(port, "GET", "/v1/jobs/nope", headers=AUTH)[0] == 404
    assert http_request(port, "GET", "/no/such/path/42", headers=AUTH)[0] == 404
    assert http_request(port, "POST", "/v1/grade", b"{", {
        "Content-Type": "application/json", **AUTH})[0] == 400
    assert http_request(port, "GET", "/healthz")[0] == 200
    after = _metrics(port)

    def grown(route: str, code: str, method: str = "GET") -> float:
        key = ("syncgrade_http_requests_total",
               tuple(sorted({"method": method, "route": route, "code": code}.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert grown("/v1/exercises", "401") == 1
    assert grown("/v1/jobs/{job_id}", "404") == 1
    assert grown("other", "404") == 1  # a client's made-up path is no label of its own
    assert grown("/v1/grade", "400", "POST") == 1
    assert grown("/healthz", "200") == 1
    assert not any("/no/such" in str(labels) for _, labels in after)
    seconds = ("syncgrade_http_request_seconds_count",
               (("method", "GET"), ("route", "/healthz")))
    assert after[seconds] - before.get(seconds, 0.0) == 1


def test_each_app_has_its_own_registry() -> None:
    config = ServiceConfig(self_test=False)
    one, two = Service(config, open_course(None), None), Service(config, open_course(None),
                                                                 None)
    one.metrics.rejected.labels(reason="busy").inc()
    assert b'syncgrade_rejected_total{reason="busy"} 1.0' in one.metrics.render()
    assert b'syncgrade_rejected_total{reason="busy"} 0.0' in two.metrics.render()


# --- logs and request ids ---------------------------------------------------------------

def _log_lines(served: Served) -> list[dict[str, Any]]:
    lines = served.log.read_text(encoding="utf-8").splitlines()
    assert lines
    return [json.loads(line) for line in lines]  # every line is one JSON object


def test_logs_are_json_lines_with_the_request_id(ops: Served) -> None:
    status, headers, _ = _grade(ops.port, {"exercise": "exercise-1", "source": SYNTAX_ERROR},
                                {"X-Request-ID": "lms-42.attempt:1"})
    assert status == 200 and headers["x-request-id"] == "lms-42.attempt:1"
    fresh = http_request(ops.port, "GET", "/healthz")[1]["x-request-id"]
    assert len(fresh) == 32 and int(fresh, 16) >= 0
    replaced = http_request(ops.port, "GET", "/healthz",
                        headers={"X-Request-ID": "no spaces allowed"})[1]["x-request-id"]
    assert replaced != "no spaces allowed" and len(replaced) == 32

    def logged() -> list[dict[str, Any]]:
        return [e for e in _log_lines(ops) if e.get("request_id") == "lms-42.attempt:1"]

    entries = wait_until(lambda: len(logged()) >= 2 and logged(), 30, what="the log lines")
    by_event = {e["event"]: e for e in entries}
    assert by_event["request"]["path"] == "/v1/grade"
    assert by_event["request"]["status"] == 200 and by_event["request"]["ms"] > 0
    assert by_event["grade"]["cause"] == "syntax_error"
    assert by_event["grade"]["exercise"] == "exercise-1"
    for entry in entries:
        assert entry["level"] == "info" and entry["logger"] == "syncgrade.service"
        assert entry["ts"].endswith("Z")
    events = [e["event"] for e in _log_lines(ops)]
    assert "serving" in events  # the start-up banner is a JSON line too
    assert any(e["path"] == "/healthz" and e["request_id"] == fresh
               for e in _log_lines(ops) if e["event"] == "request")


# --- readiness --------------------------------------------------------------------------

def _ready(port: int) -> tuple[int, dict[str, Any]]:
    status, _, body = http_request(port, "GET", "/readyz")
    return status, json.loads(body)


def test_readyz_waits_for_the_warm_pool_and_the_self_test(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Held self-test: 503 while the pool fills and after (self-test pending); the
    self-test let go: 200, and it really graded the course's solution (passed)."""
    go = threading.Event()
    real = Service.grade_self_test

    def held(self: Service, test: Any) -> GradeReport:
        assert go.wait(120), "the test never let the self-test go"
        return real(self, test)

    monkeypatch.setattr(Service, "grade_self_test", held)
    config = ServiceConfig(workers=1, queue=0, warm_pool=1)
    with thread_server(config) as port:
        status, body = _ready(port)
        assert status == 503 and body["ready"] is False
        assert body["self_test"] == "pending"
        wait_until(lambda: _ready(port)[1]["warm_pool"] == "1 of 1 warm", 120,
                   what="the warm pool to fill")
        status, body = _ready(port)
        assert (status, body["self_test"]) == (503, "pending")  # filled, not tested
        assert http_request(port, "GET", "/healthz")[0] == 200  # liveness all along
        go.set()
        wait_until(lambda: _ready(port)[0] == 200, 120, what="/readyz 200")
        status, body = _ready(port)
        assert body["ready"] is True and body["warm_pool"] == "1 of 1 warm"
        assert body["self_test"].startswith("passed: exercise-1 solution.py graded passed")
        assert b"syncgrade_ready 1.0" in http_request(port, "GET", "/metrics")[2]


def test_a_self_test_with_the_wrong_verdict_keeps_readyz_503(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade.service import SelfTest, app

    stub = (COURSE / "exercise-1" / "stub.py").read_text(encoding="utf-8")
    monkeypatch.setattr(app, "choose_self_test",
                        lambda course: SelfTest("exercise-1", stub, "stub.py", "passed"))
    with thread_server(ServiceConfig(workers=1, queue=0)) as port:
        wait_until(lambda: _ready(port)[1]["self_test"] != "pending", 120,
                   what="the self-test's result")
        status, body = _ready(port)
    assert status == 503 and body["ready"] is False
    assert body["self_test"].startswith(
        "failed: exercise-1 stub.py should be passed, got failed/graded")


def test_without_solutions_the_self_test_grades_the_stub(tmp_path: Path) -> None:
    """An installed wheel ships no solutions: the self-test is then the first exercise's
    stub, which must be graded (cause graded); it is, for real."""
    shutil.copy(COURSE / "course.toml", tmp_path / "course.toml")
    folder = tmp_path / "exercise-1"
    folder.mkdir()
    for name in ("exercise.py", "README.md", "stub.py"):  # what the wheel ships
        shutil.copy(COURSE / "exercise-1" / name, folder / name)
    assert choose_self_test(open_course(None)).name == "solution.py"  # a checkout
    course = open_course(str(tmp_path))
    try:
        test = choose_self_test(course)
        assert (test.exercise, test.name, test.expect) == ("exercise-1", "stub.py",
                                                           "graded")
        service = Service(ServiceConfig(self_test=True, course=str(tmp_path)), course, None)
        report = service.grade_self_test(test)
    finally:
        forget(course.root)  # later pools need not hide this course
    assert test.problem(report) == "", report.summary
    assert report.status == "failed"  # the stub is the exercise, not its answer
