"""Derive exercise-2's answer key by running its snippets under the grader's own tracer.

A test helper (tests/rubric/test_exercise_2_key.py; it was in the package, used by no
grader code). The stub's docstring shows four timed snippets. :func:`parse_snippets` reads
them exactly
as the stub's ``__main__`` block does; :func:`grader_source` wraps each one in a function
``snippet_<letter>(x_host, w_host, cpu, x, w, compiled_predict)`` that returns its
``elapsed``; :data:`SNIPPET_JOB` calls each function once in the lesson's world (a fresh,
never-called ``compiled_predict`` per snippet); :func:`measured_phases` reads the phases of
each call's single interval. The rubric hard-codes the key; a test re-derives it this way
through the real child and asserts that the two agree.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping

import numpy as np

from syncgrade.analysis import analyse
from syncgrade.rubric import Exercise, GraderCall, Required
from syncgrade.rubric import specs as s
from syncgrade.trace import CallFrame

PARAMETERS = ("x_host", "w_host", "cpu", "x", "w", "compiled_predict")
_HEADER = "import time\n\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"


def parse_snippets(doc: str) -> dict[str, str]:
    """Letter -> dedented code of each ``Snippet X`` block in ``doc`` (the stub's own
    parsing: the block runs from the ``---`` underline to the first blank line)."""
    snippets = {}
    for part in doc.split("Snippet ")[1:]:
        letter, _, body = part.partition("\n")
        snippets[letter.strip()] = textwrap.dedent(body.split("\n\n")[0].split("---\n", 1)[1])
    return snippets


def stub_docstring(stub_source: str) -> str:
    """The module docstring of the stub (``""`` when it has none)."""
    return ast.get_docstring(ast.parse(stub_source), clean=False) or ""


def function_name(letter: str) -> str:
    return f"snippet_{letter}"


def grader_source(snippets: Mapping[str, str]) -> str:
    """A module defining one function per snippet, each returning its ``elapsed``."""
    parts = [_HEADER]
    for letter, code in snippets.items():
        body = textwrap.indent(code.rstrip("\n"), "    ")
        parts.append(f"\ndef {function_name(letter)}({', '.join(PARAMETERS)}):\n"
                     f"{body}\n    return elapsed\n")
    return "".join(parts)


def lesson_world() -> dict[str, np.ndarray]:
    """The lesson's host arrays (seed 0, 64x32 @ 32x16): the snippets' own world."""
    rng = np.random.default_rng(0)
    return {
        "x_host": rng.normal(size=(64, 32)).astype(np.float32),
        "w_host": rng.normal(size=(32, 16)).astype(np.float32),
    }


def snippet_job(letters: tuple[str, ...]) -> Exercise:
    """An exercise-shaped job (no checks) that runs each snippet function once."""
    args = (s.host("x_host"), s.host("w_host"), s.jax_device(), s.device("x_host"),
            s.device("w_host"), s.workload("predict"))
    return Exercise(
        id="exercise-2-snippets", title="exercise-2 snippets under the tracer", version="1",
        required=tuple(Required(function_name(k), positional=len(PARAMETERS)) for k in letters),
        calls=tuple(GraderCall(k, function_name(k), args) for k in letters),
        checks=(),
        make_inputs=lesson_world,
        make_references=lambda inputs: {},
    )


SNIPPET_JOB = snippet_job(("A", "B", "C", "D"))


def measured_phases(frames: Mapping[str, CallFrame]) -> dict[str, frozenset[str]]:
    """Letter -> phases of that snippet's one interval. Raises ``ValueError`` when a
    snippet failed or did not time exactly one interval (the key would be meaningless)."""
    key = {}
    for letter, frame in frames.items():
        if not frame.ok:
            raise ValueError(f"snippet {letter} did not run: {frame.error or frame.grader_error}")
        intervals = analyse(frame.events).intervals
        if len(intervals) != 1:
            raise ValueError(f"snippet {letter} timed {len(intervals)} intervals, not 1")
        key[letter] = frozenset(intervals[0].phases())
    return key
