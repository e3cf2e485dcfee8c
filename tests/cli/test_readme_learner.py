"""README's learner transcript (grade start, grading from inside the exercise's folder,
--open, the missing-file line) run through the CLI in a fresh folder and compared with the
page, so it cannot drift. The browser is replaced (nothing is launched) and the page's
temporary folder, which depends on the machine, is normalised."""

from __future__ import annotations

import re
import tempfile
import webbrowser
from pathlib import Path

import pytest

from syncgrade.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def _shown(command: str) -> str:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"$ {command}") + 1
    out = []
    for line in lines[start:]:
        if line.startswith("$ ") or line == "```":
            break
        out.append(line)
    return "\n".join(out) + "\n" if out else ""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


def test_the_learner_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("SYNCGRADE_COURSE", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    opened: list[str] = []

    def browser(url: str, *_: object, **__: object) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", browser)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)

    assert _run(capsys, "start", "exercise-3") == (0, _shown("grade start exercise-3"))
    assert _shown("cd exercises/exercise-3") == ""
    monkeypatch.chdir(work / "exercises" / "exercise-3")

    code, out = _run(capsys, "exercise-3", "--open")
    assert code == 1 and len(opened) == 1
    page = Path(opened[0].removeprefix("file://"))
    assert page.parent.parent == tmp_path / "tmp" and page.name == "exercise-3-submission.html"
    shown = _shown("grade exercise-3 --open")
    assert re.sub(r"/tmp/syncgrade-\w+/", "TMP/", shown) == out.replace(
        str(page.parent) + "/", "TMP/")

    assert _run(capsys, "exercise-4") == (2, _shown("grade exercise-4"))
