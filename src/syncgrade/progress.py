"""The learner's progress: the last grade of each exercise, in a small JSON file of the
user's own (issue 27).

``$XDG_STATE_HOME/syncgrade/progress.json`` (else ``~/.local/state/syncgrade/``), keyed
by the course's folder and the exercise id::

    {"version": 1, "courses": {"/abs/course/root": {"exercise-1":
        {"status": "passed", "score": 12.0, "max_score": 12.0,
         "file": "/abs/path/submission.py", "graded_at": 1733440000.0}}}}

Every ``grade`` of the learner's submission (``exercises/EXERCISE/submission.py``, the
file ``grade start`` writes) from the command line (directly, through the grader daemon,
or in ``grade watch``) records its result here, and no other file's grade does (a scratch
copy graded "not yet" never overwrites "done"); ``grade progress`` and ``grade watch``
without an exercise read it. The file is written atomically (a temporary file in the same
folder, then ``os.replace``), so a reader never sees half of it. A file that cannot be
read as such a record (corrupt, another version) is ignored and then replaced by the next
write: the functions return a one-line note saying so, and never raise for it. Nothing
here prints (the entry points do) or imports the grader.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1
FILE_NAME = "progress.json"


@dataclass(frozen=True)
class Entry:
    """The last grade of one exercise: its status (``passed`` is full marks), score."""

    status: str
    score: float
    max_score: float
    file: str = ""
    graded_at: float = 0.0

    @property
    def done(self) -> bool:
        return self.status == "passed"


def state_dir() -> Path:
    """``$XDG_STATE_HOME/syncgrade`` when the variable is an absolute path (the XDG rule),
    else ``~/.local/state/syncgrade``."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / "syncgrade"


def record_path() -> Path:
    return state_dir() / FILE_NAME


def _course_key(course_root: Path | str) -> str:
    return os.path.realpath(course_root)


def load(path: Path | None = None) -> tuple[dict[str, dict[str, Entry]], str | None]:
    """Every course's entries by exercise id, and a note when the file was there but not
    usable (it is then treated as empty). A missing file is no progress, with no note."""
    path = path or record_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:
        return {}, _ignored(path, f"{type(exc).__name__}")
    try:
        return _parse(data), None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return {}, _ignored(path, str(exc) or type(exc).__name__)


def _ignored(path: Path, why: str) -> str:
    return f"ignored the progress record {path} ({why}); it starts afresh"


def _parse(data: Any) -> dict[str, dict[str, Entry]]:
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        raise ValueError("not a version-1 progress record")
    if not isinstance(data.get("courses"), dict):
        raise ValueError("no courses in it")
    courses: dict[str, dict[str, Entry]] = {}
    for root, exercises in data["courses"].items():
        courses[str(root)] = {
            str(exercise_id): Entry(status=str(e["status"]), score=float(e["score"]),
                                    max_score=float(e["max_score"]),
                                    file=str(e.get("file", "")),
                                    graded_at=float(e.get("graded_at", 0.0)))
            for exercise_id, e in dict(exercises).items()}
    return courses


def entries(course_root: Path | str, path: Path | None = None
            ) -> tuple[dict[str, Entry], str | None]:
    """The entries of one course by exercise id, and :func:`load`'s note."""
    courses, note = load(path)
    return courses.get(_course_key(course_root), {}), note


def record(course_root: Path | str, exercise_id: str, entry: Entry,
           path: Path | None = None) -> str | None:
    """Store ``entry`` as the last grade of ``exercise_id`` in the course at
    ``course_root``, atomically. Returns a one-line note when an unusable record was
    replaced or the record could not be written (a read-only home, a full disk): the
    grade itself never fails for its progress record."""
    path = path or record_path()
    courses, note = load(path)
    courses.setdefault(_course_key(course_root), {})[exercise_id] = entry
    data = {"version": FORMAT_VERSION,
            "courses": {root: {ex: _as_json(e) for ex, e in exercises.items()}
                        for root, exercises in courses.items()}}
    try:
        _write_atomically(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    except OSError as exc:
        return f"could not save your progress in {path}: {exc.strerror or exc}"
    return note


def _as_json(entry: Entry) -> Mapping[str, object]:
    return {"status": entry.status, "score": entry.score, "max_score": entry.max_score,
            "file": entry.file, "graded_at": entry.graded_at}


def _write_atomically(path: Path, text: str) -> None:
    """``text`` into ``path`` through a temporary file in the same folder and a rename,
    so that a reader (or a second ``grade``) sees the old record or the new, whole."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)  # no fsync: a reader sees either whole file, and a
        # record lost in a power cut is one grade to redo, not worth a disk flush a grade
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def entry_of(status: str, score: float, max_score: float, file: Path | str) -> Entry:
    """An :class:`Entry` for a grade just made, stamped now."""
    return Entry(status=status, score=score, max_score=max_score,
                 file=os.path.abspath(file), graded_at=time.time())


def first_not_done(exercise_ids: list[str], done: Mapping[str, Entry]) -> str | None:
    """The first of ``exercise_ids`` (course order) whose last grade was not full marks
    (or that was never graded); None when every one is done."""
    for exercise_id in exercise_ids:
        entry = done.get(exercise_id)
        if entry is None or not entry.done:
            return exercise_id
    return None
