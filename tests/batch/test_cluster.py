"""Batch grading on a Dask cluster (``grade batch --cluster``) and resuming a batch.

One :class:`distributed.LocalCluster` (two worker processes, one thread each, loopback,
no dashboard) serves the module: each worker grades in its own sandboxed children from
its own warm pool, exactly as the local batch does. The corpus files graded here are
those whose verdict rests on no measured race (``corpus_support.races``), so a verdict
cannot move with the load; their expected verdicts are the local pool's
(tests/courses/test_corpus.py), and a few are graded locally here too and compared.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed  # the `cluster` extra; the `test` extra installs it
import pytest
from builders import wait_until
from corpus_support import CorpusCase, corpus_cases, failed_ids, races

from syncgrade import batch, cluster, grading
from syncgrade.models import GradeReport

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = "exercise-1"
TIMEOUT = 30.0
BATCH = 30  # submissions in the per-commit cluster batch (the nightly one grades 500)



@pytest.fixture(scope="module")
def client() -> Iterator[distributed.Client]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=50) as local, \
            distributed.Client(local, set_as_default=False) as made:
        yield made


def _cases(exercise: str = EXERCISE) -> list[CorpusCase]:
    """The exercise's corpus files whose verdict no measured race can move."""
    return [c for c in corpus_cases() if c.exercise == exercise and not races(c)]


def _files(folder: Path, count: int, exercise: str = EXERCISE) -> dict[Path, CorpusCase]:
    """``count`` submissions of ``exercise`` in ``folder``: its corpus files, repeated
    under distinct names as needed, each with the case whose verdict it must get."""
    folder.mkdir()
    cases = _cases(exercise)
    files = {}
    for i in range(count):
        case = cases[i % len(cases)]
        path = folder / f"{i:03d}_{case.path.stem}.py"
        path.write_bytes(case.path.read_bytes())
        files[path] = case
    return files


def _reports(out: Path) -> list[GradeReport]:
    return [GradeReport.model_validate_json(line) for line in out.read_text().splitlines()]


def _assert_verdicts(reports: list[GradeReport], files: dict[Path, CorpusCase]) -> None:
    """Exactly one report per file, each with its corpus verdict."""
    names = [r.submission for r in reports]
    assert sorted(names) == sorted(str(p) for p in files)  # each once, none missing
    for report in reports:
        case = files[Path(report.submission)]
        details = "\n".join(f"{c.status} {c.id}: {c.message} {c.evidence.facts}"
                            for c in report.checks if c.status != "passed")
        assert failed_ids(report) == case.expected_failures, f"{report.submission}\n{details}"
        assert report.status == ("passed" if not case.expected_failures else "failed")


def test_a_cluster_batch_gets_the_local_pools_verdicts(client: distributed.Client,
                                                      tmp_path: Path) -> None:
    """A batch of 30 submissions (exercise-2's 12 corpus files, repeated under other
    names): each file's verdict is the one the local pool gives it (its header, held by
    tests/courses/test_corpus.py), and a few are graded locally here too and compared field
    by field. exercise-2's corpus: its grades are the cheapest of the course (no timed
    workload); exercise-1's timing checks run on the workers in every other test here.
    Volume is the nightly test's (500 submissions, a worker killed): 100 here cost ~70
    worker-seconds of the per-commit run for nothing 30 does not show."""
    files = _files(tmp_path / "subs", BATCH, "exercise-2")
    out = tmp_path / "cluster.jsonl"
    tally = batch.run_batch("exercise-2", list(files), out, cluster=client, timeout=TIMEOUT)
    assert (tally.done, tally.internal_errors) == (BATCH, 0)
    reports = _reports(out)
    _assert_verdicts(reports, files)
    local_out = tmp_path / "local.jsonl"  # the same files, graded by the local pool
    some = list(files)[:3]
    batch.run_batch("exercise-2", some, local_out, jobs=2, timeout=TIMEOUT)
    on_cluster = {r.submission: r for r in reports}
    for local in _reports(local_out):
        remote = on_cluster[local.submission]
        assert (remote.status, remote.cause, failed_ids(remote), remote.score) == \
            (local.status, local.cause, failed_ids(local), local.score)


