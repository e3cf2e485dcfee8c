"""Batch throughput: the local warm pool vs a Dask LocalCluster, on the same files (issue 20).

The same N submissions (exercise 1's corpus files whose verdict no measured race moves,
repeated under distinct names) are graded, round after round, alternately by

- ``local``: :func:`syncgrade.batch.grade_all` over one :class:`~syncgrade.pool.WarmPool`
  of ``--jobs`` children in this process (what ``grade batch`` does);
- ``cluster``: :func:`syncgrade.cluster.grade_all` over a ``LocalCluster`` of
  ``--workers`` worker processes, one thread each, on loopback (what
  ``grade batch --cluster`` does), each worker grading in its own warm pool.

Both are started and warmed before the timed rounds (their start-up is printed apart),
so a round measures grading only; rounds alternate so the machine's drift hits both. It
prints each side's median wall time and files per second, and the ratio.

    .venv/bin/python benchmarks/cluster_throughput.py [-n 40] [--rounds 3] [--jobs 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]
EXERCISE = "exercise-1"
TIMEOUT = 30.0


def submissions(folder: Path, count: int) -> list[Path]:
    """``count`` files in ``folder``: the race-free corpus files of exercise 1, repeated."""
    from corpus_support import corpus_cases, races

    cases = [c for c in corpus_cases() if c.exercise == EXERCISE and not races(c)]
    paths = []
    for i in range(count):
        case = cases[i % len(cases)]
        path = folder / f"{i:03d}_{case.path.stem}.py"
        path.write_bytes(case.path.read_bytes())
        paths.append(path)
    return paths


def timed(run: Iterable[object]) -> float:
    """Seconds for one batch: ``run`` yields one report per file."""
    started = time.perf_counter()
    count = sum(1 for _ in run)
    assert count, "no reports"
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=40, help="files per batch (default: 40)")
    parser.add_argument("--rounds", type=int, default=3, help="batches per side (default: 3)")
    parser.add_argument("--jobs", type=int, default=2, help="local pool size (default: 2)")
    parser.add_argument("--workers", type=int, default=2,
                        help="LocalCluster workers, one thread each (default: 2)")
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    from syncgrade import batch, cluster, grading
    from syncgrade.pool import WarmPool

    with tempfile.TemporaryDirectory() as folder:
        paths = submissions(Path(folder), args.n)
        started = time.perf_counter()
        pool = WarmPool(args.jobs, timeout=TIMEOUT, defer_refill=False)
        timed(batch.grade_all(paths[:args.jobs], lambda p: grading.grade(
            EXERCISE, p, timeout=TIMEOUT, pool=pool), args.jobs))
        local_start = time.perf_counter() - started
        started = time.perf_counter()
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                          host="127.0.0.1", dashboard_address=None,
                          silence_logs=50) as local_cluster, \
                Client(local_cluster, set_as_default=False) as client:
            timed(cluster.grade_all(client, EXERCISE, paths[:args.workers],
                                    timeout=TIMEOUT))
            cluster_start = time.perf_counter() - started
            times: dict[str, list[float]] = {"local": [], "cluster": []}
            for _ in range(args.rounds):
                times["local"].append(timed(batch.grade_all(
                    paths, lambda p: grading.grade(EXERCISE, p, timeout=TIMEOUT, pool=pool),
                    args.jobs)))
                times["cluster"].append(timed(cluster.grade_all(client, EXERCISE, paths,
                                                                timeout=TIMEOUT)))
            worker_rss = sorted(client.run(peak_rss_mib).values())
        pool.close()
    print(f"{args.n} files x {args.rounds} rounds; local pool of {args.jobs}, "
          f"LocalCluster of {args.workers} workers x 1 thread")
    print(f"start-up and warm-up: local {local_start:.1f} s, cluster {cluster_start:.1f} s")
    median = {side: statistics.median(values) for side, values in times.items()}
    for side, values in times.items():
        print(f"{side:8} median {median[side]:6.1f} s  {args.n / median[side]:5.2f} files/s"
              f"  (rounds: {', '.join(f'{v:.1f}' for v in values)})")
    print(f"cluster / local throughput: {median['local'] / median['cluster']:.2f}x")
    print(f"peak RSS of each Dask worker process (its children apart): "
          f"{', '.join(f'{m:.0f}' for m in worker_rss)} MiB")


def peak_rss_mib() -> float:
    """This process's peak resident memory (Linux: ``ru_maxrss`` is in KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()
