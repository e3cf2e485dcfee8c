"""The progress record (issue 27): written atomically, keyed by course and exercise, read
back by `grade progress` and `grade watch`; a corrupt record is ignored with one line."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from syncgrade import progress
from syncgrade.cli import main
from syncgrade.courses import open_course


def _entry(status: str, score: float, max_score: float = 12.0) -> progress.Entry:
    return progress.entry_of(status, score, max_score, Path("submission.py"))


def test_a_record_is_read_back_per_course_and_exercise(tmp_path: Path) -> None:
    record = tmp_path / "state" / "progress.json"
    assert progress.record("/course/a", "exercise-1", _entry("failed", 8.0), record) is None
    assert progress.record("/course/a", "exercise-1", _entry("passed", 12.0), record) is None
    assert progress.record("/course/b", "exercise-1", _entry("failed", 3.0), record) is None
    a, note = progress.entries("/course/a", record)
    b, _ = progress.entries("/course/b", record)
    assert note is None
    assert a["exercise-1"].done and a["exercise-1"].score == 12.0  # the last grade wins
    assert not b["exercise-1"].done and b["exercise-1"].score == 3.0
    assert a["exercise-1"].file == os.path.abspath("submission.py")
    assert [p.name for p in record.parent.iterdir()] == ["progress.json"]  # no temp left
    assert progress.first_not_done(["exercise-1", "exercise-2"], a) == "exercise-2"
    assert progress.first_not_done(["exercise-1"], a) is None


def test_the_state_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert progress.record_path() == tmp_path / "syncgrade" / "progress.json"
    monkeypatch.setenv("XDG_STATE_HOME", "relative/not/allowed")
    assert progress.state_dir() == Path.home() / ".local" / "state" / "syncgrade"


@pytest.mark.parametrize("text", ["{not json", '{"version": 1, "courses": []}',
                                  '{"version": 99, "courses": {}}', "\xff\xfe"])
def test_a_corrupt_record_is_ignored_with_a_note_then_replaced(tmp_path: Path,
                                                              text: str) -> None:
    record = tmp_path / "progress.json"
    record.write_bytes(text.encode("latin-1"))
    entries, note = progress.entries("/course", record)
    assert entries == {} and note is not None and "\n" not in note
    assert str(record) in note
    assert progress.record("/course", "exercise-1", _entry("passed", 12.0), record) == note
    assert progress.entries("/course", record)[0]["exercise-1"].done


def test_grade_progress_lists_each_exercise_and_the_next(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    course = open_course(None)
    first, second = list(course.exercises)[:2]
    progress.record(course.root, first, _entry("passed", 13.0, 13.0))
    progress.record(course.root, second, _entry("failed", 8.0))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["progress"]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].split()[:3] == [first, "done", "13/13"]
    assert lines[1].split()[:4] == [second, "not", "yet", "8/12"]
    assert f"1 of {len(course.exercises)} at full marks. Next: `grade watch {second}`." \
        in out.getvalue()
    assert err.getvalue() == ""
    progress.record_path().write_text("{broken")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["progress"]) == 0
    assert err.getvalue().startswith("grade: ignored the progress record")
    assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()
    assert f"0 of {len(course.exercises)} at full marks" in out.getvalue()


def test_the_readme_shows_what_grade_progress_prints(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    start = lines.index("$ grade progress") + 1
    shown = lines[start:lines.index("```", start)]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("SYNCGRADE_COURSE", raising=False)
    course = open_course(None)
    progress.record(course.root, "exercise-1", _entry("passed", 13.0, 13.0))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["progress"]) == 0
    assert out.getvalue().splitlines() == shown


def test_only_the_learners_submission_is_progress(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    """Grading a scratch file (or a corpus file) never overwrites the learner's grade:
    only ``exercises/EXERCISE/submission.py``, where `grade start` writes, is recorded."""
    from syncgrade.cli.grade import is_submission

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("SYNCGRADE_DAEMON", "0")
    monkeypatch.delenv("SYNCGRADE_COURSE", raising=False)
    course = open_course(None)
    progress.record(course.root, "exercise-1", _entry("passed", 12.0))
    scratch = tmp_path / "scratch.py"
    mine = tmp_path / "exercises" / "exercise-1" / "submission.py"
    mine.parent.mkdir(parents=True)
    for path in (scratch, mine.parent / "attempt.py", mine):
        path.write_text("def synchronized_samples(fn, args, repeats:\n")
    for path in (scratch, mine.parent / "attempt.py"):
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["exercise-1", str(path)]) == 1
        assert progress.entries(course.root)[0]["exercise-1"].done  # still done
    monkeypatch.chdir(mine.parent)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([]) == 1  # bare `grade` in the exercise's folder: its submission
    entry = progress.entries(course.root)[0]["exercise-1"]
    assert not entry.done and entry.file == str(mine)
    assert is_submission(Path("submission.py"), "exercise-1")  # from its folder
    assert not is_submission(mine, "exercise-2")
    assert not is_submission(course.folder("exercise-1").corpus_files("correct")[0],
                             "exercise-1")
