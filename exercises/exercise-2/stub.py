"""Exercise 2: Draw the interval.

Each snippet below runs in the lesson's world (`x_host`, `w_host`, `cpu`, placed `x` and
`w`, and `compiled_predict`, which has not been called yet when a snippet starts) and
reports `elapsed = stop - start`. For each one, decide which phases of the work happen
*inside* its interval, that is, which phases the reported number actually waits for.

Snippet A
---------
    compiled_predict(x, w).block_until_ready()  # warm-up, outside the timer
    start = time.perf_counter()
    out = compiled_predict(x, w)
    stop = time.perf_counter()
    out.block_until_ready()
    elapsed = stop - start

Snippet B
---------
    predict = jax.jit(lambda x, w: jnp.tanh(x @ w))  # a fresh function, never called
    start = time.perf_counter()
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    out = predict(x, w)
    out.block_until_ready()
    stop = time.perf_counter()
    elapsed = stop - start

Snippet C
---------
    jax.block_until_ready((x, w))  # inputs placed and ready
    compiled_predict(x, w).block_until_ready()  # warm-up, outside the timer
    start = time.perf_counter()
    out = compiled_predict(x, w)
    out.block_until_ready()
    stop = time.perf_counter()
    elapsed = stop - start

Snippet D
---------
    compiled_predict(x, w).block_until_ready()  # warm-up, outside the timer
    start = time.perf_counter()
    host_out = np.asarray(compiled_predict(x, w))
    stop = time.perf_counter()
    elapsed = stop - start

Run `python submission.py` to run the four snippets and see what each one reports, and
`grade exercise-2` to grade your answers.
"""

import time

import jax
import jax.numpy as jnp
import numpy as np

# The phase vocabulary: use exactly these names.
PHASES = (
    "input placement",
    "compilation",
    "dispatch",
    "device execution",
    "output wait",
    "host transfer",
)

# The choices for SYNC_POINT: use exactly one of these strings.
SYNC_POINT_CHOICES = (
    "before starting the timer",
    "before stopping the timer",
    "after stopping the timer",
    "nowhere: dispatch is enough",
)

# TODO: for each snippet, the set of phases its interval waits for.
INTERVALS: dict[str, set[str]] = {
    "A": set(),
    "B": set(),
    "C": set(),
    "D": set(),
}

# TODO: where must synchronization occur in a completed-result latency measurement?
SYNC_POINT: str = "nowhere: dispatch is enough"


if __name__ == "__main__":
    import textwrap

    # The lesson's world.
    rng = np.random.default_rng(0)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    world = {"time": time, "jax": jax, "jnp": jnp, "np": np,
             "x_host": x_host, "w_host": w_host, "cpu": cpu, "x": x, "w": w}

    # Run each snippet shown above, exactly as written, in a fresh copy of the world.
    for part in __doc__.split("Snippet ")[1:]:
        letter, _, body = part.partition("\n")
        code = textwrap.dedent(body.split("\n\n")[0].split("---\n", 1)[1])
        namespace = dict(world, compiled_predict=jax.jit(lambda x, w: jnp.tanh(x @ w)))
        exec(code, namespace)
        print(f"snippet {letter}: elapsed = {namespace['elapsed'] * 1e3:8.3f} ms")

    print()
    for letter, phases in INTERVALS.items():
        unknown = sorted(set(phases) - set(PHASES))
        note = f"   <- not phase names: {unknown}" if unknown else ""
        known = [p for p in PHASES if p in set(phases)]
        print(f"your answer {letter}: {known}{note}")
    ok = "" if SYNC_POINT in SYNC_POINT_CHOICES else "   <- not one of SYNC_POINT_CHOICES"
    print(f"your SYNC_POINT: {SYNC_POINT!r}{ok}")
