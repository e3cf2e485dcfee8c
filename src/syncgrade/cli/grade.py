"""``grade EXERCISE [PATH]``, ``grade list`` and ``grade start``: grading one file, the
catalogue, and copying an exercise's stub.

Where the learner's files are: a *workspace* is the folder that holds ``exercises/``
(:func:`workspace`); ``grade start`` writes ``exercises/EXERCISE/`` there, and
``grade EXERCISE`` without a path grades ``exercises/EXERCISE/submission.py`` there, so
both work from the workspace, from ``exercises/`` and from ``exercises/EXERCISE/``.

``--format html`` is one self-contained page (:func:`syncgrade.picture.render_html`);
``--open`` writes it to a file (``--out FILE``, else :func:`open_path`) and opens it in
the browser.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from syncgrade.cli.common import (
    EXIT_FULL_MARKS,
    OUTPUT_FORMATS,
    HelpFormatter,
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
    prestart_hidden,
)
from syncgrade.cli.request import Graded, Request, use_colour
from syncgrade.limits import GIB
from syncgrade.version import __version__

if TYPE_CHECKING:
    from syncgrade.models import GradeReport

GRADE_FORMATS = (*OUTPUT_FORMATS[:2], "html", *OUTPUT_FORMATS[2:])
"""``grade --format``: every output format, and the HTML report (one learner's page, so
not a batch or service format)."""
WORKSPACE = "exercises"
SUBMISSION = "submission.py"


def grade_parser() -> argparse.ArgumentParser:
    """The argument parser of ``grade EXERCISE [PATH]`` (its options and help text)."""
    parser = argparse.ArgumentParser(
        prog="grade", formatter_class=HelpFormatter,
        description="Grade a syncgrade exercise: what did your timer really measure?",
        epilog="Other commands: `grade list` shows the exercises; `grade start EXERCISE` "
               "copies an exercise's statement and stub into ./exercises/; `grade watch "
               "[EXERCISE]` grades your file each time you save it and moves on at full "
               "marks; `grade progress` shows which exercises are done; `grade daemon "
               "start|stop|status`: the warm grader daemon, which `grade` uses when it "
               "runs. Options go anywhere: `grade exercise-1 --json my.py` works.",
    )
    parser.add_argument("exercise", nargs="?",
                        help="exercise id, e.g. exercise-1 (see `grade list`; default: the "
                             "exercise whose folder you are in, exercises/EXERCISE/)")
    parser.add_argument("path", nargs="?", type=Path,
                        help="the file to grade (default: exercises/EXERCISE/submission.py, "
                             "found from the folder holding exercises/ or from inside it)")
    parser.add_argument("--format", choices=GRADE_FORMATS, default=None,
                        help="text: the terminal view (default); json: exactly one "
                             "GradeReport; html: one self-contained page with the pictures; "
                             "gradescope, prairielearn, exercism: that platform's "
                             "results.json. Nothing else goes to stdout")
    parser.add_argument("--json", action="store_true",
                        help="the same as --format json")
    parser.add_argument("--out", "--output", "-o", type=Path, metavar="FILE",
                        help="write the report to FILE instead of stdout")
    parser.add_argument("--open", action="store_true",
                        help="write the HTML report to a file (--out FILE, else a "
                             "syncgrade folder in the system's temporary folder) and open "
                             "it in your browser")
    parser.add_argument("--passing", action="store_true",
                        help="with --format html or --open: draw the intervals of passing "
                             "checks too, not only of failing ones")
    add_platform_html(parser)
    add_reveal(parser)
    add_timeout(parser)
    add_memory(parser)
    add_course(parser)
    parser.add_argument("--version", action="version", version=f"syncgrade {__version__}")
    return parser


def workspace(cwd: Path) -> Path:
    """The folder that holds (or will hold) ``exercises/``: ``cwd`` when it has an
    ``exercises/`` folder; else the folder above ``cwd`` when ``cwd`` *is* an
    ``exercises/`` folder, two above when it is an exercise's folder inside one
    (``exercises/exercise-3/``); else ``cwd``. ``grade start`` and ``grade EXERCISE``
    share it, so both work from anywhere in a learner's exercises."""
    if (cwd / WORKSPACE).is_dir():
        return cwd
    if cwd.name == WORKSPACE:
        return cwd.parent
    if cwd.parent.name == WORKSPACE:
        return cwd.parent.parent
    return cwd


