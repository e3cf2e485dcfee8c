"""`grade start` and packaging: the built-in course's declarations, statements and stubs
ship in the wheel; its solutions, mutants and corpus never do."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from syncgrade.courses import EXERCISES
from syncgrade.starter import StarterError, start

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "src" / "syncgrade" / "course"  # the built-in course


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_start_copies_statement_and_stub(tmp_path: Path, exercise: str) -> None:
    written = start(exercise, tmp_path)
    stub = COURSE / exercise / "stub.py"
    assert [p.name for p in written] == ["README.md", "submission.py"]
    assert written[1].read_bytes() == stub.read_bytes()


def test_start_never_overwrites_work_without_force(tmp_path: Path) -> None:
    (submission := start("exercise-1", tmp_path)[1]).write_text("# my work\n")
    with pytest.raises(StarterError, match="already exists"):
        start("exercise-1", tmp_path)
    assert submission.read_text() == "# my work\n"
    start("exercise-1", tmp_path, force=True)
    assert submission.read_text() != "# my work\n"


def test_cli_start_reports_what_it_wrote(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "syncgrade.cli", "start", "exercise-1"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "wrote exercises/exercise-1/submission.py" in result.stdout
    again = subprocess.run([sys.executable, "-m", "syncgrade.cli", "start", "exercise-1"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and "--force" in again.stderr


@pytest.mark.wheel
def test_wheel_ships_the_builtin_course_but_no_solutions(built_wheel: Path) -> None:
    names = zipfile.ZipFile(built_wheel).namelist()
    assert "syncgrade/course/course.toml" in names
    for exercise in EXERCISES:
        for name in ("exercise.py", "README.md", "stub.py"):
            assert f"syncgrade/course/{exercise}/{name}" in names, (exercise, name)
    shipped = [n for n in names if n.startswith("syncgrade/course/")]
    assert not [n for n in shipped if n.rsplit("/", 1)[-1] in ("solution.py", "mutants.toml")
                or "/corpus/" in n]
    assert not [n for n in names if "solution" in n.lower()]
    solution = (COURSE / "exercise-1" / "solution.py").read_bytes()
    with zipfile.ZipFile(built_wheel) as archive:
        assert all(archive.read(n) != solution for n in names if n.endswith(".py"))
