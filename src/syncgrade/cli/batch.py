"""``grade batch``: many submissions of one exercise, one report each as it finishes."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade.cli.common import (
    BATCH_FORMATS,
    EXIT_FULL_MARKS,
    EXIT_INTERNAL,
    UsageError,
    add_course,
    add_memory,
    add_platform_html,
    add_reveal,
    add_timeout,
    check_platform_html,
    known_exercise,
    open_course,
    parse_anywhere,
)
from syncgrade.limits import GIB

if TYPE_CHECKING:
    from syncgrade.models import GradeReport


def cmd_batch(argv: Sequence[str]) -> int:
    args = parse_anywhere(_parser(), argv)
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    check_platform_html(args.html, args.format)
    if args.resume and not args.out:
        raise UsageError("--resume needs --out FILE (the output of the batch to resume)")
    from syncgrade import batch
    from syncgrade.cluster import ClusterError
    from syncgrade.render import use_colour

    paths = batch.expand(args.paths)
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise UsageError(f"no such file: {missing[0]}"
                         + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    if not paths:
        raise UsageError("no submissions found")
    cluster = None
    if args.cluster:
        from syncgrade.cluster import connect

        try:
            cluster = connect(args.cluster)
        except ClusterError as exc:
            raise UsageError(str(exc)) from None
    show_progress = sys.stderr.isatty()

    def progress(report: GradeReport, tally: batch.Tally) -> None:
        if show_progress:
            sys.stderr.write(batch.progress_line(tally))
            sys.stderr.flush()

    try:
        tally = batch.run_batch(
            args.exercise, paths, args.out or sys.stdout, fmt=args.format, jobs=args.jobs,
            cluster=cluster, resume=args.resume, timeout=args.timeout,
            memory_bytes=int(args.memory * GIB), course=course, reveal=args.reveal,
            html=args.html,
            colour=args.format == "text" and not args.out and use_colour(sys.stdout),
            on_report=progress)
    except batch.BatchError as exc:
        raise UsageError(str(exc)) from None
    except ClusterError as exc:  # the scheduler went away mid-batch
        # The client keeps trying to reconnect on its own thread, and Dask logs each
        # failure with its traceback (35 lines) as it gives up: an expected failure,
        # which the one line below tells in full. Nothing else is logged from here on.
        logging.disable(logging.CRITICAL)
        print(f"grade: {exc}; what was graded is in the output: rerun with --resume",
              file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if cluster is not None:
            cluster.close()
    if show_progress and tally.total:
        sys.stderr.write("\n")
    print(tally.summary(), file=sys.stderr)
    return EXIT_INTERNAL if tally.internal_errors else EXIT_FULL_MARKS


def _parser() -> argparse.ArgumentParser:
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
                        help="submissions graded at once on this machine (default: 2; "
                             "with --cluster, the workers' threads decide)")
    parser.add_argument("--cluster", metavar="ADDRESS",
                        help="grade on the Dask cluster whose scheduler is at ADDRESS "
                             "(tcp://host:8786), each submission on a worker, in that "
                             "worker's own sandboxes; needs syncgrade[cluster] "
                             "(docs/platforms.md, \"Scaling out\")")
    parser.add_argument("--resume", action="store_true",
                        help="keep what --out FILE already holds and grade only the "
                             "submissions it has no report of (after a killed batch); "
                             "not with --format text")
    parser.add_argument("--out", type=Path, metavar="FILE",
                        help="write reports to FILE (default: stdout)")
    parser.add_argument("--format", choices=BATCH_FORMATS, default="jsonl",
                        help="jsonl (or json): one GradeReport per line (default); csv: one "
                             "row each; text: the terminal view of each; gradescope, "
                             "prairielearn, exercism: one JSON line per file, "
                             "{\"submission\": NAME, \"results\": RESULTS_JSON}")
    add_platform_html(parser)
    add_reveal(parser)
    add_timeout(parser, what="wall-clock limit per submission")
    add_memory(parser)
    add_course(parser)
    return parser