def _cwd() -> Path:
    """The current folder; a :class:`UsageError` when it was deleted under the shell."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        raise UsageError("the current folder no longer exists; `cd` into your work "
                         "and run this again") from None


def _shown(path: Path, cwd: Path) -> Path:
    """``path`` as the learner would type it from ``cwd``."""
    try:
        return Path(os.path.relpath(path, cwd))
    except ValueError:  # another drive (Windows)
        return path


def exercise_here(cwd: Path) -> str:
    """The exercise bare ``grade`` grades: the one whose folder ``cwd`` is
    (``exercises/EXERCISE/``, where ``grade start`` writes). Anywhere else a
    :class:`UsageError` saying to name it."""
    if cwd.parent.name == WORKSPACE:
        return cwd.name
    raise UsageError("which exercise? e.g. `grade exercise-1` (`grade list` shows them), "
                     "or run `grade` inside exercises/EXERCISE/")


def submission_path(exercise_id: str, given: Path | None, cwd: Path) -> Path:
    """The file ``grade EXERCISE [PATH]`` grades, as the learner would type it from
    ``cwd``: ``given`` (a folder: its ``submission.py``), else the workspace's
    ``exercises/EXERCISE/submission.py`` (:func:`workspace`). A missing file is a
    :class:`UsageError` whose one line says which command would have worked."""
    if given is not None:
        if given.is_dir() and (given / SUBMISSION).is_file():
            return given / SUBMISSION
        if not given.is_file():
            what = "is a folder with no submission.py" if given.is_dir() else "no such file"
            raise UsageError(f"{what}: {given}")
        return given
    path = workspace(cwd) / WORKSPACE / exercise_id / SUBMISSION
    if path.is_file():
        return _shown(path, cwd)
    raise UsageError(_missing_message(exercise_id, _shown(path, cwd), cwd))


def _missing_message(exercise_id: str, shown: Path, cwd: Path) -> str:
    """What to say when the default submission is missing: the commands that would work."""
    give = f"or give the file: `grade {exercise_id} path/to/file.py`"
    other = cwd.name if cwd.parent.name == WORKSPACE else ""
    if (cwd / SUBMISSION).is_file() and other and other != exercise_id:
        return (f"no {shown} yet (this folder is {other}'s); run `grade start "
                f"{exercise_id}` first, {give}")
    if (cwd / SUBMISSION).is_file():
        return (f"no {shown} here, but there is a {SUBMISSION}: "
                f"`grade {exercise_id} {SUBMISSION}` grades it")
    return f"no {shown} here; run `grade start {exercise_id}` first, {give}"


def cmd_list(argv: Sequence[str]) -> int:
    """``grade list [--json]``: the course's exercises and titles (or its catalogue as
    JSON) on stdout; a left-out exercise's error on stderr. Exit 0."""
    parser = argparse.ArgumentParser(prog="grade list", description="List the exercises.")
    parser.add_argument("--json", action="store_true",
                        help="print the catalogue as JSON: each exercise's id, title, rubric "
                             "version, max_score and checks (id, title, points, visibility)")
    add_course(parser)
    args = parse_anywhere(parser, argv)
    course = open_course(args.course)
    if args.json:
        from syncgrade.schema import catalogue

        sys.stdout.write(catalogue(course).model_dump_json(indent=2) + "\n")
        return EXIT_FULL_MARKS
    width = max((len(e) for e in course.exercises), default=0)
    for exercise in course.exercises.values():
        print(f"{exercise.id:<{width}}  {exercise.title}")
    for exercise_id, error in course.errors.items():  # the author's to fix: say so
        print(f"grade list: {exercise_id} left out: {error}", file=sys.stderr)
    return EXIT_FULL_MARKS


