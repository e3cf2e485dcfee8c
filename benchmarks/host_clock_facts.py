"""What the grading host's kernel offers the child's CPU accounting (issue 34), as JSON.

Two facts decide how ``interval-clean`` and ``sample-duration`` judge on a machine:

- the step of the thread CPU clock the recorder stamps events with
  (``child.__main__.cpu_clock_step_ns``, 5 reads): about a microsecond on Linux, 10 ms
  under gVisor (the TPU machines measured), where an interval's CPU bound grows by it;
- whether the threads' run-queue waits can be read (``/proc/self/task/*/schedstat``,
  ``child.reference.RunQueue.measured``): where they cannot, ``sample-duration`` keeps
  its fallback margins (docs/checks.md).

Both are read after jax has opened the default device (its threads exist then, as in a
grading child), on the device ``JAX_PLATFORMS`` picks:

    python benchmarks/host_clock_facts.py
"""

from __future__ import annotations

import glob
import json
import os
import platform


def schedstat_files() -> dict[str, object]:
    """How many of this process's threads have a schedstat file, how many could be read,
    and the first one's text (three numbers on Linux: CPU ns, run-queue wait ns, slices)."""
    tasks = sorted(glob.glob("/proc/self/task/*"))
    readable: list[str] = []
    for task in tasks:
        try:
            with open(f"{task}/schedstat", encoding="ascii") as f:
                readable.append(f.read().strip())
        except OSError:
            continue
    return {"threads": len(tasks), "readable": len(readable),
            "first": readable[0] if readable else None,
            "proc_schedstat": os.path.exists("/proc/schedstat")}


def main() -> None:
    import jax
    import jax.numpy as jnp

    jax.jit(lambda x: jnp.tanh(x @ x))(jnp.ones((64, 64))).block_until_ready()
    from syncgrade.child.__main__ import cpu_clock_step_ns
    from syncgrade.child.reference import RunQueue

    queue = RunQueue()
    facts = {"backend": jax.default_backend(), "device": jax.devices()[0].device_kind,
             "jax": jax.__version__, "kernel": platform.release(),
             "version": open("/proc/version", encoding="ascii").read().strip(),  # noqa: SIM115
             "cpus": os.cpu_count(), "cpu_clock_step_ns": [cpu_clock_step_ns()
                                                           for _ in range(5)],
             "schedstat": schedstat_files(), "run_queue_measured": queue.measured}
    queue.close()
    print(json.dumps(facts, indent=1))


if __name__ == "__main__":
    main()
