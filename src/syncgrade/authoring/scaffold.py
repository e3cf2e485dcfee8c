"""`grade new`: scaffold a new exercise folder in a course that grades from the first minute.

Writes, in the course folder ``root`` (created, with a ``course.toml``, when it does not
exist yet), the exercise folder ``root/<id>/`` (docs/authoring.md):

- ``exercise.py``: a complete, loadable declaration (a timed ``tanh(x @ w)`` workload plus
  the calibrated probe; ``runs``, ``numpy-match`` and the measurement contract, as
  ``Samples`` from which the interval checks are derived, as exercise-1) that imports
  only the authoring façade ``syncgrade.rubric``, with ``TODO(author)`` markers where the
  author decides;
- ``README.md`` and ``stub.py``: statement and stub (the stub starts with the lesson's
  mistake: no wait before the timer stops);
- ``solution.py``: a full-marks solution;
- ``mutants.toml``: one example mutant, as an edit of the solution;
- ``corpus/correct/waits_each_call.py`` and ``corpus/flawed/no_wait.py``: one learner-like
  file of each kind, with its expected verdict.

The result does not pass ``grade validate`` as it is, on purpose: the declaration still
says TODO, the files say ``TODO(author)``, and one mutant covers only two checks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from string import Template

_ID = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*$")
"""An exercise id: a slug (lowercase letters, digits, '-'), the exercise folder's name."""
_NUMBERED = re.compile(r"exercise-([1-9][0-9]*)$")
FUNCTION = "timed_samples"
COURSE_FILE = "course.toml"  # syncgrade.courses.COURSE_FILE


class ScaffoldError(Exception):
    """The scaffold was refused: a bad id or title, or files that would be overwritten."""


def scaffold(exercise_id: str, title: str, root: Path, *, force: bool = False) -> list[Path]:
    """Write the new exercise's folder in the course folder ``root``; return the paths
    written (``root/course.toml`` first when the course folder was created).

    Raises :class:`ScaffoldError` for an id that is not a slug (lowercase letters, digits
    and '-', such as ``exercise-9`` or ``vmap-batch``), an empty or multi-line title, a
    ``root`` that is a file or lies in an installed package (:func:`refuse_installed`),
    or (without ``force``) an exercise that already exists: any of its files already
    there.
    """
    if not _ID.match(exercise_id):
        raise ScaffoldError(f"invalid exercise id {exercise_id!r}: use lowercase letters, "
                            "digits and '-' (e.g. exercise-9 or vmap-batch)")
    title = title.strip()
    if not title or "\n" in title:
        raise ScaffoldError("--title must be one non-empty line")
    if root.exists() and not root.is_dir():
        raise ScaffoldError(f"{root} is not a folder")
    refuse_installed(root)
    targets = {root / exercise_id / rel: text
               for rel, text in scaffold_files(exercise_id, title).items()}
    solutions = _solutions(root)
    if solutions is not None:  # course.toml keeps the solutions outside the course folder
        targets = {(solutions / exercise_id / path.name if path.name == "solution.py"
                    and path.parent == root / exercise_id else path): text
                   for path, text in targets.items()}
    if not force:
        existing = [p for p in targets if p.exists()]
        if existing:
            where = os.path.relpath(existing[0], root)
            raise ScaffoldError(f"{exercise_id} already exists ({where}); use --force to "
                                "overwrite its files")
    if not root.exists():
        targets = {root / COURSE_FILE: f"title = {_toml_string(root.resolve().name)}\n",
                   **targets}
    for path, text in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    from syncgrade.courses import forget

    forget(root)  # a course opened before in this process is read again
    return list(targets)


def _solutions(root: Path) -> Path | None:
    """The course's solutions folder when its ``course.toml`` names one; a wrong
    ``course.toml`` is a :class:`ScaffoldError`."""
    if not root.is_dir():
        return None
    from syncgrade.courses import CourseError, read_config

    try:
        return read_config(root)[1]
    except CourseError as exc:
        raise ScaffoldError(str(exc)) from None


