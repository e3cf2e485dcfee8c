"""``grade batch``: many submissions of one exercise, one report each as it finishes."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from syncgrade.cli.common import (
    BATCH_FORMATS,
    EXIT_FULL_MARKS,
    EXIT_INTERNAL,
    UsageError,
    add_course,
    add_memory,
    add_reveal,
    add_timeout,
    known_exercise,
    open_course,
    source_lines,
)
from syncgrade.limits import GIB


def cmd_batch(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="grade batch",
        description="Grade many submissions of one exercise, each in its own sandbox. "
                    "Writes one report per file as it finishes: a JSON line (a "
                    "GradeReport, or {\"submission\", \"results\"} holding a platform's "
                    "results.json), a CSV row, or the text view.")
    parser.add_argument("paths", nargs="+", type=Path,
                        help="submission files, or folders of *.py files")
    parser.add_argument("--exercise", required=True, help="exercise id, e.g. exercise-1")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="submissions graded at once (default: 2)")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write reports to FILE (default: stdout)")
    parser.add_argument("--format", choices=BATCH_FORMATS, default="jsonl",
                        help="jsonl (or json): one GradeReport per line (default); csv: one "
                             "row each; text: the terminal view of each; gradescope, "
                             "prairielearn, exercism: one JSON line per file, "
                             "{\"submission\": NAME, \"results\": RESULTS_JSON}")
    add_reveal(parser)
    add_timeout(parser, what="wall-clock limit per submission")
    add_memory(parser)
    add_course(parser)
    args = parser.parse_args(argv)
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    from syncgrade import batch
    from syncgrade.grading import grade
    from syncgrade.render import use_colour

    paths = batch.expand(args.paths)
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no such file: {missing[0]}"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    if not paths:
        raise UsageError("no submissions found")
    check_ids = [c.id for c in course.get(args.exercise).checks]
    stream = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
    tally = batch.Tally(total=len(paths))
    show_progress = sys.stderr.isatty()
    from syncgrade.pool import WarmPool

    # One warm child per job: each submission still gets a fresh child (issue 10).
    pool = WarmPool(args.jobs, timeout=args.timeout, memory_bytes=int(args.memory * GIB),
                    defer_refill=False,  # throughput: every finished run is replaced at once
                    hidden=course.hidden_paths)
    try:
        writer = batch.ReportWriter(stream, args.format, check_ids, reveal=args.reveal,
                                    colour=args.format == "text" and not args.out
                                    and use_colour(stream))
        for report in batch.grade_all(
                paths, lambda p: grade(args.exercise, p, timeout=args.timeout,
                                       memory_bytes=int(args.memory * GIB), pool=pool,
                                       course=course),
                args.jobs):
            # Only the text view and the platforms' timelines quote the learner's lines;
            # without a display_name the report names the file as it was given.
            quotes = args.format not in ("jsonl", "json", "csv")
            writer.write(report, source_lines(Path(report.submission)) if quotes else None)
            tally.add(report)
            if show_progress:
                sys.stderr.write(batch.progress_line(tally))
                sys.stderr.flush()
    finally:
        pool.close()
        if args.out:
            stream.close()
    if show_progress:
        sys.stderr.write("\n")
    print(tally.summary(), file=sys.stderr)
    return EXIT_INTERNAL if tally.internal_errors else EXIT_FULL_MARKS
