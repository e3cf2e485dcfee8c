"""exercise-2 — Draw the interval (concept).

Graded from two module constants: ``INTERVALS`` (snippet letter -> the phases its interval
waits for) and ``SYNC_POINT``. The phase key below was derived by running the stub's four
snippets under the grader's own tracer (``tests/snippets_support.py``);
``tests/rubric/test_exercise_2_key.py`` re-derives it through the real child and asserts it
still equals ``KEY``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from syncgrade.rubric import Check, CheckSpec, Exercise, GraderCall, Required
from syncgrade.rubric import checks as c

KEY: dict[str, frozenset[str]] = {
    "A": frozenset({"dispatch"}),
    "B": frozenset({"input placement", "compilation", "dispatch", "device execution",
                    "output wait"}),
    "C": frozenset({"dispatch", "device execution", "output wait"}),
    "D": frozenset({"dispatch", "device execution", "output wait", "host transfer"}),
}

SYNC_POINT_CHOICES = (
    "before starting the timer",
    "before stopping the timer",
    "after stopping the timer",
    "nowhere: dispatch is enough",
)
SYNC_POINT_KEY = "before stopping the timer"

# Shown only when an answer is wrong: where to look, never what to write.
HINTS = {
    "A": "Find the line `stop = ...`. Which lines run before it, and does any of them wait "
         "for the output?",
    "B": "Take the lines between `start` and `stop` one at a time. What does each one do, "
         "given that `predict` has never been called?",
    "C": "The setup lines above `start` are outside the interval. What is left between "
         "`start` and `stop`, and what does each line wait for?",
    "D": "`np.asarray` on a JAX array does more than one thing. What must happen before it "
         "can return a NumPy array?",
}
SYNC_HINTS = {
    "before starting the timer": "Waiting before the start keeps earlier work out of the "
                                 "number, but what tells the timer that the timed call itself "
                                 "has finished?",
    "after stopping the timer": "If the host waits only after the clock stops, what does the "
                                "reported number include, and what does it leave out?",
    "nowhere: dispatch is enough": "A jitted call returns as soon as its work is enqueued. "
                                   "What does a timer that stops right after it measure?",
}

INTERVALS_CALL = "intervals"
SYNC_POINT_CALL = "sync-point"


def make_inputs() -> dict[str, np.ndarray]:
    return {}  # a concept exercise: nothing is computed with learner code


def make_references(inputs: dict[str, np.ndarray]) -> dict[str, Any]:
    return {}


def _answer(letter: str) -> CheckSpec:
    return CheckSpec(f"answer-{letter}", f"Snippet {letter}", c.answer_phases, 1, {
        "call": INTERVALS_CALL, "constant": "INTERVALS", "snippet": letter,
        "key": KEY[letter], "hint": HINTS[letter],
    })


EXERCISE = Exercise(
    id="exercise-2",
    title="Draw the interval",
    version="2",
    required=(Required("INTERVALS", kind="constant"), Required("SYNC_POINT", kind="constant")),
    calls=(
        GraderCall(INTERVALS_CALL, attribute="INTERVALS"),
        GraderCall(SYNC_POINT_CALL, attribute="SYNC_POINT"),
    ),
    checks=(
        CheckSpec(Check.RUNS, "Runs", c.runs, 1, {"calls": (INTERVALS_CALL, SYNC_POINT_CALL)}),
        *(_answer(letter) for letter in KEY),
        CheckSpec("answer-sync-point", "Where to synchronize", c.answer_choice, 1, {
            "call": SYNC_POINT_CALL, "constant": "SYNC_POINT", "key": SYNC_POINT_KEY,
            "choices": SYNC_POINT_CHOICES, "choices_name": "SYNC_POINT_CHOICES",
            "hints": SYNC_HINTS,
        }),
    ),
    make_inputs=make_inputs,
    make_references=make_references,
)
