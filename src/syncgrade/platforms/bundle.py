"""The bundles ``grade package`` writes: what an instructor uploads to or commits on a
platform to grade one exercise, and the learner-facing course wheel.

Pure file building (the standard library only; no course loading, no printing): the
caller passes the paths of the exercise's files, and every function returns bytes or
writes one zip. Each zip is reproducible: every entry has :data:`TIMESTAMP`, a fixed mode
and a fixed place in the order, so the same inputs give byte-identical output whenever
the files were last touched and wherever the output is written.

What ships of a course: its ``course.toml`` and, of the one exercise a platform bundle
grades, :data:`SHIPPED` (the declaration, statement and stub). Never a solution,
mutants, corpus or another exercise: :data:`NEVER_SHIPPED` names them, and the tests
read every bundle's file list against it.

- Gradescope (:func:`gradescope_entries`): ``setup.sh``, ``run_autograder``,
  ``syncgrade.json``, ``wheels/`` (syncgrade's wheel with only the exercise of its
  built-in course), ``course/`` (a course folder's shipped files).
- PrairieLearn (:func:`prairielearn_entries`): ``grader-image/`` (a ``Dockerfile`` and
  the wheel: the external-grader image), ``questions/<qid>/`` (``info.json``,
  ``question.html``, ``stub.py`` shown in the editor, ``clientFilesQuestion/README.md``
  the statement, ``tests/syncgrade.json``), ``serverFilesCourse/syncgrade/course/`` (a
  course folder's shipped files) and a ``README.md`` saying where each goes.
- Exercism (:func:`exercism_entries`): ``test-runner/`` (``Dockerfile``,
  ``bin/run.sh``, the wheel, ``course/``) and ``exercises/practice/<slug>/``
  (``.docs/instructions.md`` the statement, ``.meta/config.json``, the stub as
  ``submission.py``) and a ``README.md``.
- The learner's course wheel (:func:`course_wheel`): a package holding a course folder's
  ``course.toml`` and every exercise's :data:`SHIPPED` files, with an entry point in the
  group ``syncgrade.courses`` so ``grade --course NAME`` finds it once installed.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
import uuid
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

EXECUTABLE = 0o755
READABLE = 0o644
TIMESTAMP = (2024, 1, 1, 0, 0, 0)  # every entry's: the same input gives the same bytes
SHIPPED = ("exercise.py", "README.md", "stub.py")
"""What a bundle carries of the exercise it grades: its declaration, statement and stub.
Never its solution, mutants or corpus, nor any other exercise of the course."""
NEVER_SHIPPED = ("solution.py", "mutants.toml", "corpus/")
"""Names no bundle entry may end with (or, for ``corpus/``, contain)."""
WHEEL_COURSE = "syncgrade/course/"  # the built-in course inside syncgrade's wheel
COURSE_TOML = "course.toml"
GROUP = "syncgrade.courses"


@dataclass(frozen=True)
class Entry:
    """One file of a bundle: its name in the zip, its bytes, its mode."""

    name: str
    data: bytes
    mode: int = READABLE


class BundleError(Exception):
    """An input a bundle cannot be made from (a wheel that is not a zip); one line."""


def write_zip(target: Path, entries: Iterable[Entry]) -> list[str]:
    """Write ``entries`` as a zip at ``target`` in the order given (each with
    :data:`TIMESTAMP`, its mode, Unix attributes); returns the names written. Raises
    :class:`OSError` when ``target`` cannot be written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    written = []
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for entry in entries:
            add(bundle, entry.name, entry.data, entry.mode)
            written.append(entry.name)
    return written