def cmd_start(argv: Sequence[str]) -> int:
    """``grade start EXERCISE [--force]``: the pristine statement and stub into the
    workspace's ``exercises/EXERCISE/`` (:func:`workspace`), each file written named on
    stdout. Exit 0; an existing file (without ``--force``) is a :class:`UsageError`."""
    parser = argparse.ArgumentParser(
        prog="grade start",
        description="Copy an exercise's README.md and stub into ./exercises/EXERCISE/ "
                    "(from inside exercises/, into that folder; in syncgrade's own checkout, "
                    "where exercises/ is the course, only the stub, as submission.py). The "
                    "stub always comes from the course as it shipped; --force puts it back "
                    "over your edits.")
    parser.add_argument("exercise", help="exercise id, e.g. exercise-1")
    parser.add_argument("--force", action="store_true",
                        help="overwrite existing files with the pristine ones")
    add_course(parser)
    args = parse_anywhere(parser, argv)
    course = open_course(args.course)
    known_exercise(args.exercise, course)
    from syncgrade.starter import StarterError, start

    cwd = _cwd()
    try:
        written = start(args.exercise, workspace(cwd), force=args.force, course=course)
    except StarterError as exc:
        raise UsageError(str(exc)) from None
    for path in written:
        print(f"wrote {_shown(path, cwd)}")
    folder = written[-1].parent  # the statement is there even when not copied (a checkout)
    print(f"Read {_shown(folder / 'README.md', cwd)}, edit {_shown(written[-1], cwd)}, "
          f"then run `grade {args.exercise}`.")
    return EXIT_FULL_MARKS


def _output_format(args: argparse.Namespace) -> str:
    """The one format the options ask for; conflicting options are a usage error."""
    if args.json and args.format not in (None, "json"):
        raise UsageError(f"--json means --format json; give only --format {args.format}")
    fmt: str = "json" if args.json else (args.format or "text")
    if args.open and fmt != "html":
        if args.format is not None or args.json:
            raise UsageError(f"--open opens the HTML report; leave out --format {fmt}")
        fmt = "html"
    check_platform_html(args.html, fmt)
    if args.passing and fmt != "html":
        raise UsageError("--passing draws pictures: use it with --format html or --open")
    if args.out is not None and (args.out.is_dir() or not args.out.parent.is_dir()):
        raise UsageError(f"--out {args.out}: not a file in an existing folder")
    return fmt


def cmd_grade(argv: Sequence[str]) -> int:
    """``grade EXERCISE [PATH]``: grade one file and write its report (stdout, ``--out``,
    or ``--open``'s page). Exit 0 full marks, 1 not, 3 a grader fault; every mistake in
    the call is one :class:`UsageError` line, and those of options, a missing file and an
    ``--out`` outside an existing folder come before anything is graded. Through the
    user's grader daemon when one runs (:mod:`syncgrade.daemon`), else cold; either way
    the result is recorded in the progress record (:mod:`syncgrade.progress`)."""
    args = parse_anywhere(grade_parser(), argv)
    fmt = _output_format(args)
    if args.exercise is None:
        args.exercise = exercise_here(_cwd())
    try:
        path = submission_path(args.exercise, args.path, _cwd())
    except UsageError:  # an unknown exercise is the first thing to say
        known_exercise(args.exercise, open_course(args.course))
        raise
    graded = grade_one(Request(
        exercise=args.exercise, path=path, course=args.course, fmt=fmt,
        timeout=args.timeout, memory_bytes=int(args.memory * GIB), reveal=args.reveal,
        passing=args.passing, html=args.html,
        terminal=args.out is None and not args.open))
    if args.open:
        _open_in_browser(graded.text, args.out or open_path(graded.exercise, path))
    elif args.out is not None:
        _write(args.out, graded.text)
    else:
        sys.stdout.write(graded.text)
    if graded.note:
        print(f"grade: {graded.note}", file=sys.stderr)
    return graded.exit_code


def grade_one(request: Request) -> Graded:
    """Grade and render ``request``: through the grader daemon when one answers
    (:func:`syncgrade.cli.daemon.through_daemon`), else cold, exactly as before the
    daemon existed; then, for the learner's own submission only
    (:func:`is_submission`), record the result (:mod:`syncgrade.progress`)."""
    from syncgrade.cli.daemon import through_daemon

    served = through_daemon(request) if request.use_daemon else None
    graded, root = served if served is not None else _grade_cold(request)
    if not is_submission(request.path, graded.exercise):
        return graded  # a scratch file, a corpus file: not the learner's progress
    from syncgrade import progress

    note = progress.record(root, graded.exercise, progress.entry_of(
        graded.status, graded.score, graded.max_score, request.path))
    return graded._replace(note=note or "")


