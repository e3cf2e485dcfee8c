"""Grade many submissions with bounded parallelism, streaming one report per file.

Each submission is graded by the same :func:`syncgrade.grading.grade` in its own sandboxed
child, so a crash, hang or flood in one never touches the others: locally (threads over a
warm pool: the work happens in child processes) or on a Dask cluster
(:mod:`syncgrade.cluster`). Reports are written the moment each finishes, each record with
one write and a flush, so an interrupted batch keeps everything already graded, and
:func:`run_batch` with ``resume=True`` grades only what its output does not hold yet
(a record torn by a kill is cut off first, then graded again).
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import os
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO, TypeVar

from syncgrade.limits import DEFAULT_TIMEOUT_S
from syncgrade.models import GradeReport

if TYPE_CHECKING:
    from distributed import Client

    from syncgrade.courses import Course
    from syncgrade.grading import GradeResult

Format = Literal["jsonl", "json", "csv", "text", "gradescope", "prairielearn", "exercism"]
Graded = TypeVar("Graded")
RESUMABLE = ("jsonl", "json", "csv", "gradescope", "prairielearn", "exercism")
"""The formats ``resume`` reads back: one record per submission, naming it."""


class BatchError(ValueError):
    """A batch that cannot run as asked (resume without an output file or in the text
    format, an output file that is not this batch's): one line, for the operator."""


@dataclass
class Tally:
    """Running counts for the progress line and the closing summary."""

    total: int
    done: int = 0
    by_status: dict[str, int] = field(default_factory=lambda: {"passed": 0, "failed": 0,
                                                               "error": 0})
    by_cause: dict[str, int] = field(default_factory=dict)
    internal_errors: int = 0
    skipped: int = 0  # already in the output of a resumed batch: not graded again

    def add(self, report: GradeReport) -> None:
        self.done += 1
        self.by_status[report.status] += 1
        if report.cause not in ("graded", "grader_fault"):
            self.by_cause[report.cause] = self.by_cause.get(report.cause, 0) + 1
        if report.grading.internal_error:
            self.internal_errors += 1

    def summary(self) -> str:
        """E.g. ``graded 5 of 5: 1 full marks, 4 not yet (1 timeout, 1 crashed), 0
        grader faults``: the learner-side causes that stopped grading, then the grader's
        own failures (status ``error``)."""
        s = self.by_status
        causes = ", ".join(f"{n} {cause}" for cause, n in sorted(self.by_cause.items()))
        return (f"graded {self.done} of {self.total}: {s['passed']} full marks, "
                f"{s['failed']} not yet" + (f" ({causes})" if causes else "")
                + f", {s['error']} grader faults"
                + (f"; {self.skipped} already in the output, not regraded"
                   if self.skipped else ""))


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files as given; a directory stands for the ``*.py`` files inside it, sorted."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return files


def grade_all(paths: Sequence[Path], grader: Callable[[Path], Graded],
              jobs: int) -> Iterator[Graded]:
    """Yield what ``grader`` returns for each path (a report, or a
    :class:`~syncgrade.grading.GradeResult`), in completion order. ``grader`` must not
    raise for a learner's fault (:func:`syncgrade.grading.grade` turns every one into a
    report).
    Closing the generator early (an interrupted batch) cancels the grades not yet started
    and waits only for those running."""
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures: dict[Future[Graded], Path] = {pool.submit(grader, p): p for p in paths}
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class ReportWriter:
    """Writes each report the moment it is graded, flushing after each, as:

    - ``jsonl`` (or ``json``): the GradeReport on one line;
    - ``csv``: one row (submission, status, cause, score, max_score, seconds, summary, then
      each check's status), after a header row;
    - ``text``: the terminal view, reports separated by a blank line;
    - ``gradescope``, ``prairielearn``, ``exercism``: one JSON line
      ``{"submission": NAME, "results": RESULTS}``, where ``RESULTS`` is exactly that
      platform's results.json (the wrapper says whose it is: lines come in completion
      order, and the platform formats have no field for the file's name).

    Every format is the learner's view (hidden checks redacted) unless ``reveal``;
    ``html``: the platform formats carry their HTML outputs and images. Each
    record goes out in one ``write`` and is flushed, so a kill leaves at most the last
    record torn (:func:`recorded` cuts it off on resume). ``header=False``: the stream
    already holds the CSV header (appending to a resumed batch's output).
    """

    def __init__(self, stream: TextIO, fmt: Format | str, check_ids: Sequence[str], *,
                 reveal: bool = False, html: bool = False, colour: bool = False,
                 header: bool = True) -> None:
        self._stream = stream
        self._html = html
        self._fmt = "jsonl" if fmt == "json" else fmt
        self._check_ids = list(check_ids)
        self._reveal = reveal
        self._colour = colour
        self._written = 0
        if self._fmt == "csv" and header:
            self._stream.write(_csv_row(csv_header(self._check_ids)))
            self._stream.flush()

    def write(self, report: GradeReport, source_lines: Sequence[str] | None = None) -> None:
        """Write one report; ``source_lines`` (the submission's lines as graded:
        :class:`~syncgrade.grading.GradeResult`) lets the text view and the platforms'
        timelines quote the learner's own lines."""
        from syncgrade.platforms.output import format_report
        from syncgrade.platforms.registry import PLATFORMS, to_platform

        if self._fmt == "csv":
            view = report if self._reveal else _redacted(report)
            statuses = {c.id: c.status for c in view.checks}
            record = _csv_row([view.submission, view.status, view.cause, view.score,
                               view.max_score, view.grading.seconds, view.summary,
                               *(statuses.get(i, "") for i in self._check_ids)])
        elif self._fmt in PLATFORMS:
            results = to_platform(self._fmt, report, reveal=self._reveal,
                                  source_lines=source_lines, html=self._html)
            record = json.dumps({"submission": report.submission, "results": results},
                                ensure_ascii=False) + "\n"
        elif self._fmt == "text":
            record = ("\n" if self._written else "") + format_report(
                report, "text", reveal=self._reveal, source_lines=source_lines,
                colour=self._colour)
        else:
            record = format_report(report, "json", reveal=self._reveal, indent=None)
        self._stream.write(record)
        self._written += 1
        self._stream.flush()


def csv_header(check_ids: Sequence[str]) -> list[str]:
    """The CSV format's header row for an exercise with these checks."""
    return ["submission", "status", "cause", "score", "max_score", "seconds", "summary",
            *check_ids]


def _csv_row(row: Sequence[object]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow(row)
    return buffer.getvalue()


def _redacted(report: GradeReport) -> GradeReport:
    from syncgrade.platforms.visibility import redact

    return redact(report)


def progress_line(tally: Tally, width: int = 24) -> str:
    filled = int(width * tally.done / max(tally.total, 1))
    bar = "█" * filled + "░" * (width - filled)
    s = tally.by_status
    return (f"\r[{bar}] {tally.done}/{tally.total}  ✓ {s['passed']}  ✗ {s['failed']}"
            f"  ! {s['error']}")



# ------------------------------------------------------------------ resuming

def recorded(out: Path, fmt: Format | str, check_ids: Sequence[str]) -> tuple[set[str], int]:
    """What ``out`` (a resumable batch's output, :data:`RESUMABLE`) already holds: the
    submissions it has a complete record of, and the length in bytes of its complete
    records (header included), after which anything is a record torn by a kill.
    A missing file holds nothing. Raises :class:`BatchError` for a format that cannot be
    resumed, or a file that is not this batch's output (another exercise's CSV header, a
    complete line that is not a record)."""
    if fmt not in RESUMABLE:
        raise BatchError(f"--resume needs one of the formats {', '.join(RESUMABLE)}, "
                         f"not {fmt}")
    try:
        data = out.read_bytes()
    except FileNotFoundError:
        return set(), 0
    except OSError as exc:
        raise BatchError(f"cannot read {out}: {exc.strerror or exc}") from None
    if fmt == "csv":
        return _recorded_csv(out, data, csv_header(check_ids))
    names: set[str] = set()
    end = 0
    for number, line in enumerate(data.split(b"\n")[:-1], 1):  # the last: torn or b""
        try:
            record = json.loads(line)
            names.add(str(record["submission"]))
        except (ValueError, KeyError, TypeError):
            raise BatchError(f"{out} line {number} is not a {fmt} record; resume only "
                             f"into a batch's own output") from None
        end += len(line) + 1
    return names, end


def _recorded_csv(out: Path, data: bytes, header: list[str]) -> tuple[set[str], int]:
    """:func:`recorded` for CSV: rows may span lines (a quoted summary), so a row counts
    only once the reader has it whole: ending in a newline, with every column. Only the
    last row may be torn; the first must be this exercise's header."""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    chunks = [line + "\n" for line in lines[:-1]]  # lines[-1]: after the last newline
    # offsets[n]: the bytes of the first n lines (where a record ending on line n ends).
    offsets = list(itertools.accumulate(
        (len(c.encode("utf-8", "surrogateescape")) for c in chunks), initial=0))
    reader = csv.reader(chunks)
    names: set[str] = set()
    end = 0
    try:
        for number, row in enumerate(reader):
            if number == 0 and row != header:
                raise BatchError(f"{out} is not this exercise's CSV batch output (its "
                                 f"header differs); resume only into that batch's output")
            if len(row) != len(header):
                break  # torn: a complete row has every column
            if number:
                names.add(row[0])
            end = offsets[reader.line_num]
    except csv.Error:
        pass  # the data ended inside a quoted field: torn
    if reader.line_num < len(chunks):
        raise BatchError(f"{out} line {reader.line_num} is not a CSV record; resume only "
                         f"into a batch's own output")
    return names, end


def _open_output(out: Path, fmt: Format | str, check_ids: Sequence[str],
                 resume: bool) -> tuple[TextIO, set[str], bool]:
    """The output file opened for this batch: truncated, or (``resume``) with its torn
    tail cut off and opened for appending. Returns the stream, the submissions it
    already holds, and whether a CSV header must still be written."""
    if not resume:
        return out.open("w", encoding="utf-8", newline=""), set(), True
    done, end = recorded(out, fmt, check_ids)
    if out.exists():
        os.truncate(out, end)
    stream = out.open("a", encoding="utf-8", newline="")
    return stream, done, end == 0


# ------------------------------------------------------------------ the Python API

def run_batch(exercise_id: str, paths: Sequence[Path], out: Path | TextIO, *,
              fmt: Format | str = "jsonl", jobs: int = 2,
              cluster: Client | str | None = None, resume: bool = False,
              timeout: float = DEFAULT_TIMEOUT_S, memory_bytes: int | None = None,
              course: str | os.PathLike[str] | Course | None = None, reveal: bool = False,
              html: bool = False, colour: bool = False,
              on_report: Callable[[GradeReport, Tally], None] | None = None) -> Tally:
    """Grade every file of ``paths`` (each once, however often given) and write one
    record each to ``out`` (a file, replaced unless ``resume``; or a stream) in ``fmt``
    (:class:`ReportWriter`), in completion order; returns the counts.

    Where: a local warm pool of ``jobs`` children (default), or the Dask cluster
    ``cluster`` (a :class:`distributed.Client` or a scheduler address;
    :mod:`syncgrade.cluster`), each grade on a worker. ``resume=True`` (``out`` must be a
    file in a :data:`RESUMABLE` format): the records ``out`` already holds are kept and
    their submissions not graded again (matched by the name each report carries, the
    path as given), a torn last record is cut off, and the rest are appended; nothing
    is recorded twice. ``html``: the platform formats' HTML outputs and images.
    ``on_report`` is called after each record is written.

    Raises before grading: :class:`BatchError`, :class:`syncgrade.cluster.ClusterError`,
    and the usage errors of :func:`syncgrade.grading.grade`."""
    from syncgrade.courses import open_course

    opened = open_course(course)
    check_ids = [c.id for c in opened.get(exercise_id).checks]
    files = list(dict.fromkeys(paths))
    if resume and not isinstance(out, Path):
        raise BatchError("--resume needs an output file (--out FILE)")
    client = None
    if isinstance(cluster, str):  # connected before the output is touched
        from syncgrade.cluster import connect

        cluster = client = connect(cluster)
    try:
        stream, done, header = (_open_output(out, fmt, check_ids, resume)
                                if isinstance(out, Path) else (out, set(), True))
    except BaseException:
        if client is not None:
            client.close()
        raise
    todo = [p for p in files if str(p) not in done]
    tally = Tally(total=len(todo), skipped=len(files) - len(todo))
    try:
        writer = ReportWriter(stream, fmt, check_ids, reveal=reveal, html=html, colour=colour,
                              header=header)
        quotes = fmt not in ("jsonl", "json", "csv")  # the text view, the platforms
        reports = _reports(exercise_id, todo, jobs=jobs, cluster=cluster, timeout=timeout,
                           memory_bytes=memory_bytes, course=opened)
        with contextlib.closing(reports):  # an interrupted batch stops its grades at once
            for result in reports:
                report = result.report  # quoting the lines graded, not the file now
                writer.write(report, result.source_lines if quotes else None)
                tally.add(report)
                if on_report is not None:
                    on_report(report, tally)
    finally:
        if stream is not out:
            stream.close()
        if client is not None:
            client.close()
    return tally


def _reports(exercise_id: str, paths: Sequence[Path], *, jobs: int,
             cluster: Client | str | None, timeout: float, memory_bytes: int | None,
             course: Course) -> Generator[GradeResult, None, None]:
    """One report per path, with the lines it graded, in completion order: on
    ``cluster``, else a local pool."""
    if not paths:
        return
    if cluster is not None:
        from syncgrade import cluster as on_cluster

        yield from on_cluster.grade_all(cluster, exercise_id, paths, timeout=timeout,
                                        memory_bytes=memory_bytes, course=course)
        return
    from syncgrade import grading
    from syncgrade.pool import WarmPool

    # One warm child per job: each submission still gets a fresh child (issue 10).
    with WarmPool(max(1, min(jobs, len(paths))), timeout=timeout, memory_bytes=memory_bytes,
                  defer_refill=False,  # throughput: every finished run is replaced at once
                  hidden=course.hidden_paths) as pool:
        yield from grade_all(
            paths, lambda p: grading.grade_result(exercise_id, p, timeout=timeout,
                                                  memory_bytes=memory_bytes, pool=pool,
                                                  course=course), jobs)