def add(bundle: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    """Add one entry with the fixed timestamp and ``mode`` (read as Unix wherever the
    zip is made)."""
    info = zipfile.ZipInfo(name, date_time=TIMESTAMP)
    info.external_attr = (0o100000 | mode) << 16  # a regular file with these permissions
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3  # Unix
    bundle.writestr(info, data)


def zip_bytes(entries: Iterable[Entry]) -> bytes:
    """``entries`` as the bytes of a reproducible zip (see :func:`write_zip`)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as bundle:
        for entry in entries:
            add(bundle, entry.name, entry.data, entry.mode)
    return out.getvalue()


# ------------------------------------------------------------------ what ships


def shipped_course_files(course_dir: Path, exercise: str) -> list[Path]:
    """The files of ``course_dir`` a bundle for ``exercise`` carries, sorted: its
    ``course.toml`` and :data:`SHIPPED` of the exercise's folder (those that exist)."""
    candidates = [course_dir / COURSE_TOML, *(course_dir / exercise / n for n in SHIPPED)]
    return sorted(p for p in candidates if p.is_file())


def course_entries(course_dir: Path | None, exercise: str, prefix: str) -> list[Entry]:
    """:func:`shipped_course_files` as entries under ``prefix`` (none without a folder)."""
    if course_dir is None:
        return []
    return [Entry(prefix + p.relative_to(course_dir).as_posix(), p.read_bytes())
            for p in shipped_course_files(course_dir, exercise)]


def _shipped_from_wheel(name: str, exercise: str) -> bool:
    """Whether the wheel entry ``name`` stays: everything but the built-in course's
    exercise folders, of which only ``exercise``'s :data:`SHIPPED` files stay."""
    if not name.startswith(WHEEL_COURSE):
        return True
    parts = name[len(WHEEL_COURSE):].split("/")
    if len(parts) == 1:
        return True  # course.toml
    return len(parts) == 2 and parts[0] == exercise and parts[1] in SHIPPED


def exercise_only_wheel(wheel: Path, exercise: str) -> bytes:
    """``wheel`` rewritten with only ``exercise`` of its built-in course (see
    :func:`_shipped_from_wheel`), its ``RECORD`` without the lines of what was left out,
    and every entry with :data:`TIMESTAMP` and its original mode: the same wheel gives
    the same bytes. Raises :class:`BundleError` when ``wheel`` is not a zip."""
    try:
        with zipfile.ZipFile(wheel) as source:
            kept = [i for i in source.infolist()
                    if not i.is_dir() and _shipped_from_wheel(i.filename, exercise)]
            names = {i.filename for i in kept}
            entries = []
            for info in kept:
                data = source.read(info)
                if info.filename.endswith(".dist-info/RECORD"):
                    lines = data.decode("utf-8").splitlines(keepends=True)
                    data = "".join(line for line in lines
                                   if line.split(",", 1)[0] in names).encode("utf-8")
                entries.append(Entry(info.filename, data,
                                     (info.external_attr >> 16) & 0o777 or READABLE))
    except zipfile.BadZipFile:
        raise BundleError(f"--wheel {wheel}: not a wheel file (not a zip archive)") from None
    return zip_bytes(entries)


def leaks(names: Iterable[str]) -> list[str]:
    """The names among ``names`` that are answers (:data:`NEVER_SHIPPED`): a bundle's
    own self-check, and the tests'."""
    return [n for n in names
            if n.endswith(NEVER_SHIPPED[:2]) or f"/{NEVER_SHIPPED[2]}" in f"/{n}"]


# ------------------------------------------------------------------ Gradescope

SETUP_SH = r"""#!/usr/bin/env bash
# syncgrade: Gradescope's setup.sh (made by `grade package gradescope`). Gradescope runs it
# once, as root, when it builds the autograder image: Python 3.11+, a venv, and the
# syncgrade wheel shipped in this zip with its dependencies (jax, numpy, pydantic).
#
# Without CAP_SYS_ADMIN (Gradescope's default) learner code is kept from the answers only
# by running as an unprivileged uid, which must be able to start the interpreter: one
# under a folder other users cannot read (/root/.pyenv, a root-only conda) would leave it
# running as root, and run_autograder then refuses to grade. So the interpreter is the
# first Python 3.11+ an unprivileged uid can start, of SYNCGRADE_PYTHON, python3,
# python3.13, python3.12, python3.11, /usr/bin/python3 (apt's python3.11 if none), and
# this script says which (docs/security.md, "Fail closed").
set -euo pipefail
umask 022  # the venv must be readable by that uid
ROOT="${SYNCGRADE_AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="${SYNCGRADE_VENV:-$ROOT/venv}"
# usable PYTHON [IMPORT]: Python 3.11+ that an unprivileged uid (nobody) can start and
# import IMPORT (default: the standard library) with; as non-root, any Python 3.11+.
usable() {
  "$1" - "${2:-json}" 2>/dev/null <<'PY'
import os, sys
if sys.version_info < (3, 11):
    sys.exit(1)
if os.geteuid() == 0:
    os.chdir("/")
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
    os.execv(sys.executable, [sys.executable, "-c", "import " + sys.argv[1]])
PY
}
pick_python() {
  local candidate
  for candidate in ${SYNCGRADE_PYTHON:-} python3 python3.13 python3.12 python3.11 \
                   /usr/bin/python3; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    if usable "$candidate"; then
      command -v "$candidate"
      return 0
    fi
    echo "syncgrade: skipped $candidate: not Python 3.11+, or an unprivileged uid cannot" \
         "start it" >&2
  done
  return 1
}
if [ ! -x "$VENV/bin/python" ]; then
  if ! PYTHON=$(pick_python); then
    apt-get update && apt-get install -y python3.11 python3.11-venv
    PYTHON=$(pick_python) || PYTHON=python3.11
  fi
  echo "syncgrade: making $VENV from $PYTHON ($("$PYTHON" --version 2>&1))"
  "$PYTHON" -m venv "$VENV"
fi
PIP="${SYNCGRADE_PIP:-$VENV/bin/python -m pip}"
# shellcheck disable=SC2086  # PIP and SYNCGRADE_PIP_ARGS are word lists on purpose
$PIP install ${SYNCGRADE_PIP_ARGS:-} "$SOURCE"/wheels/syncgrade-*.whl
"$VENV/bin/python" -c 'import syncgrade; print("syncgrade", syncgrade.__version__, "installed")'
if usable "$VENV/bin/python" syncgrade; then
  echo "syncgrade: learner code will run from $VENV/bin/python, which an unprivileged uid" \
       "can start: the course's hidden files stay protected"
else
  echo "syncgrade: WARNING: an unprivileged uid cannot start $VENV/bin/python (a folder" \
       "above it, or its base Python, is not readable by other users): run_autograder will" \
       "refuse to grade unless SYNCGRADE_ALLOW_UNPROTECTED=1 (docs/security.md)"
fi
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# syncgrade: Gradescope's run_autograder (made by `grade package gradescope`). Grades
# $ROOT/submission with the configuration in $ROOT/source/syncgrade.json and always leaves
# $ROOT/results/results.json (the grader's stdout is shown to instructors only).
set -uo pipefail
ROOT="${SYNCGRADE_AUTOGRADER_ROOT:-/autograder}"
VENV="${SYNCGRADE_VENV:-$ROOT/venv}"
cd "$ROOT" || exit 1
if [ -x "$VENV/bin/syncgrade-gradescope" ]; then
  exec "$VENV/bin/syncgrade-gradescope" --root "$ROOT"
fi
echo "syncgrade: $VENV/bin/syncgrade-gradescope is missing: did setup.sh fail?"
mkdir -p "$ROOT/results"
MESSAGE="The autograder is not set up correctly, so your submission was not graded; "
MESSAGE+="this is not your fault. Please tell course staff."
printf '{"score": 0.0, "execution_time": 0, "output": "%s", "stdout_visibility": "hidden",
 "tests": [], "extra_data": {"syncgrade": {"status": "error", "cause": "grader_fault"}}}\n' \
  "$MESSAGE" > "$ROOT/results/results.json"
"""


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()


def gradescope_entries(config: dict[str, object], wheel_name: str, wheel: bytes,
                       course_dir: Path | None) -> list[Entry]:
    """Gradescope's autograder zip (``setup.sh`` and ``run_autograder`` at its root; it is
    unpacked into ``/autograder/source``). ``wheel``: the exercise-only wheel's bytes."""
    exercise = str(config["exercise"])
    return [Entry("setup.sh", SETUP_SH.encode(), EXECUTABLE),
            Entry("run_autograder", RUN_AUTOGRADER.encode(), EXECUTABLE),
            Entry("syncgrade.json", _json(config)),
            Entry(f"wheels/{wheel_name}", wheel),
            *course_entries(course_dir, exercise, "course/")]


# ------------------------------------------------------------------ images

IMAGE_DOCKERFILE = """# syncgrade's {what} (made by `grade package {platform}`): Python,
# and syncgrade installed from the wheel beside this file into /opt/syncgrade.
#
#   docker build -t {tag} .        # in this folder
#
# Needs the network once, for syncgrade's dependencies (jax, numpy, pydantic).
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${{PYTHON_IMAGE}}
ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY wheels/ /tmp/wheels/
RUN python -m venv /opt/syncgrade \\
    && /opt/syncgrade/bin/pip install /tmp/wheels/syncgrade-*.whl \\
    && rm -rf /tmp/wheels
USER root
{tail}"""

PRAIRIELEARN_TAIL = """WORKDIR /grade
# No CMD: the question's info.json gives the entrypoint,
# /opt/syncgrade/bin/syncgrade-prairielearn. Run by hand for a check:
#   docker run --rm -v "$PWD/grade:/grade" {tag} /opt/syncgrade/bin/syncgrade-prairielearn
"""

EXERCISM_TAIL = """COPY bin/run.sh /opt/test-runner/bin/run.sh
{course}ENV SYNCGRADE_PYTHON=/opt/syncgrade/bin/python
WORKDIR /opt/test-runner
ENTRYPOINT ["/opt/test-runner/bin/run.sh"]
"""

_RUN_SH = r"""#!/usr/bin/env bash
# syncgrade as an Exercism test runner: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR
#
# Grades the solution in INPUT_DIR (read only) for the exercise SLUG (or the one
# INPUT_DIR/.meta/syncgrade.json names) into OUTPUT_DIR/results.json, Exercism's
# results format version 3, and exits 0 whatever the verdict, as Exercism requires.
# SYNCGRADE_PYTHON picks the interpreter (default: python3). If it cannot even start, an
# `error` results.json says so, so Exercism never shows a bare runner failure.
set -uo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: bin/run.sh SLUG INPUT_DIR OUTPUT_DIR" >&2
  exit 2
fi
slug="$1"
input_dir="${2%/}"
output_dir="${3%/}"
python="${SYNCGRADE_PYTHON:-python3}"
mkdir -p "$output_dir"
rm -f "$output_dir/results.json"
"$python" -m syncgrade.platforms.entry exercism "$slug" "$input_dir" "$output_dir"
status=$?
if [ ! -s "$output_dir/results.json" ]; then
  echo "syncgrade: no results from the grader (exit $status)" >&2
{fallback}
    > "$output_dir/results.json"
fi
exit 0
"""
_RUN_SH_FALLBACK = (
    "  printf '%s\\n' '{\"version\": 3, \"status\": \"error\", \"message\": \"The grader "
    "itself failed while grading this submission; this is not your fault and says nothing "
    "about your code. Please submit again, or tell your mentor if it happens twice.\", "
    "\"tests\": []}' \\")
RUN_SH = _RUN_SH.replace("{fallback}", _RUN_SH_FALLBACK)
"""The repository's ``bin/run.sh``, byte for byte (a test holds them equal): the wheel
does not carry ``bin/``, so the Exercism bundle ships this copy."""


@dataclass(frozen=True)
class ExerciseSource:
    """What a PrairieLearn or Exercism bundle needs of the exercise: its id and title,
    its statement and stub files, and the course folder to ship (``None``: the
    built-in course, inside the wheel)."""

    exercise: str
    title: str
    statement: Path
    stub: Path
    course_dir: Path | None


# ------------------------------------------------------------------ PrairieLearn

QUESTION_HTML = """<pl-question-panel>
  <p>{title}: write <code>submission.py</code> as
    <a href="{{{{options.client_files_question_url}}}}/README.md">the statement</a> asks.
    Each check's result below says what your timer measured.</p>
  <pl-file-editor file-name="submission.py" source-file-name="stub.py"
    ace-mode="ace/mode/python"></pl-file-editor>
</pl-question-panel>

<pl-submission-panel>
  <pl-external-grader-results></pl-external-grader-results>
  <pl-file-preview></pl-file-preview>
</pl-submission-panel>
"""

PL_COURSE = "serverFilesCourse/syncgrade/course/"
PL_IMAGE = "syncgrade-prairielearn:latest"


def question_id(exercise: str) -> str:
    return f"syncgrade-{exercise}"


def prairielearn_entries(source: ExerciseSource, config: dict[str, object],
                         wheel_name: str, wheel: bytes) -> list[Entry]:
    """PrairieLearn's bundle (see the module docstring). ``config``: the question's
    ``tests/syncgrade.json`` (its ``timeout`` and ``overhead`` set ``info.json``'s
    timeout, with 10 s for the container); the course folder, when one ships, is named
    in it as ``../serverFilesCourse/syncgrade/course`` (relative to ``tests/``, where
    PrairieLearn mounts the question's tests: ``/grade/serverFilesCourse/...``). The
    question's ``uuid`` is derived from the exercise id and title, so it is the same in
    every build."""
    qid = question_id(source.exercise)
    config = dict(config)
    if source.course_dir is not None:
        config["course"] = "../" + PL_COURSE.rstrip("/")
    grading: dict[str, object] = {
        "enabled": True, "image": PL_IMAGE,
        "entrypoint": "/opt/syncgrade/bin/syncgrade-prairielearn"
                      + (" --html" if config.get("html") else ""),
        "timeout": min(600, int(float(str(config["timeout"]))
                                + float(str(config["overhead"])) + 10))}
    if source.course_dir is not None:
        grading["serverFilesCourse"] = ["syncgrade/"]
    info = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_URL,
                                   f"syncgrade:{source.exercise}:{source.title}")),
            "title": f"{source.title} (syncgrade {source.exercise})",
            "topic": "syncgrade", "tags": ["syncgrade"], "type": "v3",
            "singleVariant": True, "gradingMethod": "External",
            "externalGradingOptions": grading}
    question = f"questions/{qid}/"
    tag = PL_IMAGE
    dockerfile = IMAGE_DOCKERFILE.format(
        what="PrairieLearn external-grader image", platform="prairielearn", tag=tag,
        tail=PRAIRIELEARN_TAIL.format(tag=tag))
    return [Entry("README.md", _readme(PRAIRIELEARN_README, source, PL_COURSE_LINE, qid=qid,
                                         tag=tag)),
            Entry("grader-image/Dockerfile", dockerfile.encode()),
            Entry(f"grader-image/wheels/{wheel_name}", wheel),
            Entry(question + "info.json", _json(info)),
            Entry(question + "question.html",
                  QUESTION_HTML.format(title=_html(source.title)).encode()),
            Entry(question + "stub.py", source.stub.read_bytes()),
            Entry(question + "clientFilesQuestion/README.md", source.statement.read_bytes()),
            Entry(question + "tests/syncgrade.json", _json(config)),
            *course_entries(source.course_dir, source.exercise, PL_COURSE)]