def test_a_worker_killed_mid_batch_leaves_exactly_one_report_each(
        client: distributed.Client, tmp_path: Path) -> None:
    files = _files(tmp_path / "subs", 8)
    out = tmp_path / "reports.jsonl"
    killed: list[str] = []

    def kill_a_busy_worker(report: GradeReport, tally: batch.Tally) -> None:
        if tally.done == 2:  # some results are in; grades are in flight on the workers
            busy = [w for w, keys in client.processing().items() if keys]
            assert busy, "no grade in flight to interrupt"
            os.kill(client.run(os.getpid)[busy[0]], signal.SIGKILL)
            killed.append(busy[0])

    tally = batch.run_batch(EXERCISE, list(files), out, cluster=client, timeout=TIMEOUT,
                            on_report=kill_a_busy_worker)
    assert killed and tally.done == 8 and tally.internal_errors == 0
    _assert_verdicts(_reports(out), files)  # the interrupted grade ran again elsewhere
    client.wait_for_workers(2, timeout=120)  # the nanny restarted it: later tests have two


def test_a_single_grade_on_the_cluster_from_a_thread(client: distributed.Client) -> None:
    from concurrent.futures import ThreadPoolExecutor

    case = _cases()[0]
    with ThreadPoolExecutor(1) as thread:
        report = thread.submit(cluster.grade, client, EXERCISE,
                               source=case.path.read_text(), display_name="mine.py",
                               timeout=TIMEOUT).result()
    assert report.submission == "mine.py"
    assert failed_ids(report) == case.expected_failures


