"""``grade daemon start|stop|status|run`` and the client side of ``grade`` through the
user's warm grader daemon (:mod:`syncgrade.daemon`).

``grade EXERCISE`` asks the daemon first (:func:`through_daemon`); when none runs, or it
answers anything but a report (stale, a protocol error, a crash, a usage error the cold
path words better), the grade is made cold, exactly as without a daemon, and nothing of
the failed attempt reaches the learner. ``grade watch`` starts one in the background
(:func:`start_background`); it exits by itself when idle.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from syncgrade import daemon
from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    EXIT_NOT_FULL,
    UsageError,
    add_course,
    parse_anywhere,
    terminal_width,
)
from syncgrade.limits import DEFAULT_OVERHEAD_S

if TYPE_CHECKING:
    from syncgrade.cli.request import Graded, Request

START_WAIT_S = 120.0
"""How long ``grade daemon start`` waits for the new daemon to answer (it imports the
grader, about a second on an idle machine; much more on a loaded one)."""


def through_daemon(request: Request) -> tuple[Graded, Path] | None:
    """``request`` graded and rendered by the daemon, with its course's folder; None when
    no daemon gave a report (the caller grades cold)."""
    from syncgrade.cli.request import Graded

    try:
        answer = daemon.call(_grade_message(request),
                             timeout=request.timeout + DEFAULT_OVERHEAD_S + 30)
        graded = Graded(text=str(answer["text"]), exercise=str(answer["exercise"]),
                        status=str(answer["status"]), score=float(answer["score"]),
                        max_score=float(answer["max_score"]),
                        internal_error=bool(answer["internal_error"]), via_daemon=True)
        return graded, Path(str(answer["course_root"]))
    except (daemon.DaemonUnavailable, KeyError, TypeError, ValueError):
        return None


def _grade_message(request: Request) -> dict[str, Any]:
    course = request.course
    if course is not None and os.path.isdir(course):
        course = os.path.abspath(course)  # the daemon runs elsewhere
    width = terminal_width() if request.terminal else 0
    from syncgrade.cli.request import use_colour

    return {"op": "grade", "exercise": request.exercise,
            "path": os.path.abspath(request.path), "display": str(request.path),
            "course": course, "format": request.fmt, "timeout": request.timeout,
            "memory_bytes": request.memory_bytes, "reveal": request.reveal,
            "passing": request.passing, "html": request.html, "width": width or None,
            "colour": request.fmt == "text" and request.terminal and use_colour(sys.stdout)}


def ping() -> dict[str, Any] | None:
    """The running daemon's status, or None."""
    try:
        return daemon.call({"op": "ping"}, timeout=10.0)
    except daemon.DaemonUnavailable:
        return None


def start_background(course: str | None, idle_s: float = daemon.IDLE_S) -> bool:
    """Start ``grade daemon run`` detached (its own session: Ctrl-C in the terminal does
    not reach it; output to ``daemon.log`` in its folder), unless one answers already.
    Returns whether one was started. Never raises for a daemon that cannot start: grades
    then go cold."""
    answer = ping()
    if answer is not None and answer.get("stale") is None:
        return False
    if answer is not None:
        _stop_quietly()
    folder = daemon.runtime_dir()
    if not daemon.private_dir(folder, create=True):
        return False
    argv = [sys.executable, "-m", "syncgrade.cli", "daemon", "run", "--idle", f"{idle_s:g}"]
    if course is not None:
        argv += ["--course", os.path.abspath(course) if os.path.isdir(course) else course]
    import subprocess

    try:
        with open(folder / "daemon.log", "ab") as log:
            subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             start_new_session=True, close_fds=True)
    except OSError:
        return False
    return True


def wait_for_daemon(limit: float) -> dict[str, Any] | None:
    """The status of the daemon once it answers, or None after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while True:
        answer = ping()
        if answer is not None or time.monotonic() >= deadline:
            return answer
        time.sleep(0.1)


def _stop_quietly() -> None:
    with contextlib.suppress(daemon.DaemonUnavailable):
        daemon.call({"op": "stop"}, timeout=10.0)


def _daemon_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grade daemon",
        description="The warm grader daemon: `grade` grades through it when it runs (a "
                    "repeat grade in a fraction of the cold time). One per user, on a "
                    "socket only you can reach; each submission still runs in its own "
                    "sandboxed child. `grade watch` starts it; it stops by itself after "
                    f"{daemon.IDLE_S / 60:g} idle minutes, or when syncgrade or the course "
                    "changes.")
    parser.add_argument("action", choices=("start", "stop", "status", "run"),
                        help="start it in the background; stop it; say whether it runs; "
                             "run: serve in the foreground (what `start` runs)")
    parser.add_argument("--idle", type=float, default=daemon.IDLE_S, metavar="SECONDS",
                        help=f"stop after this long without a grade (default: "
                             f"{daemon.IDLE_S:g})")
    add_course(parser)
    return parser


def cmd_daemon(argv: Sequence[str]) -> int:
    """``grade daemon ACTION``: exit 0, or 1 when ``status`` finds none running or
    ``start`` could not start one."""
    args = parse_anywhere(_daemon_parser(), argv)
    if args.idle <= 0:
        raise UsageError("--idle must be above 0 seconds")
    if args.action == "run":
        return _run(args)
    if args.action == "stop":
        stopped = ping() is not None
        _stop_quietly()
        print("stopped the grader daemon" if stopped else "no grader daemon was running")
        return EXIT_FULL_MARKS
    if args.action == "status":
        return _status()
    return _start(args)


def _run(args: argparse.Namespace) -> int:
    server = daemon.Daemon(idle_s=args.idle, course=args.course)
    why = daemon.serve(server, on_ready=lambda: print(
        f"grader daemon {os.getpid()} listening on {daemon.socket_path()}", flush=True))
    print(f"grader daemon {os.getpid()}: {why}", flush=True)
    return EXIT_FULL_MARKS


def _status() -> int:
    answer = ping()
    if answer is None:
        print(f"no grader daemon running ({daemon.socket_path()})")
        return EXIT_NOT_FULL
    stale = f"; stale: {answer['stale']}" if answer.get("stale") else ""
    print(f"grader daemon {answer['pid']} (syncgrade {answer['version']}) on "
          f"{daemon.socket_path()}: {answer['grades']} grade(s), up "
          f"{time.time() - float(answer['started']):.0f} s, stops after "
          f"{float(answer['idle_s']):g} s idle{stale}")
    return EXIT_FULL_MARKS


def _start(args: argparse.Namespace) -> int:
    if not start_background(args.course, args.idle):
        answer = ping()
        if answer is not None:
            print(f"the grader daemon {answer['pid']} is already running")
            return EXIT_FULL_MARKS
        print(f"could not start the grader daemon ({daemon.runtime_dir()} is not yours "
              "alone?)", file=sys.stderr)
        return EXIT_NOT_FULL
    answer = wait_for_daemon(START_WAIT_S)
    if answer is not None:
        print(f"started the grader daemon {answer['pid']} on {daemon.socket_path()}")
        return EXIT_FULL_MARKS
    print(f"the grader daemon did not answer within {START_WAIT_S:g} s; see "
          f"{daemon.runtime_dir() / 'daemon.log'}", file=sys.stderr)
    return EXIT_NOT_FULL
