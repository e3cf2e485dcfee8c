"""Grade many submissions with bounded parallelism, streaming one report per file.

Each submission is graded by the same :func:`syncgrade.grading.grade` in its own sandboxed
child, so a crash, hang or flood in one never touches the others. Reports are written the
moment each finishes (JSON lines or CSV rows, flushed), so an interrupted batch keeps
everything already graded. Workers are threads: the work happens in child processes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from syncgrade.models import GradeReport

Format = Literal["jsonl", "json", "csv", "text", "gradescope", "prairielearn", "exercism"]
Grader = Callable[[Path], GradeReport]


@dataclass
class Tally:
    """Running counts for the progress line and the closing summary."""

    total: int
    done: int = 0
    by_status: dict[str, int] = field(default_factory=lambda: {"passed": 0, "failed": 0,
                                                               "error": 0})
    by_cause: dict[str, int] = field(default_factory=dict)
    internal_errors: int = 0

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
                + f", {s['error']} grader faults")


def expand(paths: Iterable[Path]) -> list[Path]:
    """Files as given; a directory stands for the ``*.py`` files inside it, sorted."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return files


def grade_all(paths: Sequence[Path], grader: Grader, jobs: int) -> Iterator[GradeReport]:
    """Yield one report per path, in completion order. ``grader`` must not raise for a
    learner's fault (:func:`syncgrade.grading.grade` turns every one into a report)."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures: dict[Future[GradeReport], Path] = {pool.submit(grader, p): p for p in paths}
        for future in as_completed(futures):
            yield future.result()


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

    Every format is the learner's view (hidden checks redacted) unless ``reveal``.
    """

    def __init__(self, stream: TextIO, fmt: Format | str, check_ids: Sequence[str], *,
                 reveal: bool = False, colour: bool = False) -> None:
        self._stream = stream
        self._fmt = "jsonl" if fmt == "json" else fmt
        self._check_ids = list(check_ids)
        self._reveal = reveal
        self._colour = colour
        self._written = 0
        self._csv: csv.writer | None = None  # type: ignore[valid-type]
        if self._fmt == "csv":
            self._csv = csv.writer(stream)
            self._csv.writerow(["submission", "status", "cause", "score", "max_score",
                                "seconds", "summary", *self._check_ids])

    def write(self, report: GradeReport, source_lines: list[str] | None = None) -> None:
        """Write one report; ``source_lines`` lets the text view and the platforms'
        timelines quote the learner's own lines."""
        from syncgrade.platforms.output import format_report
        from syncgrade.platforms.registry import PLATFORMS, to_platform

        if self._csv is not None:
            view = report if self._reveal else _redacted(report)
            statuses = {c.id: c.status for c in view.checks}
            self._csv.writerow([view.submission, view.status, view.cause, view.score,
                                view.max_score, view.grading.seconds, view.summary,
                                *(statuses.get(i, "") for i in self._check_ids)])
        elif self._fmt in PLATFORMS:
            results = to_platform(self._fmt, report, reveal=self._reveal,
                                  source_lines=source_lines)
            self._stream.write(json.dumps({"submission": report.submission,
                                           "results": results}, ensure_ascii=False) + "\n")
        elif self._fmt == "text":
            if self._written:
                self._stream.write("\n")
            self._stream.write(format_report(report, "text", reveal=self._reveal,
                                             source_lines=source_lines, colour=self._colour))
        else:
            self._stream.write(format_report(report, "json", reveal=self._reveal,
                                             indent=None))
        self._written += 1
        self._stream.flush()


def _redacted(report: GradeReport) -> GradeReport:
    from syncgrade.platforms.visibility import redact

    return redact(report)


def progress_line(tally: Tally, width: int = 24) -> str:
    filled = int(width * tally.done / max(tally.total, 1))
    bar = "█" * filled + "░" * (width - filled)
    s = tally.by_status
    return (f"\r[{bar}] {tally.done}/{tally.total}  ✓ {s['passed']}  ✗ {s['failed']}"
            f"  ! {s['error']}")