def refuse_installed(root: Path) -> None:
    """Raise :class:`ScaffoldError` when ``root`` lies in an installed package (a
    ``site-packages``/``dist-packages`` folder, or the interpreter's library folders):
    a reinstall would lose the exercise, and the package is not the author's to edit."""
    import sysconfig

    resolved = root.expanduser().resolve()
    libraries = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    inside = any(part in ("site-packages", "dist-packages") for part in resolved.parts) or any(
        resolved.is_relative_to(Path(library).resolve()) for library in libraries)
    if inside:
        raise ScaffoldError(f"{resolved} is inside an installed package: `grade new` does "
                            "not write there (a reinstall would lose it); give a course "
                            "folder of your own: --course DIR")


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (the same escapes as JSON's)."""
    import json

    return json.dumps(text, ensure_ascii=False)


def scaffold_files(exercise_id: str, title: str) -> dict[str, str]:
    """What ``grade new`` writes for ``exercise_id``: path (relative to the exercise's
    folder) -> the file's text, with ``title`` as the exercise's title."""
    numbered = _NUMBERED.match(exercise_id)
    # exercise-N is "Exercise N" in the statement; another slug is named as it is, and
    # its seed comes from its text (stable across runs).
    number = int(numbered.group(1)) if numbered else 1 + sum(
        (i + 1) * ord(ch) for i, ch in enumerate(exercise_id)) % 997
    values = {
        "id": exercise_id, "name": f"Exercise {number}" if numbered else exercise_id,
        "title": title, "title_repr": repr(title), "function": FUNCTION,
        # Hidden data unlike the lesson's (seed 0, 64x32 @ 32x16) and unlike the stub's own
        # heavy 1024x1024: a seed per exercise number, odd-sized shapes.
        "seed": f"{number * 1_000_003 + 90_210:_}", "rows": "896", "k": "640", "out": "384",
    }
    fill = {name: Template(text).substitute(values) for name, text in (
        ("exercise.py", _RUBRIC), ("README.md", _README), ("stub.py", _STUB),
        ("solution.py", _SOLUTION), ("mutants.toml", _MUTANTS))}
    learner = fill["solution.py"].replace(" (reference solution).", ".")
    fill["corpus/correct/waits_each_call.py"] = _CORRECT + learner
    fill["corpus/flawed/no_wait.py"] = _FLAWED + learner.replace(_WAIT_LINE, "")
    return fill


_RUBRIC = '''\
"""$id — $title.

TODO(author): one paragraph: what the learner writes, and how the grader calls it (which
calls, with which hidden inputs). See docs/authoring.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import (
    Check,
    CheckSpec,
    Exercise,
    GraderCall,
    Required,
    Samples,
    tolerance,
)
from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s

REPEATS = 6
PROBE_SECONDS = 0.1
PROBE_REPEATS = 2
SAMPLES = (1,)  # where the samples are in the returned value
RESULT = (0,)  # where the result is


def make_inputs() -> dict[str, np.ndarray]:
    # TODO(author): hidden inputs. Another seed and other shapes than the stub's, and
    # enough work that XLA:CPU runs it asynchronously (a missing wait must be visible).
    rng = np.random.default_rng($seed)
    return {
        "x": rng.normal(size=($rows, $k)).astype(np.float32),
        "w": rng.normal(size=($k, $out)).astype(np.float32),
    }


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {"predict": tolerance.tanh_matmul(inputs["x"], inputs["w"])}


MAIN = "main"
PROBE = "probe"

EXERCISE = Exercise(
    id="$id",
    title=$title_repr,
    version="1",
    # TODO(author): the function(s) the learner writes.
    required=(Required("$function", "fn, args, repeats", positional=3),),
    calls=(
        GraderCall(MAIN, "$function", (
            s.workload("predict", warm=[s.device("x"), s.device("w")]),
            s.tuple_of(s.device("x"), s.device("w")),
            s.value(REPEATS),
        )),
        GraderCall(PROBE, "$function", (
            s.probe(PROBE_SECONDS), s.probe_args(PROBE_SECONDS), s.value(PROBE_REPEATS),
        )),
    ),
    # TODO(author): the checks this exercise teaches beyond the measurement contract;
    # every check needs a mutant (mutants.toml) that fails it.
    checks=(
        CheckSpec(Check.RUNS, params={"calls": (MAIN, PROBE)}),
        CheckSpec(Check.NUMPY_MATCH,
                  params={"call": MAIN, "result": RESULT, "reference": "predict"}),
    ),
    # The measurement contract: each list of samples and the interval it must measure.
    # The interval checks (sample-count, sync-before-stop, interval-clean, ...) are
    # derived from it (docs/checks.md, "The measurement contract").
    samples=(
        Samples(MAIN, SAMPLES, REPEATS),
        Samples(PROBE, SAMPLES, PROBE_REPEATS, probe=True),
    ),
    points={Check.SYNC_BEFORE_STOP: 2, Check.COVERS_DEVICE_WORK: 2},
    make_inputs=make_inputs,
    make_references=make_references,
)
'''

_README = '''\
# $name: $title

TODO(author): the situation, in the lesson's words: what goes wrong when this is timed
naively, and why.

## Your task

Write one function in `submission.py`:

```python
def $function(fn, args, repeats) -> tuple[jax.Array, list[float]]:
```

- Call `fn(*args)` exactly `repeats` times, timing each call until its output is ready.
- Return `(last_output, samples)`: samples in **seconds**.

## The interval to draw

TODO(author): draw the interval the learner must time.

## Hints

TODO(author): hints that give nothing away.

## Run it

```bash
python submission.py      # prints your own timings on the lesson's data
grade $id          # grades submission.py
```

The grader calls your function with its own (hidden) inputs, so don't hard-code anything
about the lesson's arrays.
'''

_STUB_BODY = '''\

import time

import jax
import jax.numpy as jnp
import numpy as np


def $function(fn, args, repeats):
    """Time `repeats` calls of `fn(*args)`, each until its output is ready.

    Returns:
        (last_output, samples): the output of the last call, and `repeats` samples in
        seconds.
    """
$body    return out, samples


if __name__ == "__main__":
    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    compiled_predict = jax.jit(lambda x, w: jnp.tanh(x @ w))
    jax.block_until_ready((x, w))
    compiled_predict(x, w).block_until_ready()

    result, samples = $function(compiled_predict, (x, w), 5)
    np.testing.assert_allclose(np.asarray(result), np.tanh(x_host @ w_host),
                               atol=2e-5, rtol=2e-5)
    print("samples (s):", [f"{s:.6f}" for s in samples])
'''

_LOOP_NO_WAIT = '''\
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        stop = time.perf_counter()
        samples.append(stop - start)
'''

_LOOP_WAIT = '''\
    samples = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn(*args)
        out.block_until_ready()  # wait for *this* call's output before stopping
        stop = time.perf_counter()
        samples.append(stop - start)
'''

_STUB = ('"""$name: $title.\n\nTODO(author): one line for the learner. Run '
         '`python submission.py` to see your own\ntimings, and `grade $id` to grade this '
         'file.\n"""\n' + _STUB_BODY.replace(
             "$body", "    # TODO: this version stops the timer as soon as the call returns.\n"
             + _LOOP_NO_WAIT))
_SOLUTION = ('"""$name: $title (reference solution)."""\n'
             + _STUB_BODY.replace("$body", _LOOP_WAIT))
_WAIT_LINE = "        out.block_until_ready()  # wait for *this* call's output before stopping\n"
_MUTANTS = """\
# TODO(author): one mutant per mistake, until every check is in some expect-fail.
# Each edit's old text must occur exactly once in solution.py (see docs/authoring.md).

[[mutant]]
name = "no_wait"
flaw = "the timer stops when the call returns, before its output is ready"
expect-fail = ["sync-before-stop", "covers-device-work"]

  [[mutant.edit]]
  old = \"\"\"
        out.block_until_ready()  # wait for *this* call's output before stopping
\"\"\"
  new = ""
"""
_CORRECT = ("# style: waits on each call's output before stopping the timer\n"
            "# expect: pass\n\n"
            "# TODO(author): learner-like files, each in its own style, that get full marks.\n")
_FLAWED = ("# flaw: the timer stops when the call returns, before its output is ready\n"
           "# expect-fail: sync-before-stop covers-device-work\n\n"
           "# TODO(author): learner-like files, one per mistake, each failing exactly the\n"
           "# checks its header names.\n")
