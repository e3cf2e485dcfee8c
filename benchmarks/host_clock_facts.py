"""What the grading host's kernel offers the child's CPU accounting (issue 34), as JSON.

Two facts decide how ``interval-clean`` and ``sample-duration`` judge on a machine:

- the step of the thread CPU clock the recorder stamps events with
  (``child.__main__.cpu_clock_step_ns``, 5 reads): about a microsecond on Linux, 10 ms
  under gVisor (the TPU machines measured), where an interval's CPU bound grows by it;
- whether the threads' run-queue waits can be read (``/proc/self/task/*/schedstat``,
  ``child.reference.RunQueue.measured``): where they cannot, ``sample-duration`` keeps
  its fallback margins (docs/checks.md).

And whether the learner's threads' CPU time can be read from another thread, as the
recorder does (``time.pthread_getcpuclockid`` of the thread, read with
``time.clock_gettime_ns`` by the reading thread; ``interval-clean`` counts a learner's
thread's work inside a timed interval so): ``learner_thread_clock``.

Both are read after jax has opened the default device (its threads exist then, as in a
grading child), on the device ``JAX_PLATFORMS`` picks:

    python benchmarks/host_clock_facts.py
"""

from __future__ import annotations

import glob
import json
import os
import platform
import threading
import time


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


def busy_numpy(seconds: float) -> None:
    """About ``seconds`` of single-threaded NumPy work on the calling thread."""
    import numpy as np

    x = np.linspace(0.0, 1.0, 200_000)
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        np.tanh(x)


def other_thread_clock(work_s: float = 0.2) -> dict[str, object]:
    """A thread does ``work_s`` of NumPy work; this thread reads that thread's CPU clock,
    by the id the thread took of itself (as the recorder reads a learner's thread), before
    and after the work, and the thread reports its own ``thread_time_ns`` at the end: the
    two should agree within the clock's step where the kernel offers the clock."""
    facts: dict[str, object] = {}
    ready, go, done, finish = (threading.Event() for _ in range(4))

    def worker() -> None:
        try:
            facts["clock_id"] = time.pthread_getcpuclockid(threading.get_ident())
        except (AttributeError, OSError) as exc:
            facts["clock_id_error"] = repr(exc)
        ready.set()
        go.wait()
        busy_numpy(work_s)
        facts["own_ns"] = time.thread_time_ns()
        done.set()
        finish.wait()

    thread = threading.Thread(target=worker)
    thread.start()
    ready.wait()
    clock = facts.get("clock_id")
    reads: list[object] = []

    def read() -> None:
        try:
            reads.append(time.clock_gettime_ns(clock) if isinstance(clock, int) else None)
        except OSError as exc:
            reads.append(repr(exc))

    read()
    go.set()
    done.wait()
    read()
    finish.set()
    thread.join()
    facts["read_before_ns"], facts["read_after_ns"] = reads
    return facts


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
             "schedstat": schedstat_files(), "run_queue_measured": queue.measured,
             "learner_thread_clock": other_thread_clock()}
    queue.close()
    print(json.dumps(facts, indent=1))


if __name__ == "__main__":
    main()