PRAIRIELEARN_README = """# syncgrade {exercise} for PrairieLearn

Made by `grade package prairielearn {exercise}`. Nothing here is a solution.

- `grader-image/`: the external-grader image. `docker build -t {tag} grader-image`,
  push it where PrairieLearn can pull it, and name it in `info.json`'s `image`.
- `questions/{qid}/`: copy it into your course's `questions/`. `info.json` turns external
  grading on; `tests/syncgrade.json` says what it grades; `stub.py` is what the learner's
  editor starts with; `clientFilesQuestion/README.md` is the statement.
{course_line}"""


PL_COURSE_LINE = ("- `serverFilesCourse/syncgrade/`: copy it into your course's "
                  "`serverFilesCourse/`\n  (the exercise's declaration, hidden from the "
                  "learner's code).\n")
EXERCISM_COURSE_LINE = ("- `test-runner/course/`: the exercise's declaration, hidden from "
                        "the learner's\n  code (the image sets `SYNCGRADE_COURSE` to it).\n")


def _readme(template: str, source: ExerciseSource, course_line: str, **values: str) -> bytes:
    """The bundle's ``README.md``: ``course_line`` only when a course folder ships."""
    return template.format(exercise=source.exercise,
                           course_line=course_line if source.course_dir is not None else "",
                           **values).encode()


