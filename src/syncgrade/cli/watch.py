"""``grade watch [EXERCISE [PATH]]`` and ``grade progress``: the learner's loop (issue 27).

``grade watch`` grades the learner's file, then again each time it is saved, and shows
each report. When a grade reaches full marks it moves on: in the learner's workspace
(no PATH given) it hands out the next exercise not yet at full marks (``grade start``'s
files, unless they are there already) and watches that; with a PATH it says what to run
next and stops. Without an EXERCISE it starts at the first exercise not yet at full
marks in the progress record. Ctrl-C stops it. Grades go through the grader daemon,
which ``grade watch`` starts in the background (``--no-daemon``: every grade cold, in
this process).

Saves are seen by polling the file's size and modification time (no dependency); a
change is graded once the file has stayed the same for :data:`SETTLE_S`, so an editor's
burst of writes (a truncate, then the text; a rename over the file) is one grade.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    UsageError,
    add_course,
    add_memory,
    add_timeout,
    known_exercise,
    open_course,
    parse_anywhere,
)
from syncgrade.cli.grade import (
    SUBMISSION,
    WORKSPACE,
    Request,
    _cwd,
    _shown,
    grade_one,
    submission_path,
    workspace,
)
from syncgrade.limits import GIB

POLL_S = 0.2
"""How often the watched file's size and modification time are read."""
SETTLE_S = 0.3
"""A change is graded once the file has not changed for this long (debounce)."""
DAEMON_WAIT_S = 30.0
"""How long ``grade watch`` waits for the daemon it started to answer (it imports the
grader: about a second, more on a loaded machine) before grading cold instead."""


@dataclass
class Watched:
    """What ``grade watch`` is watching: the exercise, its file, and whether the file is
    the workspace's own (so the next exercise can be handed out)."""

    exercise: str
    path: Path
    in_workspace: bool


def _watch_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grade watch",
        description="Grade your file each time you save it, and move on to the next "
                    "exercise when it gets full marks. Ctrl-C stops.",
        epilog="Without EXERCISE: the first exercise not yet at full marks (see `grade "
               "progress`). Grades go through the grader daemon, started in the "
               "background (`grade daemon status`).")
    parser.add_argument("exercise", nargs="?",
                        help="exercise id, e.g. exercise-1 (default: the first not yet "
                             "at full marks)")
    parser.add_argument("path", nargs="?", type=Path,
                        help="the file to watch (default: exercises/EXERCISE/submission.py)")
    parser.add_argument("--no-daemon", action="store_true",
                        help="grade in this process, cold, without the grader daemon")
    add_timeout(parser)
    add_memory(parser)
    add_course(parser)
    return parser


def cmd_watch(argv: Sequence[str]) -> int:
    """``grade watch``: exit 0 when stopped with Ctrl-C, or when every exercise is at full
    marks, or after full marks on a PATH given; a :class:`UsageError` (exit 2) when there
    is nothing to watch yet (it says which ``grade start`` to run)."""
    args = parse_anywhere(_watch_parser(), argv)
    course = open_course(args.course)
    exercise = args.exercise or _first_to_do(list(course.exercises), course.root)
    if exercise is None:
        print("Every exercise is at full marks. Well done!")
        return EXIT_FULL_MARKS
    known_exercise(exercise, course)
    watched = Watched(exercise, submission_path(exercise, args.path, _cwd()),
                      in_workspace=args.path is None)
    if not args.no_daemon:
        from syncgrade.cli.daemon import start_background, wait_for_daemon

        if start_background(args.course):
            # Its first grade then needs no second jax import beside it: one start-up
            # on the machine, not two. A daemon that does not answer in time: cold.
            wait_for_daemon(DAEMON_WAIT_S)
    _catch_ctrl_c()
    try:
        return _loop(args, watched)
    except KeyboardInterrupt:
        print("\nStopped watching.", flush=True)  # at once, before the pool's clean-up
        return EXIT_FULL_MARKS


CTRL_C = threading.Event()
"""Set by Ctrl-C in ``grade watch``: the wait for a save stops at its next poll even when
the ``KeyboardInterrupt`` itself was raised where Python swallows it (a finalizer or a
callback that ran at that moment only prints "Exception ignored"), so one Ctrl-C always
stops watching."""


def _catch_ctrl_c() -> None:
    """Ctrl-C (SIGINT) sets :data:`CTRL_C`, then raises ``KeyboardInterrupt`` as usual."""

    def interrupted(signum: int, frame: object) -> None:
        CTRL_C.set()
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, interrupted)


def _stopping() -> None:
    """Raise ``KeyboardInterrupt`` when Ctrl-C was seen (:data:`CTRL_C`)."""
    if CTRL_C.is_set():
        raise KeyboardInterrupt


