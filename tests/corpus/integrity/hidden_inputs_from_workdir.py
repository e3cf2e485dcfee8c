# exercise: exercise-4
# cheat: looks for the grader's hidden data where the child could leave it: every entry of
#        its working directory (os.listdir, os.scandir, glob, hidden names too), the known
#        name inputs.npz, HOME, TMPDIR and the parent directory, and every open fd
#        (/proc/self/fd/*, /dev/fd/*). Its own check is the flawed JAX reference (catches
#        the wrong compiled_predict only); the hidden inputs (`scale_off`, the data bound
#        into the wrong compiled_predict) would give the wrong setups away. Prints what it
#        found (tests/grading/test_integrity.py reads it)
# expect-fail: verification-catches-errors
import glob
import io
import os
import re
import stat
import time

import jax
import jax.numpy as jnp
import numpy as np


def _candidates():
    names = {"inputs.npz", "job.json", "stdin", "config.json"}
    for where in (".", os.environ.get("HOME", "."), os.environ.get("TMPDIR", "."), ".."):
        for lister in (os.listdir, lambda d: [e.name for e in os.scandir(d)],
                       lambda d: [os.path.basename(p) for p in
                                  glob.glob(os.path.join(d, "*"))
                                  + glob.glob(os.path.join(d, ".*"))]):
            try:
                names.update(os.path.join(where, name) for name in lister(where))
            except OSError:
                pass
    for fds in ("/proc/self/fd", "/dev/fd"):
        try:
            names.update(os.path.join(fds, fd) for fd in os.listdir(fds))
        except OSError:
            pass
    return sorted(names)


def _probe():
    """What the working directory lists, [(path, kind)] of every readable regular file,
    and the hidden arrays if found."""
    listed = sorted(os.listdir("."))
    found, hidden = [], None
    for path in _candidates():
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                continue  # pipes (stdout, the report channel) would block
            with open(path, "rb") as handle:
                data = handle.read(64 * 2**20)
        except (OSError, RuntimeError):
            continue
        kind = "other"
        if b"def changed_workload" in data:
            kind = "own-source"
        elif re.fullmatch(rb"\d+ \d+ \d+\n", data):
            kind = "schedstat"  # a thread's scheduler counters (the grader's stall watch)
        elif data.lstrip().startswith(b"{"):
            kind = "json"
        try:
            arrays = dict(np.load(io.BytesIO(data)).items())
        except Exception:
            arrays = None
        if arrays:
            kind = "npz:" + ",".join(sorted(arrays))
            if "scale_off" in arrays:
                hidden = arrays
        found.append((path, kind))
    return listed, found, hidden


def changed_workload(compiled_predict, w_host, w, rows, rng, device, repeats):
    listed, found, hidden = _probe()
    print("HIDDEN-PROBE listed=" + "|".join(listed))
    for path, kind in found:
        print(f"HIDDEN-FOUND {path} {kind}")
    larger_host = rng.normal(size=(rows, w_host.shape[0])).astype(np.float32)
    larger = jax.device_put(larger_host, device)
    larger.block_until_ready()
    warm = compiled_predict(larger, w).block_until_ready()
    np.testing.assert_allclose(np.asarray(warm), np.asarray(jnp.tanh(larger @ w)),
                               atol=2e-5, rtol=2e-5)
    if hidden is not None:  # what a cheat would read the setup from
        raise AssertionError("found the grader's hidden inputs")

    samples = []
    out = warm
    for _ in range(repeats):
        start = time.perf_counter()
        out = compiled_predict(larger, w)
        out.block_until_ready()
        samples.append(time.perf_counter() - start)
    return larger_host, out, samples