def _html(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("{", "&#123;").replace("}", "&#125;"))


# ------------------------------------------------------------------ Exercism

EXERCISM_README = """# syncgrade {exercise} for Exercism

Made by `grade package exercism {exercise}`. Nothing here is a solution.

- `test-runner/`: the test runner's image (Exercism's interface: `bin/run.sh SLUG
  INPUT_DIR OUTPUT_DIR`). `docker build -t {tag} test-runner`.
- `exercises/practice/{exercise}/`: the exercise for your track's `exercises/practice/`:
  `.docs/instructions.md` (the statement), `.meta/config.json`, and the stub as
  `submission.py`. Add your track's `authors` and an example solution where Exercism's
  CI wants one: this bundle never carries a solution.
{course_line}"""

EXERCISM_COURSE = "/opt/test-runner/course"


def exercism_entries(source: ExerciseSource, wheel_name: str, wheel: bytes) -> list[Entry]:
    """Exercism's bundle (see the module docstring). The exercise's slug is its id (the
    test runner's ``SLUG``); a course folder ships as ``test-runner/course/``, which the
    image names in ``SYNCGRADE_COURSE``."""
    tag = "syncgrade-exercism"
    course = (f"COPY course/ {EXERCISM_COURSE}/\nENV SYNCGRADE_COURSE={EXERCISM_COURSE}\n"
              if source.course_dir is not None else "")
    dockerfile = IMAGE_DOCKERFILE.format(
        what="Exercism test-runner image", platform="exercism", tag=tag,
        tail=EXERCISM_TAIL.format(course=course))
    folder = f"exercises/practice/{source.exercise}/"
    meta = {"authors": [], "files": {"solution": ["submission.py"], "test": [],
                                     "example": []},
            "blurb": source.title}
    return [Entry("README.md", _readme(EXERCISM_README, source, EXERCISM_COURSE_LINE, tag=tag)),
            Entry("test-runner/Dockerfile", dockerfile.encode()),
            Entry("test-runner/bin/run.sh", RUN_SH.encode(), EXECUTABLE),
            Entry(f"test-runner/wheels/{wheel_name}", wheel),
            *course_entries(source.course_dir, source.exercise, "test-runner/course/"),
            Entry(folder + ".docs/instructions.md", source.statement.read_bytes()),
            Entry(folder + ".meta/config.json", _json(meta)),
            Entry(folder + "submission.py", source.stub.read_bytes())]


