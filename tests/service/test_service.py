"""The HTTP service over real HTTP on loopback: `grade serve` started by the test in a
subprocess, spoken to with http.client, once /readyz says it is ready (its self-test
graded). Two real grades in all (a passing and a flawed exercise-1 source, which also
exercise the concurrency limit); every bad request is
refused before any grading. Grader faults use an in-process uvicorn thread, so the fault
can be injected; learner code still runs only in sandboxed children. The helpers
(requests, servers, the gate that keeps a grade running) are tests/service_support.py."""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from builders import wait_until
from service_support import (
    GOOD,
    MAX_BODY,
    NO_WAIT,
    SOLUTION,
    Response,
    Served,
    assert_error,
    find_gate,
    gated,
    grade_serve,
    http_request,
    json_body,
    new_gate,
    post_json,
    release,
    thread_server,
)

from syncgrade import cli
from syncgrade.models import SCHEMA_VERSION, GradeReport
from syncgrade.schema import catalogue, report_schema


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`grade serve`: one worker, a queue of one, a 64 KiB body limit, ready."""
    with grade_serve(tmp_path_factory.mktemp("serve"), "--workers", "1", "--queue", "1",
                     "--max-body", str(MAX_BODY)) as server:
        yield server


@pytest.fixture(scope="module")
def port(served: Served) -> int:
    return served.port


def _load(port: int) -> dict[str, Any]:
    return json_body(http_request(port, "GET", "/healthz"))


def _wait_for_load(port: int, running: int, queued: int) -> None:
    def seen() -> bool:
        load = _load(port)
        return (load["running"], load["queued"]) == (running, queued)

    wait_until(seen, 60, what=f"running={running}, queued={queued}")


def test_grades_over_http_and_a_full_queue_answers_429(served: Served) -> None:
    """A (the solution behind a gate, so it surely runs until the test releases it)
    takes the one worker, B (a flawed timer) the one queue place, C gets 429 at once. A
    and B are then graded for real: passed and failed, under the names the caller
    chose."""
    port = served.port
    results: dict[str, Response] = {}

    def post(key: str, payload: dict[str, Any]) -> None:
        results[key] = post_json(port, payload)

    gate = new_gate()
    a = threading.Thread(target=post, args=("a", {
        "exercise": "exercise-1", "source": gated(gate), "display_name": "attempt.py"}))
    a.start()
    find_gate(served.tmp, gate)  # A's code is running
    _wait_for_load(port, running=1, queued=0)
    b = threading.Thread(target=post, args=("b", {"exercise": "exercise-1", "source": NO_WAIT}))
    b.start()
    _wait_for_load(port, running=1, queued=1)

    started = time.monotonic()
    status, headers, body = post_json(port, {"exercise": "exercise-1", "source": SOLUTION})
    assert status == 429
    assert time.monotonic() - started < 5, "a full queue answers at once"
    assert int(headers["retry-after"]) >= 1
    assert "busy" in json.loads(body)["error"]

    release(served.tmp, gate)
    a.join(180)
    b.join(180)
    status_a, _, body_a = results["a"]
    status_b, _, body_b = results["b"]
    assert (status_a, status_b) == (200, 200)
    passed = GradeReport.model_validate_json(body_a)
    flawed = GradeReport.model_validate_json(body_b)
    assert (passed.status, passed.cause, passed.score) == ("passed", "graded", passed.max_score)
    assert passed.submission == "attempt.py"
    assert passed.schema_version == SCHEMA_VERSION
    assert flawed.status == "failed" and flawed.submission == "submission.py"
    assert {c.id for c in flawed.checks if c.status == "failed"} == {
        "sync-before-stop", "covers-device-work"}
    # The same sandbox as the CLI: the child's protections are recorded in the report.
    assert passed.grading.protections and any(p.applied for p in passed.grading.protections)
    assert _load(port)["running"] == 0 and _load(port)["queued"] == 0


@pytest.mark.parametrize(("content_type", "words"), [
    ("text/plain", ["application/json", "text/plain"]),
    ("application/x-www-form-urlencoded", ["application/json"]),
    ("application/json; charset=latin-1", ["UTF-8"]),
    (None, ["Content-Type"]),
])
def test_a_body_that_is_not_json_is_415(port: int, content_type: str | None,
                                        words: list[str]) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = http_request(port, "POST", "/v1/grade", json.dumps(GOOD).encode(), headers)
    assert_error(response, 415, *words)


def test_json_with_a_charset_and_a_json_suffix_is_accepted(port: int) -> None:
    """Accepted as far as validation: the unknown field proves the body was parsed."""
    for content_type in ("application/json; charset=utf-8", "application/problem+json"):
        response = http_request(port, "POST", "/v1/grade",
                            json.dumps({**GOOD, "extra": 1}).encode(),
                            {"Content-Type": content_type})
        assert_error(response, 422, "unknown field 'extra'")


def test_an_oversize_body_is_413(port: int) -> None:
    big = json.dumps({"exercise": "exercise-1", "source": "#" * (MAX_BODY + 10)}).encode()
    declared = http_request(port, "POST", "/v1/grade", big, {"Content-Type": "application/json"})
    assert_error(declared, 413, str(MAX_BODY))
    streamed = http_request(port, "POST", "/v1/grade", big, {"Content-Type": "application/json"},
                        chunked=True)
    assert_error(streamed, 413, str(MAX_BODY))
    # Just under the limit is read and parsed (and refused only for its unknown field).
    fits = json.dumps({**GOOD, "pad": "#" * (MAX_BODY - 100)}).encode()
    assert len(fits) <= MAX_BODY
    assert_error(http_request(port, "POST", "/v1/grade", fits,
                           {"Content-Type": "application/json"}), 422, "pad")


@pytest.mark.parametrize("chunked", [False, True])
def test_an_oversize_body_is_413_to_urllib_too(port: int, chunked: bool) -> None:
    """urllib sends the whole body before it reads an answer: the service reads what it
    refuses (up to DISCARD_LIMIT) rather than close on unread bytes, which resets the
    connection before urllib sees the 413 (issue 26)."""
    big = json.dumps({"exercise": "exercise-1", "source": "#" * (64 * MAX_BODY)}).encode()
    pieces = [big[i:i + 65536] for i in range(0, len(big), 65536)]
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/grade", data=iter(pieces) if chunked else big,
        headers={"Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=120)
    assert raised.value.code == 413
    assert str(MAX_BODY) in json.loads(raised.value.read())["error"]


@pytest.mark.parametrize(("body", "words"), [
    (b'{"exercise": "exercise-1", "source": "\xff\xfe"}', ["UTF-8", "byte 38"]),
    (b'{"exercise": "exercise-1", "source": ', ["not valid JSON", "line 1"]),
    (b"", ["not valid JSON"]),
    (b"exercise=exercise-1", ["not valid JSON"]),
])
def test_bytes_that_are_not_utf8_json_are_400(port: int, body: bytes,
                                              words: list[str]) -> None:
    response = http_request(port, "POST", "/v1/grade", body, {"Content-Type": "application/json"})
    assert_error(response, 400, *words)


@pytest.mark.parametrize(("payload", "words"), [
    ({"exercise": "exercise-99", "source": "x = 1\n"}, ["unknown exercise 'exercise-99'",
                                                        "exercise-1"]),
    ({"exercise": "exercise-1"}, ["missing field 'source'"]),
    ({"source": "x = 1\n"}, ["missing field 'exercise'"]),
    ({**GOOD, "timeout": -1}, ["field 'timeout'", "above 0", "at most 60", "cap"]),
    ({**GOOD, "timeout": "5"}, ["field 'timeout'", "number"]),
    ({**GOOD, "memory_bytes": 0}, ["unknown field 'memory_bytes'"]),  # it is "memory"
    ({"exercise": "exercise-1", "source": 5}, ["'source'", "string"]),
    ({**GOOD, "display_name": "n" * 300}, ["'display_name'"]),
    ([GOOD], ["JSON object"]),
    ("exercise-1", ["JSON object"]),
])
def test_a_body_that_is_not_a_grade_request_is_422(port: int, payload: Any,
                                                   words: list[str]) -> None:
    assert_error(post_json(port, payload), 422, *words)


def test_unknown_routes_and_methods_are_json_errors(port: int) -> None:
    assert_error(http_request(port, "GET", "/v1/nothing"), 404, "/v1/nothing")
    assert_error(http_request(port, "GET", "/v1/grade"), 405, "GET")


def test_healthz(port: int) -> None:
    response = http_request(port, "GET", "/healthz")
    assert response[0] == 200
    health = json_body(response)
    assert health["status"] == "ok"
    assert health["report_schema_version"] == SCHEMA_VERSION
    assert (health["workers"], health["queue"]) == (1, 1)
    assert health["warm_pool"] == 1  # `grade serve` keeps one child warm per worker
    assert (health["max_timeout"], health["max_memory_gib"]) == (60, 4)  # the defaults


def test_grades_run_in_the_services_warm_children(port: int) -> None:
    before = _load(port)["served_warm"]
    status, _, body = post_json(port, {"exercise": "exercise-1", "source": SOLUTION})
    assert status == 200, body
    health = _load(port)
    assert health["served_warm"] == before + 1
    if sys.platform.startswith("linux") and os.geteuid() == 0:  # the namespace jail
        assert health["zygote"] == "on"  # that child was forked from the zygote


def test_schema_and_exercises(port: int) -> None:
    schema = http_request(port, "GET", "/v1/schema")
    assert schema[0] == 200 and json_body(schema) == report_schema()
    exercises = http_request(port, "GET", "/v1/exercises")
    assert exercises[0] == 200
    assert json_body(exercises) == json.loads(catalogue().model_dump_json())


def test_openapi_is_generated_from_the_models(port: int) -> None:
    response = http_request(port, "GET", "/openapi.json")
    assert response[0] == 200
    spec = json_body(response)
    components = spec["components"]["schemas"]
    assert {"GradeReport", "GradeRequest", "CheckResult", "Catalogue", "ErrorBody"} <= set(
        components)
    grade = spec["paths"]["/v1/grade"]["post"]
    ok = grade["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/GradeReport"}
    assert {"400", "413", "415", "422", "429"} <= set(grade["responses"])
    assert set(components["GradeRequest"]["required"]) == {"exercise", "source"}


# --- in-process server, for injected faults ------------------------------------------


def test_a_grader_fault_is_a_200_report_with_status_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade import sandbox

    def no_sandbox(*args: Any, **kwargs: Any) -> Any:
        raise sandbox.SandboxError("cannot create the jail")

    # Cold children only: a warm pool's children were started before the patch.
    monkeypatch.setenv("SYNCGRADE_WARM_POOL", "0")
    monkeypatch.setattr(sandbox, "run_sandboxed", no_sandbox)
    with thread_server() as port:
        response = post_json(port, {"exercise": "exercise-1", "source": SOLUTION})
    assert response[0] == 200
    report = GradeReport.model_validate_json(response[2])
    assert (report.status, report.cause, report.score) == ("error", "grader_fault", 0.0)
    assert "cannot create the jail" in (report.grading.internal_error or "")


def test_a_service_fault_is_a_500_json_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade import grading

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the service broke")

    monkeypatch.setattr(grading, "grade", broken)
    with thread_server() as port:
        assert_error(post_json(port, GOOD), 500, "internal error", "the service broke")
        # The slot was released: with no queue, a second request is not refused as busy.
        assert_error(post_json(port, GOOD), 500, "the service broke")


def test_serve_without_the_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "fastapi", None)  # makes `import fastapi` fail
    assert cli.main(["serve", "--port", "8000"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "pip install 'syncgrade[serve]'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["--workers", "0"], ["--queue", "-1"], ["--port", "http"],
                                  ["--max-body", "0"]])
def test_serve_rejects_bad_options(args: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["serve", *args])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("limits", [
    {"timeout": 0}, {"timeout": math.nan}, {"timeout": math.inf}, {"timeout": 7200},
    {"memory_bytes": 0}, {"memory_bytes": -1}, {"memory_bytes": 1 << 41},
    {"heartbeat_s": 0}, {"stale_s": math.inf}, {"self_test_retry_s": -1},
])
def test_a_service_with_bad_limits_is_refused(limits: dict[str, float]) -> None:
    from syncgrade.service import ServiceConfig

    with pytest.raises(ValueError, match=r"must be a number of .* above 0 and at most"):
        ServiceConfig(**limits)  # type: ignore[arg-type]


def test_a_heartbeat_no_shorter_than_its_staleness_is_refused() -> None:
    """A replica whose heartbeat comes no more often than another's counts as dead would
    read as dead while alive, and its jobs be taken over."""
    from syncgrade.service import ServiceConfig

    with pytest.raises(ValueError, match=r"stale_s \(2 s\) must be longer than heartbeat_s"):
        ServiceConfig(heartbeat_s=2.0, stale_s=2.0)
    assert ServiceConfig(heartbeat_s=0.5, stale_s=5.0).stale_s == 5.0


def test_a_limit_the_engine_refuses_is_a_422(monkeypatch: pytest.MonkeyPatch) -> None:
    from syncgrade.service import ServiceConfig

    def no_child(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a child was started")

    monkeypatch.setattr("syncgrade.grading.pipeline.run_child", no_child)
    config = ServiceConfig(workers=1, queue=0, self_test=False)
    object.__setattr__(config, "timeout", math.nan)  # past the config's own check
    with thread_server(config) as port:
        assert_error(post_json(port, GOOD), 422, "timeout must be a number of seconds",
                      "not nan")
        # The slot was released: with no queue, a second request is not refused as busy.
        assert_error(post_json(port, GOOD), 422, "not nan")
