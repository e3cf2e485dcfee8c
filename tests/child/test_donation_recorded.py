"""The child records each jitted call's ``jax.jit`` options and, for a donating jit,
which inputs the call consumed (issue 28). One child run: a declared workload with
``donate_argnums`` (the grader's own), the learner's jits with donation by name, none, an
unusable donation, an AOT-compiled donating program, and static options.

What "consumed" means, on XLA:CPU with this jax as on GPU: the input array is deleted when
the call returns; a donation XLA cannot use (no output of the input's shape) leaves it
alive, with jax's "Some donated buffers were not usable" warning."""

from __future__ import annotations

import numpy as np
from trace_support import trace

from syncgrade.rubric import checks as c
from syncgrade.rubric import specs as s
from syncgrade.rubric.base import CheckSpec, Exercise, GraderCall, Required
from syncgrade.trace import Call

STEP = "def step(x):\n    return x * 0.5 + 1.0\n"

SOURCE = '''
import warnings

import jax


def run(step, x_host):
    step(jax.device_put(x_host))                            # the grader's donating jit
    a, b = jax.device_put(x_host), jax.device_put(x_host)
    jax.jit(lambda a, b: a * b, donate_argnames="a")(a, b=b)  # by name: a consumed
    jax.jit(lambda a: a + 1.0)(b)                           # no options
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jax.jit(lambda a: a.sum(), donate_argnums=0)(b)     # unusable: b stays alive
    jax.jit(lambda a, n: a * n, static_argnums=1, keep_unused=True)(b, 2)
    compiled = jax.jit(lambda a: a * 2.0, donate_argnums=(0,)).lower(b).compile()
    compiled(b)                                             # AOT: its jit's options
    return b.is_deleted()
'''


def _exercise() -> Exercise:
    return Exercise(
        id="exercise-77", title="donation", version="1",
        required=(Required("run", "step, x_host", positional=2),),
        calls=(GraderCall("main", "run", (
            s.workload("step", source=STEP, donate_argnums=0), s.host("x"))),),
        checks=(CheckSpec("runs", "Runs", c.runs, 1, {"calls": ("main",)}),),
        make_inputs=lambda: {"x": np.ones((256, 64), np.float32)},
        make_references=lambda inputs: {},
    )


def test_jit_options_and_consumed_inputs_are_recorded() -> None:
    frame = trace(_exercise(), SOURCE)["main"]
    assert frame.ok, frame.error
    calls = [e for e in frame.events if isinstance(e, Call)]
    assert [(e.jit, e.donated) for e in calls] == [
        ({"donate_argnums": [0]}, [True]),
        ({"donate_argnames": ["a"]}, [True, False]),
        (None, None),
        ({"donate_argnums": [0]}, [False]),
        ({"static_argnums": [1], "keep_unused": True}, None),
        ({"donate_argnums": [0]}, [True]),
    ]
    assert calls[0].fn == 1 and all(e.fn == 0 for e in calls[1:])  # the grader's, then own
    assert [e.declares_donation for e in calls] == [True, True, False, True, False, True]
    assert calls[1].donated_inputs == calls[1].inputs[:1]
    assert calls[3].donated_inputs == []