# ------------------------------------------------------------------ the learner's wheel

_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_VERSION = re.compile(r"\d+(\.\d+)*([a-z]+\d+)?")


def check_name(name: str) -> str:
    """``name`` as an installed course's name (``grade --course NAME``): letters, digits,
    ``.``, ``_``, ``-``, starting and ending with a letter or digit. Raises
    :class:`BundleError`."""
    if not _NAME.fullmatch(name):
        raise BundleError(f"--name {name!r}: use letters, digits, '.', '_' or '-', "
                          "starting and ending with a letter or digit")
    return name


def check_version(version: str) -> str:
    if not _VERSION.fullmatch(version):
        raise BundleError(f"--course-version {version!r}: use a version like 1.0 or 2024.1")
    return version


INIT_PY = '''"""The syncgrade course {name!r} (made by `grade package course`): its statements,
stubs and declarations; `grade --course {name} ...` grades with it once installed."""

from pathlib import Path


def course_dir() -> str:
    """The course folder (the entry point of the group syncgrade.courses)."""
    return str(Path(__file__).resolve().parent / "course")
'''


def course_wheel(course_dir: Path, exercises: Sequence[str], name: str,
                 version: str, requires: str) -> tuple[str, bytes]:
    """A wheel (its file name and bytes) of the package ``syncgrade_course_<name>``
    holding ``course_dir``'s ``course.toml`` and each of ``exercises``'
    :data:`SHIPPED` files under ``course/``, and the entry point ``name`` in the group
    :data:`GROUP`. ``requires``: its one dependency (syncgrade). Reproducible."""
    package = "syncgrade_course_" + re.sub(r"[^A-Za-z0-9]", "_", name).lower()
    dist = f"{package}-{version}"
    files = [Entry(f"{package}/__init__.py", INIT_PY.format(name=name).encode())]
    for exercise in exercises:
        for path in shipped_course_files(course_dir, exercise):
            if path.name == COURSE_TOML and exercise != exercises[0]:
                continue
            files.append(Entry(f"{package}/course/{path.relative_to(course_dir).as_posix()}",
                               path.read_bytes()))
    if not (course_dir / COURSE_TOML).is_file():  # an empty one: the folder is a course
        files.insert(1, Entry(f"{package}/course/{COURSE_TOML}", b""))
    metadata = (f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
                f"Summary: The syncgrade course {name} (statements, stubs, declarations)\n"
                f"Requires-Python: >=3.11\nRequires-Dist: {requires}\n")
    wheel_meta = ("Wheel-Version: 1.0\nGenerator: syncgrade (grade package course)\n"
                  "Root-Is-Purelib: true\nTag: py3-none-any\n")
    files += [Entry(f"{dist}.dist-info/METADATA", metadata.encode()),
              Entry(f"{dist}.dist-info/WHEEL", wheel_meta.encode()),
              Entry(f"{dist}.dist-info/entry_points.txt",
                    f"[{GROUP}]\n{name} = {package}:course_dir\n".encode())]
    record = "".join(f"{e.name},sha256={_digest(e.data)},{len(e.data)}\n" for e in files)
    record += f"{dist}.dist-info/RECORD,,\n"
    files.append(Entry(f"{dist}.dist-info/RECORD", record.encode()))
    return f"{dist}-py3-none-any.whl", zip_bytes(files)


def _digest(data: bytes) -> str:
    raw = hashlib.sha256(data).digest()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
