"""Hidden stays hidden over HTTP (issue 26): a course whose ``numpy-match`` is ``hidden`` and
whose ``sync-before-stop`` and ``covers-device-work`` are ``after_due_date``, served by
`grade serve` in a subprocess and spoken to over real HTTP on loopback. ``POST /v1/grade``,
``GET /v1/jobs/{id}`` and a job's callback give the learner's view (as ``grade --json``,
``grade batch`` and the platform formats do); only a request with the staff token sees
the checks' own messages and evidence.

One submission, graded three times (a synchronous grade, a learner's job, a staff job):
it returns the wrong array (the wrong length on axis 1, which the hidden
``numpy-match`` message names) and never waits for its output (the two
``after_due_date`` checks fail, with intervals as evidence)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from builders import wait_until
from service_support import (
    COURSE,
    Response,
    Served,
    callback_server,
    grade_serve,
    http_request,
    json_body,
)

from syncgrade.models import Evidence, GradeReport
from syncgrade.platforms.visibility import HIDDEN_FAILED, safe_hint

LEARNER = "learner-token-for-tests"
STAFF = "staff-token-for-tests"
SECRET = {"numpy-match": "hidden", "sync-before-stop": "after_due_date",
          "covers-device-work": "after_due_date"}
WITHHELD = """
import dataclasses as _dc

_SECRET = {secret!r}
_OWN = {{c.id for c in EXERCISE.checks}}  # declared here; the rest derive from Samples
EXERCISE = _dc.replace(EXERCISE, checks=tuple(
    _dc.replace(c, visibility=_SECRET.get(c.id, c.visibility)) for c in EXERCISE.checks),
    visibility={{k: v for k, v in _SECRET.items() if k not in _OWN}})
"""
# no_wait.py's loop, returning the first input (1024 x 768) where the output is expected
WRONG_AND_UNWAITED = """import time


def synchronized_samples(fn, args, repeats):
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        samples.append(time.perf_counter() - start)
    return args[0], samples
"""
FULL_MESSAGE = "differs from what the hidden inputs give"  # numpy-match's own words


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built-in exercise-1 in a course folder of its own, with :data:`SECRET`'s
    visibilities (a rubric override, as an instructor makes one)."""
    root = tmp_path_factory.mktemp("withheld") / "course"
    root.mkdir()
    shutil.copytree(COURSE / "exercise-1", root / "exercise-1",
                    ignore=shutil.ignore_patterns("corpus", "__pycache__", "submission.py"))
    # Self-contained: the solution in its exercise folder (the built-in course's is in
    # solutions/, which its course.toml names).
    shutil.copy(COURSE.parent / "solutions" / "exercise-1" / "solution.py",
                root / "exercise-1" / "solution.py")
    (root / "course.toml").write_text('title = "Benchmarking asynchronous JAX work"\n')
    with (root / "exercise-1" / "exercise.py").open("a", encoding="utf-8") as declaration:
        declaration.write(WITHHELD.format(secret=SECRET))
    return root


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, course: Path) -> Iterator[Served]:
    """`grade serve` of that course: a learner token and a staff token, from files."""
    tmp = tmp_path_factory.mktemp("visibility")
    (tmp / "token").write_text(LEARNER + "\n", encoding="utf-8")
    (tmp / "staff").write_text(STAFF + "\n", encoding="utf-8")
    with grade_serve(tmp, "--course", str(course), "--workers", "2", "--queue", "4",
                     "--token-file", str(tmp / "token"),
                     "--staff-token-file", str(tmp / "staff")) as server:
        yield server


def _post(port: int, path: str, token: str, **extra: Any) -> Response:
    body = {"exercise": "exercise-1", "source": WRONG_AND_UNWAITED, "timeout": 60, **extra}
    return http_request(port, "POST", path, json.dumps(body).encode(),
                        {"Content-Type": "application/json",
                         "Authorization": f"Bearer {token}"})