def test_a_resumed_cluster_batch_grades_only_what_is_missing(
        client: distributed.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _files(tmp_path / "subs", 6)
    out = tmp_path / "reports.jsonl"
    batch.run_batch(EXERCISE, list(files)[:3], out, cluster=client, timeout=TIMEOUT)
    kept = out.read_bytes()
    out.write_bytes(kept + b'{"submission": "torn by a ki')  # a kill mid-record
    tally = batch.run_batch(EXERCISE, list(files), out, cluster=client, timeout=TIMEOUT,
                            resume=True)
    assert (tally.done, tally.skipped) == (3, 3)
    assert out.read_bytes().startswith(kept)  # the first records untouched
    _assert_verdicts(_reports(out), files)
    graded: list[tuple[Any, ...]] = []

    def grade_all(*args: Any, **kwargs: Any) -> Iterator[Any]:
        graded.append(args)
        return iter(())

    monkeypatch.setattr(cluster, "grade_all", grade_all)
    again = batch.run_batch(EXERCISE, list(files), out, cluster=client, resume=True)
    assert (again.done, again.skipped, graded) == (0, 6, [])  # nothing sent to the cluster
    _assert_verdicts(_reports(out), files)


KILLED_AFTER_TWO = """
import os, signal, sys
from pathlib import Path
from syncgrade import batch

def die(report, tally):
    if tally.done == 2:  # two records written, two grades in flight: killed halfway
        os.kill(os.getpid(), signal.SIGKILL)

batch.run_batch("exercise-1", [Path(p) for p in sys.argv[2:]], Path(sys.argv[1]),
                fmt="csv", jobs=2, timeout=30, on_report=die)
"""


def test_a_killed_local_batch_resumes_without_regrading(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    files = _files(tmp_path / "subs", 4)
    out = tmp_path / "reports.csv"
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_TWO, str(out),
                             *map(str, files)], cwd=ROOT, capture_output=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    before = out.read_bytes()
    assert len(batch.recorded(out, "csv", _check_ids())[0]) == 2
    out.write_bytes(before + b"torn,by a kill mid-wr")
    resumed = subprocess.run(
        [sys.executable, "-m", "syncgrade.cli", "batch", *map(str, files), "--exercise",
         EXERCISE, "--format", "csv", "--timeout", str(TIMEOUT), "--out", str(out),
         "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert "graded 2 of 2" in resumed.stderr
    assert "2 already in the output, not regraded" in resumed.stderr
    after = out.read_bytes()
    assert after.startswith(before) and b"torn" not in after
    rows = list(csv.DictReader(io.StringIO(after.decode(), newline="")))
    assert sorted(r["submission"] for r in rows) == sorted(map(str, files))  # once each
    for row in rows:
        case = files[Path(row["submission"])]
        assert row["status"] == ("passed" if not case.expected_failures else "failed"), {
            key: value for key, value in row.items() if value != "passed"}
    calls: list[object] = []
    monkeypatch.setattr(grading, "grade", lambda *a, **k: calls.append(a))
    tally = batch.run_batch(EXERCISE, list(files), out, fmt="csv", resume=True)
    assert (tally.done, tally.skipped, calls) == (0, 4, [])
    assert out.read_bytes() == after  # resuming a finished batch changes nothing


def _check_ids() -> list[str]:
    from syncgrade.courses import builtin_course

    return [c.id for c in builtin_course().get(EXERCISE).checks]


def test_resume_reads_back_only_complete_records(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert batch.recorded(out, "jsonl", []) == (set(), 0)  # no file yet: nothing done
    out.write_text('{"submission": "a.py"}\n{"submission": "b.py"}\n{"subm')
    assert batch.recorded(out, "jsonl", []) == ({"a.py", "b.py"}, 46)
    out.write_text('{"submission": "a.py"}\nnot json\n{"submission": "b.py"}\n')
    with pytest.raises(batch.BatchError, match="line 2 is not a jsonl record"):
        batch.recorded(out, "jsonl", [])
    header = ",".join(batch.csv_header(["runs"])) + "\r\n"
    table = tmp_path / "out.csv"
    table.write_text(header + 'a.py,failed,graded,0,1,0.1,"two\nlines",failed\r\n'
                     + 'b.py,passed,graded,1,1,0.1,"torn\n', newline="")
    names, end = batch.recorded(table, "csv", ["runs"])
    assert names == {"a.py"} and table.read_bytes()[:end].endswith(b"failed\r\n")
    table.write_text(",".join(batch.csv_header(["other"])) + "\r\n", newline="")
    with pytest.raises(batch.BatchError, match="header differs"):
        batch.recorded(table, "csv", ["runs"])
    with pytest.raises(batch.BatchError, match="--resume needs one of the formats"):
        batch.recorded(out, "text", [])
    with pytest.raises(batch.BatchError, match="needs an output file"):
        batch.run_batch(EXERCISE, [], io.StringIO(), resume=True)


def test_cli_errors_for_the_cluster_and_resume(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    from syncgrade.cli import main

    with socket.socket() as unused:  # a port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    sub = str(_cases()[0].path)
    for args, says in (
            (["--cluster", f"tcp://127.0.0.1:{port}"], "cannot reach the Dask scheduler"),
            (["--cluster", "http://127.0.0.1:1"], "bad scheduler address"),
            (["--cluster", "127.0.0.1"], "bad scheduler address"),
            (["--resume"], "--resume needs --out FILE"),
            (["--resume", "--format", "text", "--out", str(tmp_path / "o.txt")],
             "--resume needs one of the formats")):
        assert main(["batch", sub, "--exercise", EXERCISE, *args]) == 2, args
        stderr = capsys.readouterr().err
        assert stderr.startswith("grade: ") and says in stderr, stderr
        assert stderr.count("\n") == 1  # one line, no traceback


def test_without_dask_the_cluster_says_what_to_install(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(cluster.ClusterError, match=r"syncgrade\[cluster\]"):
        cluster.connect("tcp://127.0.0.1:8786")


@pytest.mark.slow
def test_five_hundred_submissions_with_a_worker_killed(client: distributed.Client,
                                                      tmp_path: Path) -> None:
    files = _files(tmp_path / "subs", 500)
    out = tmp_path / "reports.jsonl"
    killed: list[int] = []

    def kill_once(report: GradeReport, tally: batch.Tally) -> None:
        if tally.done == 100:
            busy = [w for w, keys in client.processing().items() if keys]
            pid = client.run(os.getpid)[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    tally = batch.run_batch(EXERCISE, list(files), out, cluster=client, timeout=TIMEOUT,
                            on_report=kill_once)
    assert killed and (tally.done, tally.internal_errors) == (500, 0)
    _assert_verdicts(_reports(out), files)
    assert len(json.loads(out.read_text().splitlines()[0])["checks"]) > 0
    client.wait_for_workers(2, timeout=120)


def _graded_on_workers(client: distributed.Client) -> int:
    """How many ``grade_task`` tasks the scheduler has seen finish (the cluster's own
    count, not ours)."""
    def count(dask_scheduler: Any) -> int:
        prefix = dask_scheduler.task_prefixes.get("grade_task")
        return 0 if prefix is None else int(prefix.state_counts.get("memory", 0)
                                            + prefix.state_counts.get("released", 0)
                                            + prefix.state_counts.get("forgotten", 0))
    return int(client.run_on_scheduler(count))


def test_two_service_replicas_grade_their_jobs_on_one_cluster(
        client: distributed.Client) -> None:
    """``grade serve --cluster``: two service apps (replicas) hand their jobs and their
    self-tests to the same workers; every job ends done with its corpus verdict, and
    the scheduler counts every grade as its own task."""
    from service_support import http_request, thread_server

    from syncgrade.service import ServiceConfig, create_app
    from syncgrade.service.runner import cluster_grade

    cases = _cases()[:3]
    before = _graded_on_workers(client)
    config = ServiceConfig(workers=2, queue=8, warm_pool=0)  # the self-test runs too
    apps = [create_app(config, grade=cluster_grade(client, None)) for _ in range(2)]
    with thread_server(app=apps[0]) as one, thread_server(app=apps[1]) as two:
        wait_until(lambda: all(http_request(port, "GET", "/readyz")[0] == 200
                               for port in (one, two)), 120, what="both replicas ready")
        ids = []
        for i, case in enumerate(cases * 2):
            port = (one, two)[i % 2]
            status, _, body = http_request(port, "POST", "/v1/jobs", json.dumps({
                "exercise": EXERCISE, "source": case.path.read_text(),
                "display_name": case.path.name, "timeout": TIMEOUT}).encode(),
                {"Content-Type": "application/json"})
            assert status == 202, body
            ids.append((port, json.loads(body)["id"], case))

        def job(port: int, job_id: str) -> dict[str, Any]:
            return json.loads(http_request(port, "GET", f"/v1/jobs/{job_id}")[2])

        for port, job_id, case in ids:
            def finished(p: int = port, j: str = job_id) -> dict[str, Any] | None:
                body = job(p, j)
                return body if body["status"] in ("done", "failed") else None

            done = wait_until(finished, 180, interval=0.1, what=f"job {job_id}")
            assert done["status"] == "done", done
            report = GradeReport.model_validate(done["report"])
            assert failed_ids(report) == case.expected_failures, case.path
    # six jobs and two self-tests, each one task of the cluster's
    assert _graded_on_workers(client) - before >= len(ids) + 2


def test_a_worker_keeps_at_most_max_pools_warm_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each set of limits gets its own pool on a worker (a service's requests may each ask
    for others); past MAX_POOLS a grade runs cold instead of starting yet another pool of
    children with jax loaded."""
    made: list[tuple[Any, ...]] = []

    class Pool:
        closed = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append((args, kwargs))

    monkeypatch.setattr(cluster, "WarmPool", Pool)
    monkeypatch.setattr(cluster, "_POOLS", {})
    pools = [cluster.worker_pool(10.0 + i, None, None) for i in range(cluster.MAX_POOLS + 2)]
    assert len(made) == cluster.MAX_POOLS
    assert pools[cluster.MAX_POOLS:] == [None, None]
    assert cluster.worker_pool(10.0, None, None) is pools[0]  # the same limits: reused