def is_submission(path: Path, exercise_id: str) -> bool:
    """Whether ``path`` is the learner's submission of ``exercise_id``: a file
    ``exercises/EXERCISE/submission.py``, where ``grade start`` writes it (in a checkout
    and in a workspace alike), reached from any folder. Only its grades are progress:
    grading a scratch copy must not overwrite "done" with "not yet"."""
    absolute = Path(os.path.abspath(path))
    return (absolute.name == SUBMISSION and absolute.parent.name == exercise_id
            and absolute.parent.parent.name == WORKSPACE)


def _grade_cold(request: Request) -> tuple[Graded, Path]:
    """The grade in this process, its child pre-started first (issue 10)."""
    from syncgrade.pool import prestart

    # The child starts importing jax now, while this process imports the grader (issue 10).
    pool = prestart(request.timeout, request.memory_bytes,
                    hidden=prestart_hidden(request.course))
    course = open_course(request.course)
    known_exercise(request.exercise, course)
    from syncgrade.grading import SubmissionError, grade_result

    try:
        result = grade_result(request.exercise, request.path, timeout=request.timeout,
                              memory_bytes=request.memory_bytes, pool=pool, course=course,
                              draw_passing=request.passing)
    except SubmissionError as exc:
        raise UsageError(str(exc)) from None
    report = result.report  # quoted from the lines graded: the file may have changed since
    text = _render(report, request.fmt, reveal=request.reveal, lines=result.source_lines,
                   terminal=request.terminal, html=request.html, passing=request.passing)
    return Graded(text=text, exercise=report.exercise, status=report.status,
                  score=report.score, max_score=report.max_score,
                  internal_error=bool(report.grading.internal_error),
                  via_daemon=False), course.root


def _render(report: GradeReport, fmt: str, *, reveal: bool, lines: Sequence[str] | None,
            terminal: bool, html: bool = False, passing: bool = False) -> str:
    """The report in ``fmt`` (:func:`syncgrade.daemon.render_report`, which the daemon
    renders with too); colour only for the text view on a terminal."""
    from syncgrade.daemon import render_report

    return render_report(report, fmt, reveal=reveal, lines=lines, html=html,
                         passing=passing, colour=fmt == "text" and terminal
                         and use_colour(sys.stdout))


def _write(path: Path, text: str) -> None:
    """``text`` into ``path`` (UTF-8); a failure is one :class:`UsageError` line."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


def open_path(exercise_id: str, submission: Path) -> Path:
    """Where ``--open`` writes without ``--out``: ``<temp>/syncgrade-<user>/
    <exercise>-<file stem>.html``, in a folder only this user can read. Never next to the
    submission (that may be a checkout's tracked folder, or read-only); the next
    ``--open`` of the same file replaces it, so reports do not pile up."""
    import tempfile

    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    folder = Path(tempfile.gettempdir()) / f"syncgrade-{user}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
        if not folder.is_dir() or folder.is_symlink() or (
                hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise PermissionError(f"{folder} is not this user's")
    except OSError:  # someone else's folder by that name: a fresh private one
        folder = Path(tempfile.mkdtemp(prefix="syncgrade-"))
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in submission.stem)
    return folder / f"{exercise_id}-{stem or 'submission'}.html"


def _open_in_browser(text: str, path: Path) -> None:
    """Write the page and open it in the reader's browser (``$BROWSER`` when set, as
    :mod:`webbrowser` does); say where it is either way."""
    import webbrowser

    _write(path, text)
    url = path.resolve().as_uri()
    try:
        opened = webbrowser.open(url)
    except (webbrowser.Error, OSError):
        opened = False
    if opened:
        print(f"opened {url}")
    else:
        print(f"wrote {path}; no browser could be opened here, open {url} in yours")