def _job_report(port: int, job_id: str, token: str) -> tuple[GradeReport, dict[str, str]]:
    def finished() -> Response | None:
        response = http_request(port, "GET", f"/v1/jobs/{job_id}",
                                headers={"Authorization": f"Bearer {token}"})
        return response if json_body(response)["status"] in ("done", "failed") else None

    response = wait_until(finished, 300, interval=0.2, what=f"job {job_id}")
    body = json_body(response)
    assert body["status"] == "done", body
    return GradeReport.model_validate(body["report"]), response[1]


def _assert_learner_view(report: GradeReport, raw: bytes) -> None:
    """Every withheld check failed, as a verdict with a safe hint and nothing else."""
    assert FULL_MESSAGE not in raw.decode("utf-8")
    for check_id in SECRET:
        check = report.check(check_id)
        assert (check.status, check.visibility) == ("failed", SECRET[check_id])
        assert check.message == HIDDEN_FAILED and check.hint == safe_hint(check_id)
        assert check.evidence == Evidence()  # no facts, timeline, interval or samples


def _assert_staff_view(report: GradeReport) -> None:
    assert FULL_MESSAGE in report.check("numpy-match").message
    for check_id in ("sync-before-stop", "covers-device-work"):
        check = report.check(check_id)
        assert check.status == "failed" and check.message != HIDDEN_FAILED
        assert check.evidence != Evidence()  # what the check saw (facts, intervals)


def test_grades_and_jobs_give_learners_only_the_learner_view(served: Served) -> None:
    port = served.port
    response = _post(port, "/v1/grade", LEARNER)
    assert response[0] == 200, response
    report = GradeReport.model_validate(json_body(response))
    _assert_learner_view(report, response[2])
    assert response[1]["x-syncgrade-view"] == "learner"
    assert report.status == "failed" and report.score < report.max_score

    accepted = _post(port, "/v1/jobs", LEARNER)
    assert accepted[0] == 202, accepted
    job_id = json_body(accepted)["id"]
    learner, headers = _job_report(port, job_id, LEARNER)
    _assert_learner_view(learner, learner.model_dump_json().encode())
    assert headers["x-syncgrade-view"] == "learner"
    # the same job, asked for by staff: the full report the service keeps
    staff, headers = _job_report(port, job_id, STAFF)
    _assert_staff_view(staff)
    assert headers["x-syncgrade-view"] == "staff"
    assert (staff.status, staff.score) == (learner.status, learner.score)


def test_the_staff_token_sees_everything_and_callbacks_keep_the_submitters_view(
        served: Served) -> None:
    port = served.port
    response = _post(port, "/v1/grade", STAFF)
    assert response[0] == 200, response
    _assert_staff_view(GradeReport.model_validate(json_body(response)))
    assert response[1]["x-syncgrade-view"] == "staff"
    with callback_server() as hooks:
        ids = {}
        for who, token in (("learner", LEARNER), ("staff", STAFF)):
            accepted = _post(port, "/v1/jobs", token, callback_url=hooks.url)
            assert accepted[0] == 202, accepted
            ids[who] = json_body(accepted)["id"]
        learner = wait_until(lambda: hooks.for_job(ids["learner"]), 300, interval=0.2,
                             what="the learner job's callback")[0]
        staff = wait_until(lambda: hooks.for_job(ids["staff"]), 300, interval=0.2,
                           what="the staff job's callback")[0]
    assert learner["status"] == staff["status"] == "done"
    _assert_learner_view(GradeReport.model_validate(learner["report"]),
                         json.dumps(learner).encode())
    _assert_staff_view(GradeReport.model_validate(staff["report"]))


def test_without_a_staff_token_no_request_sees_the_full_view(course: Path,
                                                            tmp_path: Path) -> None:
    """A bearer token that is not the staff's (here the only token there is) gets the
    learner's view; a staff token equal to the learners' is refused at start."""
    from syncgrade.service import ServiceConfig

    with pytest.raises(ValueError, match="staff_token must differ"):
        ServiceConfig(auth_token=LEARNER, staff_token=LEARNER)
    with grade_serve(tmp_path, "--course", str(course), "--workers", "1",
                     "--warm-pool", "0", ready=False) as server:
        response = _post(server.port, "/v1/grade", STAFF)
    assert response[0] == 200, response
    _assert_learner_view(GradeReport.model_validate(json_body(response)), response[2])
