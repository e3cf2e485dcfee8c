"""The lesson's own reference solutions get full marks (issue 29).

Each code block of the lesson that is a reference solution is ported to its exercise's
interface, with only the renames the interface needs, as ``corpus/correct/lesson_reference*.py``;
``test_corpus.py`` grades every such file and asserts full marks (``expect: pass``). This
module pins the other half: the ports exist, are declared full-marks files, and still hold
the lesson's own lines, so a port cannot drift into the recommended style to pass.
"""

from __future__ import annotations

import re

import pytest
from corpus_support import corpus_dir, read_expectation

# The lines of each lesson block that carry its method, as the lesson writes them (the
# interface's renames applied: 5 -> repeats, 96 -> rows, cpu -> device, (64,) -> (rows,)).
LESSON_LINES = {
    "exercise-1": (
        "start = time.perf_counter()",
        "out.block_until_ready()",
        "samples.append(time.perf_counter() - start)",
    ),
    "exercise-4": (
        "larger = jax.device_put(larger_host, device)",
        "larger.block_until_ready()",
        "compiled_predict(larger, w).block_until_ready()",
        "larger_result, larger_times = synchronized_samples(compiled_predict, (larger, w), "
        "repeats)",
        "np.testing.assert_allclose(np.asarray(larger_result), np.tanh(larger_host @ w_host), "
        "atol=2e-5, rtol=2e-5)",
        'print("Changed workload:", larger.shape, larger_times)',
    ),
    "exercise-5": (
        "energy = jax.jit(lambda a, b: jnp.sum((a @ b)**2, axis=1))",
        "energy(x, w).block_until_ready()",
        "energy_result, energy_times = synchronized_samples(energy, (x, w), repeats)",
        "np.testing.assert_allclose(np.asarray(energy_result), reference, atol=2e-3, "
        "rtol=2e-5)",
    ),
    "exercise-6": (
        "jax.block_until_ready(args)",
        "jax.block_until_ready(fn(*args))",
        "result, measured = synchronized_samples(fn, args, repeats)",
        'return {"boundary": boundary, "samples": measured}, result',
    ),
}


def _squashed(text: str) -> str:
    """``text`` with every run of whitespace removed (a port may wrap a long line)."""
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("exercise", sorted(LESSON_LINES))
def test_each_lesson_block_is_ported_as_a_full_marks_file(exercise: str) -> None:
    ports = sorted((corpus_dir(exercise) / "correct").glob("lesson_reference*.py"))
    assert ports, f"{exercise}: no corpus/correct/lesson_reference*.py"
    for port in ports:
        assert read_expectation(port) == frozenset(), f"{port}: must expect full marks"
    source = _squashed("\n".join(port.read_text() for port in ports))
    missing = [line for line in LESSON_LINES[exercise] if _squashed(line) not in source]
    assert not missing, f"{exercise}: the port lost the lesson's lines {missing}"


def test_no_lesson_port_sits_among_the_flawed_files() -> None:
    flawed = [path for exercise in LESSON_LINES
              for path in (corpus_dir(exercise) / "flawed").glob("lesson_reference*.py")]
    assert flawed == []
