"""`grade start` and packaging: the stubs ship in the wheel, the solutions never do."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from syncgrade.rubric import EXERCISES
from syncgrade.starter import StarterError, start

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("exercise", list(EXERCISES))
def test_start_copies_statement_and_stub(tmp_path: Path, exercise: str) -> None:
    written = start(exercise, tmp_path)
    stub = ROOT / "exercises" / exercise / "submission.py"
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


def test_wheel_ships_stubs_and_no_solutions(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("syncgrade-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for exercise in EXERCISES:
        assert f"syncgrade/stubs/{exercise}/submission.py" in names
        assert f"syncgrade/stubs/{exercise}/README.md" in names
    assert not [n for n in names if "solution" in n.lower()]
    solution = (ROOT / "solutions" / "exercise-1" / "submission.py").read_bytes()
    with zipfile.ZipFile(wheel) as archive:
        assert all(archive.read(n) != solution for n in names if n.endswith(".py"))
