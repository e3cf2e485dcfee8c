"""README's learner commands, run as written, in a copy of the checkout after the quick
start: `source .venv/bin/activate`, then the "For learners" block line by line, then the
transcript (grade start, grading from inside the exercise's folder, --open, the
missing-file line), compared with the page so it cannot drift.

The copy holds src/, exercises/, solutions/ and .gitignore under git; its `.venv` is a
link to the venv running the tests, with the copy's src/ first on the path (what the
quick start's `pip install -e .` gives it). The browser is `true` (nothing is launched)
and the page's temporary folder, which depends on the machine, is normalised. Grades: five
(four of the block's, one of the transcript's), each a child process."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _shown(command: str) -> str:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"$ {command}") + 1
    out = []
    for line in lines[start:]:
        if line.startswith("$ ") or line == "```":
            break
        out.append(line)
    return "\n".join(out) + "\n" if out else ""


def _block(after: str) -> list[str]:
    """The commands of the first ```bash block after the line ``after`` (comments cut)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index("```bash", lines.index(after)) + 1
    block = lines[start:lines.index("```", start)]
    return [line.split("  #", 1)[0].strip() for line in block]


def _checkout(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the checkout after the quick start, and the environment of a fresh
    shell in it (no SYNCGRADE_ variable, no venv active, NO_COLOR, a browser that opens
    nothing, its own temporary folder)."""
    clone = tmp_path / "clone"
    for name in ("src", "exercises", "solutions"):
        learner = ("submission.py",) if name == "exercises" else ()  # a learner's own
        shutil.copytree(ROOT / name, clone / name, ignore=shutil.ignore_patterns(
            "__pycache__", "*.egg-info", *learner))
    shutil.copy(ROOT / ".gitignore", clone / ".gitignore")
    assert sys.prefix != sys.base_prefix, "the tests run in a venv (the quick start's)"
    (clone / ".venv").symlink_to(sys.prefix)
    for command in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *command], cwd=clone, check=True, timeout=60)
    (tmp_path / "tmp").mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SYNCGRADE_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(NO_COLOR="1", BROWSER="true", TMPDIR=str(tmp_path / "tmp"),
               PYTHONPATH=str(clone / "src"))  # the editable install's package: the copy's
    return clone, env


def _bash(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``line`` in a bash that ran the quick start's ``source .venv/bin/activate``."""
    root = next(p for p in (cwd, *cwd.parents) if (p / ".venv").exists())
    return subprocess.run(["bash", "-c", f"source {root}/.venv/bin/activate && {line}"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_learner_commands_run_as_written(tmp_path: Path) -> None:
    assert _block("## Quick start")[:1] == [
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/grade exercise-1 "
        "solutions/exercise-1/solution.py"]
    assert (ROOT / "solutions" / "exercise-1" / "solution.py").is_file()
    first = _block("Then try the first exercise as a learner does. Activate the venv once "
                   "per shell: every")
    assert first == ["source .venv/bin/activate", "grade start exercise-1",
                     "grade exercise-1 --open"]  # both run below, in the learners' block
    clone, env = _checkout(tmp_path)
    # Exit codes as the README implies: 0 done, 1 a report that is not full marks (the stub).
    expected = {"grade list": 0, "grade start exercise-1": 0,
                "python exercises/exercise-1/submission.py": 0}
    commands = _block("## For learners")
    assert len(commands) == 7 and commands[:3] == list(expected)
    assert set(first[1:]) <= set(commands)
    for line in commands:
        done = _bash(line, clone, env)
        assert done.returncode == expected.get(line, 1), (line, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, (line, done.stderr)
        if line.startswith("grade exercise-1") and "--" not in line:  # the stub's report
            assert "NOT YET  score" in done.stdout, (line, done.stdout)
    folder = clone / "exercises" / "exercise-1"
    assert (folder / "submission.py").read_bytes() == (folder / "stub.py").read_bytes()
    assert (clone / "report.html").read_text().startswith("<!doctype html>")

    done = _bash("grade start exercise-3", clone, env)
    assert (done.returncode, done.stdout) == (0, _shown("grade start exercise-3"))
    assert _shown("cd exercises/exercise-3") == ""
    inside = clone / "exercises" / "exercise-3"
    done = _bash("grade --open", inside, env)  # bare: the folder's own exercise
    page = tmp_path / "tmp" / f"syncgrade-{os.getuid()}" / "exercise-3-submission.html"
    assert done.returncode == 1 and page.is_file(), done.stdout + done.stderr
    shown = _shown("grade --open")
    assert re.sub(r"/tmp/syncgrade-\w+/", "TMP/", shown) == (
        done.stdout + done.stderr).replace(str(page.parent) + "/", "TMP/")
    done = _bash("grade exercise-4", inside, env)
    assert (done.returncode, done.stdout + done.stderr) == (2, _shown("grade exercise-4"))
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=clone, capture_output=True, text=True, check=True,
                            timeout=60).stdout.splitlines()
    assert [line for line in status if not line.startswith("A ")] == ["?? report.html"]
    # ...the learner's submission.py files are all ignored by git, the course untouched.
