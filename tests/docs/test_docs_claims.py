"""Claims in README.md and docs/ held against the code, so that they cannot drift again.

Each test here guards one claim that was once wrong (issue 18): the `/healthz` example,
what CI's `grade validate` really runs, `timeout_hint_s`, the mutants file, links and
repository paths that must exist, and what `grade` raises.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
from pathlib import Path

import pytest

import syncgrade

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
COURSE = ROOT / "exercises"  # the built-in course (its solutions: SOLUTIONS)


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --- /healthz -------------------------------------------------------------------------

def test_the_healthz_example_has_every_field_the_service_returns() -> None:
    from syncgrade.service import Health

    page = _text(ROOT / "docs" / "platforms.md")
    shown = re.search(r"\$ curl -s http://127\.0\.0\.1:\d+/healthz\n(\{.*\})\n", page)
    assert shown, "docs/platforms.md shows a /healthz answer"
    example = json.loads(shown.group(1))
    assert list(example) == list(Health.model_fields)
    Health.model_validate(example)  # and each value has the right type
    row = re.search(r"\| `GET /healthz` \| `(\{.*\})` \|", page)
    assert row, "docs/platforms.md's endpoint table has a /healthz row"
    assert re.findall(r'"(\w+)"', row.group(1)) == ["status", "ok", *list(Health.model_fields)[1:]]


def test_healthz_answers_with_the_health_model() -> None:
    from syncgrade.service import Health, ServiceConfig, create_app

    app = create_app(ServiceConfig(workers=1, queue=0))
    [route] = [r for r in app.routes if getattr(r, "path", None) == "/healthz"]
    assert route.response_model is Health  # type: ignore[attr-defined]


# --- what CI runs ---------------------------------------------------------------------

def _ci_validate_command() -> list[str]:
    script = _text(ROOT / ".ci" / "run").replace("\\\n", " ")
    [line] = [ln for ln in script.splitlines()
              if "grade validate" in ln and not ln.lstrip().startswith("#")]
    words = shlex.split(line.split(".venv/bin/", 1)[1])
    # The command's own words: it runs in the background, its output to a log.
    words = list(itertools.takewhile(lambda w: not w.startswith((">", "2>", "&")), words))
    runs = re.fullmatch(r"\$\{SYNCGRADE_VALIDATE_RUNS:-(\d+)\}", words[words.index("--runs") + 1])
    assert runs, "the runs of .ci/run's validate come from SYNCGRADE_VALIDATE_RUNS"
    words[words.index("--runs") + 1] = runs.group(1)
    return words


def test_docs_say_what_ci_runs_for_validate() -> None:
    command = " ".join(_ci_validate_command())
    assert command == "grade validate --all --jobs 2 --no-corpus-grades --runs 1"
    assert f"CI (`.ci/run`) runs `{command}`" in _text(ROOT / "docs" / "validate.md")
    runs = _ci_validate_command()[-1]
    assert f"# the built-in course (CI: --runs {runs}, nightly 3)" in _text(README)
    assert "SYNCGRADE_VALIDATE_RUNS=3 bash .ci/run -m slow" in _text(ROOT / ".ci" / "run")
    assert f"with `--runs {runs}`, 3 nightly" in _text(ROOT / "docs" / "authoring.md")


def test_validate_runs_default_is_what_the_docs_say(capsys: pytest.CaptureFixture[str]) -> None:
    from syncgrade.cli import main

    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    usage = " ".join(capsys.readouterr().out.split())
    default = re.search(r"--runs N grade each file N times; verdicts must agree \(default: (\d+)\)",
                        usage)
    assert default, usage
    value = int(default.group(1))
    assert f"`--runs` (default {value})" in _text(README)
    assert f"`--runs`\ntimes (default {value}; verdicts must agree)" in _text(
        ROOT / "docs" / "authoring.md")


# --- timeout_hint_s ---------------------------------------------------------------------

def test_nothing_reads_timeout_hint_s_as_the_docs_say() -> None:
    readers = []
    for path in sorted((ROOT / "src" / "syncgrade").rglob("*.py")):
        for number, line in enumerate(_text(path).splitlines(), 1):
            if "timeout_hint_s" in line and not line.strip().startswith("timeout_hint_s:"):
                readers.append(f"{path.relative_to(ROOT)}:{number}")
    assert readers == [], ("timeout_hint_s is now used: update its row in "
                           f"docs/authoring.md, which says nothing reads it ({readers})")
    assert ("| `timeout_hint_s` | a note for whoever configures a platform (default 60): "
            "syncgrade itself never reads it;") in _text(ROOT / "docs" / "authoring.md")


# --- mutants are a mutants.toml -----------------------------------------------------------

def test_docs_describe_mutants_as_a_mutants_toml_not_a_folder() -> None:
    for page in [*PAGES, ROOT / "tests" / "corpus" / "README.md"]:
        if not page.exists():
            continue
        text = _text(page)
        assert not re.search(r"mutants/(?![\w<])|mutants folder|mutants directory"
                             r"|folder of mutants|empty mutants", text, re.IGNORECASE), page
    authoring = _text(ROOT / "docs" / "authoring.md")
    assert "`solution.py` and `mutants.toml` are there" in authoring
    exercises = sorted(p for p in COURSE.iterdir() if (p / "exercise.py").exists())
    assert exercises
    for exercise in exercises:
        assert (exercise / "mutants.toml").is_file(), exercise
        assert not (exercise / "mutants").exists(), exercise


# --- links and repository paths ---------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")
TOP = "|".join(re.escape(name) for name in
               ("src", "docs", "tests", "benchmarks", ".ci", "shared"))
REPO_PATH = re.compile(rf"(?<![\w/.$-])(?:\.\./)*((?:{TOP})/[\w./-]*[\w-])(?![\w<*/-]|\.\w)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(_text(page)):
        if re.match(r"[a-z][a-z+.-]*:", target) or target.startswith("#"):
            continue
        if not (page.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert broken == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_repository_path_named_exists(page: Path) -> None:
    missing = sorted({path for path in REPO_PATH.findall(_text(page))
                      if "*" not in path and "..." not in path
                      and not (ROOT / path).exists()})
    assert missing == []


def test_the_path_checker_catches_a_file_not_in_the_repository() -> None:
    assert REPO_PATH.findall("see `../shared/EXERCISES.md` and src/syncgrade/pool.py.") == [
        "shared/EXERCISES.md", "src/syncgrade/pool.py"]
    assert not (ROOT / "shared" / "EXERCISES.md").exists()


# --- what grade raises --------------------------------------------------------------------

def _readme_raises() -> set[str]:
    text = _text(README)
    sentence = text[text.index("`grade` raises only"):]
    sentence = sentence[:sentence.index("everything about the submission")]
    return set(re.findall(r"`(?:syncgrade\.)?([A-Z]\w*(?:Error|Exercise))`", sentence))


def test_the_readme_names_every_exception_grade_raises() -> None:
    exported = {name for name in syncgrade.__all__
                if isinstance(getattr(syncgrade, name), type)
                and issubclass(getattr(syncgrade, name), Exception)}
    assert exported == {"CourseError", "RubricError", "SubmissionError", "UnknownExercise"}
    assert _readme_raises() == exported | {"TypeError", "ValueError"}


def test_grade_raises_what_the_readme_says(tmp_path: Path) -> None:
    """Each usage error raises before any child starts (RubricError: see
    tests/rubric/test_rubric_validation.py)."""
    cases: list[tuple[type[Exception], dict[str, object]]] = [
        (syncgrade.UnknownExercise, {"exercise_id": "exercise-99", "source": "x = 1\n"}),
        (syncgrade.SubmissionError, {"exercise_id": "exercise-1"}),
        (syncgrade.SubmissionError, {"exercise_id": "exercise-1", "path": tmp_path / "no.py"}),
        (syncgrade.CourseError, {"exercise_id": "exercise-1", "source": "x = 1\n",
                                 "course": tmp_path / "no-such-course"}),
        (TypeError, {"exercise_id": "exercise-1", "path": "upload.py"}),
        (ValueError, {"exercise_id": "exercise-1", "source": "x = 1\n", "timeout": -1}),
    ]
    for error, kwargs in cases:
        with pytest.raises(error):
            syncgrade.grade(**kwargs)  # type: ignore[arg-type]
    assert {error.__name__ for error, _ in cases} | {"RubricError"} == _readme_raises()


def test_grade_new_writes_a_mutants_toml_with_one_example_as_the_docs_say(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import tomllib

    from syncgrade.cli import main

    course = tmp_path / "my-course"
    assert main(["new", "exercise-10", "--title", "T", "--course", str(course)]) == 0
    capsys.readouterr()
    folder = course / "exercise-10"
    assert (course / "course.toml").is_file()
    assert sorted(p.name for p in folder.iterdir()) == [
        "README.md", "corpus", "exercise.py", "mutants.toml", "solution.py", "stub.py"]
    mutants = tomllib.loads((folder / "mutants.toml").read_text(encoding="utf-8"))
    assert list(mutants) == ["mutant"] and len(mutants["mutant"]) == 1, mutants
    assert sorted(p.parent.name for p in (folder / "corpus").rglob("*.py")) == [
        "correct", "flawed"]
    assert ("a\n`mutants.toml` with one example mutant and one corpus file of each kind"
            in _text(ROOT / "docs" / "authoring.md"))


# --- Python names the docs give ---------------------------------------------------------

PYTHON_NAME = re.compile(r"`(syncgrade(?:\.\w+)+)(?![\w.])")


def _resolves(name: str) -> bool:
    """``name`` (``syncgrade.courses.RUBRIC_ERRORS``) is a module or an attribute path."""
    import importlib

    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_python_name_given_exists(page: Path) -> None:
    # `syncgrade.json` is a platform's configuration file, not a Python name.
    names = {n for n in PYTHON_NAME.findall(_text(page)) if n != "syncgrade.json"}
    assert sorted(n for n in names if not _resolves(n)) == []


def test_the_name_checker_catches_a_name_that_does_not_exist() -> None:
    assert PYTHON_NAME.findall("`syncgrade.rubric.RUBRIC_ERRORS` and `syncgrade.courses`") == [
        "syncgrade.rubric.RUBRIC_ERRORS", "syncgrade.courses"]
    assert not _resolves("syncgrade.rubric.RUBRIC_ERRORS")
    assert _resolves("syncgrade.courses.RUBRIC_ERRORS") and _resolves("syncgrade.rubric.Check")


# --- the check library's function paths (docs/checks.md, "Reference") --------------------

def _reference_paths() -> list[str]:
    """The `module.function` paths of the first column of docs/checks.md's check library."""
    text = _text(ROOT / "docs" / "checks.md")
    section = text.split("\n## Reference: the check library", 1)[1].split("\n## ", 1)[0]
    return [path for row in section.splitlines() if row.startswith("| `")
            for path in re.findall(r"`(\w+\.\w+)`", row.split(" | ")[0])]


def test_every_check_function_path_names_the_module_that_defines_it() -> None:
    """Each path is where the function is defined (not a re-export), the façade spells the
    check functions `c.<name>`, and every registered check's function is listed."""
    import importlib

    from syncgrade.rubric import checks as c
    from syncgrade.rubric.registry import FAMILIES, REGISTRY

    listed = set()
    for path in _reference_paths():
        module, name = path.split(".")
        fn = getattr(importlib.import_module(f"syncgrade.rubric.{module}"), name)
        assert fn.__module__ == f"syncgrade.rubric.{module}", path
        if module != "compose":
            assert getattr(c, name) is fn, path
        listed.add(fn)
    assert len(listed) >= 28
    registered = {d.fn for d in [*REGISTRY.values(), *FAMILIES.values()]}
    assert registered - listed == set()