def _first_to_do(exercise_ids: list[str], course_root: Path) -> str | None:
    from syncgrade import progress

    done, note = progress.entries(course_root)
    if note:
        print(f"grade: {note}", file=sys.stderr)
    return progress.first_not_done(exercise_ids, done)


def _loop(args: argparse.Namespace, watched: Watched) -> int:
    """Grade, show, wait for a save; move on at full marks. Returns when done."""
    grade_now = True
    while True:
        _stopping()
        stamp = _stamp(watched.path)
        if grade_now:
            graded = grade_one(Request(
                exercise=watched.exercise, path=watched.path, course=args.course,
                timeout=args.timeout, memory_bytes=int(args.memory * GIB),
                use_daemon=not args.no_daemon))
            sys.stdout.write(graded.text)
            if graded.note:
                print(f"grade: {graded.note}", file=sys.stderr)
            if graded.status == "passed":
                following = _move_on(args, watched)
                if following is None:
                    return EXIT_FULL_MARKS
                watched, grade_now = following, False
                continue
        print(f"Watching {watched.path} (Ctrl-C to stop): save it to grade it again.",
              flush=True)
        _wait_for_change(watched.path, stamp)
        grade_now = True


def _move_on(args: argparse.Namespace, watched: Watched) -> Watched | None:
    """After full marks: the next exercise to watch (handed out when it is not there
    yet), or None after saying what to do next (a PATH was given, or none is left)."""
    course = open_course(args.course)
    ids = list(course.exercises)
    later = ids[ids.index(watched.exercise) + 1:] if watched.exercise in ids else []
    following = _first_to_do(later, course.root) if later else None
    if following is None:
        left = _first_to_do(ids, course.root)
        print(f"\n{watched.exercise} is done." + (
            f" Still to do: {left} (`grade watch {left}`)." if left else
            " Every exercise is at full marks. Well done!"))
        return None
    title = course.exercises[following].title
    if not watched.in_workspace:
        print(f"\n{watched.exercise} is done. Next: {following} · {title}: run `grade "
              f"start {following}`, then `grade watch {following}`.", flush=True)
        return None
    cwd = _cwd()
    path = workspace(cwd) / WORKSPACE / following / SUBMISSION
    if not path.is_file():
        from syncgrade.starter import StarterError, start

        try:
            start(following, workspace(cwd), course=course)
        except StarterError as exc:
            raise UsageError(str(exc)) from None
    readme = _shown(path.parent / "README.md", cwd)
    print(f"\n{watched.exercise} is done. Next: {following} · {title}.\nRead {readme}, "
          f"then edit {_shown(path, cwd)}.", flush=True)
    return Watched(following, _shown(path, cwd), in_workspace=True)


def _stamp(path: Path) -> tuple[int, int] | None:
    """What a save changes: the file's size and modification time (None: not there)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _wait_for_change(path: Path, stamp: tuple[int, int] | None) -> None:
    """Return once ``path`` differs from ``stamp`` and has then stayed the same for
    :data:`SETTLE_S` (a missing file, e.g. mid-rename, is waited out)."""
    while True:
        time.sleep(POLL_S)
        _stopping()
        now = _stamp(path)
        if now is None or now == stamp:
            continue
        settled_since = time.monotonic()
        while time.monotonic() - settled_since < SETTLE_S:
            time.sleep(POLL_S / 2)
            _stopping()
            later = _stamp(path)
            if later != now:
                now, settled_since = later, time.monotonic()
        if now is not None:
            return


def cmd_progress(argv: Sequence[str]) -> int:
    """``grade progress``: each exercise of the course with its last grade (from the
    progress record), and what to do next. Exit 0."""
    parser = argparse.ArgumentParser(
        prog="grade progress",
        description="Which exercises are done: the last grade of each, as `grade`, "
                    "`grade watch` and the grader daemon recorded it.")
    add_course(parser)
    args = parse_anywhere(parser, argv)
    course = open_course(args.course)
    from syncgrade import progress

    done, note = progress.entries(course.root)
    if note:
        print(f"grade: {note}", file=sys.stderr)
    width = max((len(e) for e in course.exercises), default=0)
    for exercise_id, exercise in course.exercises.items():
        entry = done.get(exercise_id)
        mark = ("done     " if entry.done else "not yet  ") if entry else "-        "
        score = f"{entry.score:g}/{entry.max_score:g}" if entry else ""
        print(f"{exercise_id:<{width}}  {mark}{score:<7}  {exercise.title}")
    finished = sum(1 for e in course.exercises if e in done and done[e].done)
    following = progress.first_not_done(list(course.exercises), done)
    print(f"\n{finished} of {len(course.exercises)} at full marks."
          + (f" Next: `grade watch {following}`." if following else " Well done!"))
    return EXIT_FULL_MARKS
