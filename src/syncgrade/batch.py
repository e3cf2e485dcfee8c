"""Grade many submissions with bounded parallelism, streaming one report per file.

Each submission is graded by the same :func:`syncgrade.engine.grade` in its own sandboxed
child, so a crash, hang or flood in one never touches the others. Reports are written the
moment each finishes (JSON lines or CSV rows, flushed), so an interrupted batch keeps
everything already graded. Workers are threads: the work happens in child processes.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from syncgrade.models import GradeReport

Format = Literal["jsonl", "csv"]
Grader = Callable[[Path], GradeReport]


@dataclass
class Tally:
    """Running counts for the progress line and the closing summary."""

    total: int
    done: int = 0
    by_status: dict[str, int] = field(default_factory=lambda: {"passed": 0, "failed": 0,
                                                               "error": 0})
    internal_errors: int = 0

    def add(self, report: GradeReport) -> None:
        self.done += 1
        self.by_status[report.status] += 1
        if report.grading.internal_error:
            self.internal_errors += 1

    def summary(self) -> str:
        s = self.by_status
        return (f"graded {self.done} of {self.total}: {s['passed']} full marks, "
                f"{s['failed']} not yet, {s['error']} errors"
                + (f" ({self.internal_errors} grader faults)" if self.internal_errors else ""))


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files as given; a directory stands for the ``*.py`` files inside it, sorted."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return files


def grade_all(paths: Sequence[Path], grader: Grader, jobs: int) -> Iterator[GradeReport]:
    """Yield one report per path, in completion order. ``grader`` must not raise for a
    learner's fault (:func:`syncgrade.engine.grade` turns every one into a report)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures: dict[Future[GradeReport], Path] = {pool.submit(grader, p): p for p in paths}
        for future in as_completed(futures):
            yield future.result()


class ReportWriter:
    """Writes reports as JSON lines or CSV rows, flushing after each."""

    def __init__(self, stream: TextIO, fmt: Format, check_ids: Sequence[str]) -> None:
        self._stream = stream
        self._fmt = fmt
        self._check_ids = list(check_ids)
        self._csv: csv.writer | None = None  # type: ignore[valid-type]
        if fmt == "csv":
            self._csv = csv.writer(stream)
            self._csv.writerow(["submission", "status", "score", "max_score", "seconds",
                                "summary", *self._check_ids])

    def write(self, report: GradeReport) -> None:
        if self._csv is not None:
            statuses = {c.id: c.status for c in report.checks}
            self._csv.writerow([report.submission, report.status, report.score,
                                report.max_score, report.grading.seconds, report.summary,
                                *(statuses.get(i, "") for i in self._check_ids)])
        else:
            self._stream.write(report.model_dump_json() + "\n")
        self._stream.flush()


def progress_line(tally: Tally, width: int = 24) -> str:
    filled = int(width * tally.done / max(tally.total, 1))
    bar = "█" * filled + "░" * (width - filled)
    s = tally.by_status
    return (f"\r[{bar}] {tally.done}/{tally.total}  ✓ {s['passed']}  ✗ {s['failed']}"
            f"  ! {s['error']}")

