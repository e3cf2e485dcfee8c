"""exercise-4's wrong device (``install_device_fault("bfloat16-tanh")``) really rounds.

The fault must survive XLA's optimizations on every backend. A convert to bfloat16 and
back is a pair XLA may drop (it allows excess precision by default): on a TPU it did, and
the faulty program came out as close to NumPy as the right one. The rounding is therefore
an explicit ``reduce-precision``, which the compiled program keeps, and its values are a
bfloat16 tanh of a bfloat16 input, bit for bit. The fault lasts as long as the process,
so it runs in a child interpreter, never in the test process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PROGRAM = r'''
import json
import jax, jax.numpy as jnp, numpy as np
from ml_dtypes import bfloat16
from syncgrade.child.workloads import install_device_fault

install_device_fault("bfloat16-tanh")
x = np.linspace(-3, 3, 4097, dtype=np.float32)
fn = jax.jit(lambda v: jnp.tanh(v))
got = np.asarray(fn(x))
model = np.tanh(x.astype(bfloat16).astype(np.float32)).astype(bfloat16).astype(np.float32)
print(json.dumps({
    "compiled_keeps_rounding": "reduce-precision" in fn.lower(x).compile().as_text(),
    "equals_model": bool(np.array_equal(got, model)),
    "off_by": float(np.max(np.abs(got.astype(np.float64) - np.tanh(x.astype(np.float64))))),
}))
'''


def test_bfloat16_tanh_fault_is_an_explicit_rounding_xla_keeps() -> None:
    env = {**os.environ, "JAX_PLATFORMS": "cpu",
           # XLA's default, spelled out: the setting under which converts may be dropped.
           "XLA_FLAGS": "--xla_allow_excess_precision=true"}
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env=env, check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["compiled_keeps_rounding"] is True
    assert result["equals_model"] is True
    # bfloat16 rounding of input and output: ~2e-3 off somewhere in [-3, 3], far outside
    # exercise-4's atol=rtol=2e-5 (a right float32 tanh is within 1e-6 here).
    assert result["off_by"] > 1e-3
