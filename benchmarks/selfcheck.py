"""Self-check on the current device (issue 34): do the verdicts hold here, and how fast?

Grades, through the real engine on the device the grader picks (``--device``, default
``auto``: what JAX picks; ``SYNCGRADE_DEVICE`` is set for every child):

1. every reference solution (expected: full marks) and every stub (expected: ``failed``,
   never ``error``) of the built-in course;
2. a stratified sample of each exercise's corpus: ``--per-class`` correct files
   (``expect: pass``) and as many flawed ones (their ``expect-fail`` checks failed, and
   no other but their ``may-fail`` and co-firing ones, as ``tests/courses/test_corpus.py``
   requires; on a TPU their ``tpu-may-pass`` checks may pass, and a file's
   ``tpu-may-fail`` checks may fail), drawn with a seed it prints (``--seed`` repeats a
   draw), and any corpus files ``--files`` names (stage ``files``);
3. a memory bomb (expected: cause ``memory_limit``, with the limit that applied);

and prints the agreement with the corpus folders, then the speed figures side by side:
the floor (a fresh ``python -c "import jax"`` plus one jitted call), a cold CLI grade of
the exercise-1 solution as a ratio of it (target <= 1.5), and a repeat CLI grade through
the warm grader daemon (target <= 0.5). Every result is also appended to ``--log`` (JSON
lines), so a run stopped at a time limit keeps what it decided.

    python benchmarks/selfcheck.py --device tpu [--per-class 3] [--seed N]
           [--only solutions,stubs,corpus,files,bomb,speed] [--exercises 1,4]
           [--files GLOB ...] [--log FILE] [--evidence]

(``--only`` runs the stages in the order given; the stage ``files`` grades the corpus
files ``--files`` names, judged as the sample's are; it is not in the default stages.)

Exit status 0 when every verdict agrees, 1 otherwise. This process never imports jax
(only the children and the floor do).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"
FLOOR = [sys.executable, "-c",
         "import jax, jax.numpy as jnp; "
         "jax.jit(lambda x: jnp.tanh(x @ x))(jnp.ones((64, 64))).block_until_ready()"]
BOMB = '''
import time
import numpy as np

blocks = []
for _ in range(24):  # 256 MiB of touched memory at a time, at import: 6 GiB at most,
    blocks.append(np.ones(2**25))  # so a limit that failed cannot exhaust the machine
    time.sleep(0.05)
time.sleep(3600)
'''
STAGES = ("solutions", "stubs", "corpus", "files", "bomb", "speed")


@dataclass(frozen=True)
class Item:
    """One file to grade and what its folder says it must get."""

    exercise: str
    kind: str  # solution, stub, correct, flawed
    path: Path
    expected_failures: frozenset[str] = frozenset()
    may_fail: frozenset[str] = frozenset()  # the header's ``may-fail``: these may fail too
    tpu_may_pass: frozenset[str] = frozenset()  # ``tpu-may-pass``: may pass on a TPU
    tpu_may_fail: frozenset[str] = frozenset()  # ``tpu-may-fail``: may fail on a TPU


def exercises(only: Sequence[str]) -> list[str]:
    """The built-in course's exercise ids, in order (``only``: their numbers)."""
    found = sorted((p.name for p in COURSE.glob("exercise-*") if p.is_dir()),
                   key=lambda name: int(name.split("-")[1]))
    return [e for e in found if not only or e.split("-")[1] in only]


def reference_items(ids: Sequence[str], kind: str) -> list[Item]:
    """Every solution (``kind="solution"``) or stub of ``ids``."""
    return [Item(e, kind, SOLUTIONS / e / "solution.py" if kind == "solution"
                 else COURSE / e / "stub.py") for e in ids]


def corpus_items(ids: Sequence[str], per_class: int, seed: int) -> list[Item]:
    """``per_class`` correct and flawed corpus files of each exercise, drawn by ``seed``
    (sorted names, then ``random.Random(f"{seed}:{exercise}:{kind}").sample``): each
    exercise's draw depends on the seed alone, not on which other exercises are drawn,
    so a sample split over several runs (``--exercises``) is the whole run's sample."""
    from syncgrade.authoring.cases import corpus_case

    items = []
    for exercise in ids:
        for kind in ("correct", "flawed"):
            rng = random.Random(f"{seed}:{exercise}:{kind}")
            files = sorted((COURSE / exercise / "corpus" / kind).glob("*.py"))
            for path in rng.sample(files, min(per_class, len(files))):
                case = corpus_case(path)
                items.append(Item(exercise, kind, path, frozenset(case.expected_failures),
                                  case.may_fail, case.tpu_may_pass, case.tpu_may_fail))
    return items


def named_items(patterns: Sequence[str]) -> list[Item]:
    """The corpus files matching ``patterns`` (globs relative to the project, e.g.
    ``exercises/exercise-1/corpus/flawed/alternating_*.py``), in the order given, each
    once: a chosen set beside (or instead of) the seed's draw, such as every file with a
    ``tpu-may-pass`` header. A pattern that matches no corpus file is an error."""
    from syncgrade.authoring.cases import corpus_case

    items: list[Item] = []
    seen: set[Path] = set()
    for pattern in patterns:
        paths = sorted(p for p in ROOT.glob(pattern) if p.parent.parent.name == "corpus"
                       and p.parent.name in ("correct", "flawed") and p.suffix == ".py")
        if not paths:
            raise SystemExit(f"--files: {pattern!r} names no corpus file")
        for path in paths:
            if path in seen:
                continue
            seen.add(path)
            case = corpus_case(path)
            items.append(Item(case.exercise, case.kind, path,
                              frozenset(case.expected_failures), case.may_fail,
                              case.tpu_may_pass, case.tpu_may_fail))
    return items


def agrees(item: Item, report: object) -> tuple[bool, str]:
    """Whether ``report`` is what ``item``'s folder expects, and what it got, by the CPU
    tests' rules: a flawed file fails its ``expect-fail`` checks and no other but its
    ``may-fail`` ones and their co-firing ones (``authoring.cases.co_firing``: one expected
    to fail ``interval-clean`` may fail ``sample-duration`` too). Graded on a TPU, a flawed
    file's ``tpu-may-pass`` checks may pass (all of them: full marks), and a corpus file's
    ``tpu-may-fail`` checks may fail (a correct one's too: ``failed`` by them alone)."""
    status = getattr(report, "status", "?")
    failed = frozenset(c.id for c in getattr(report, "checks", ()) if c.status == "failed")
    got = f"{status} {getattr(report, 'score', 0):g}/{getattr(report, 'max_score', 0):g}"
    if failed:
        got += f" failed: {' '.join(sorted(failed))}"
    if status == "error":
        got += f" ({getattr(report, 'cause', '')}: {getattr(report, 'summary', '')[:300]})"
    from syncgrade.authoring.cases import co_firing

    if item.kind == "stub":
        return status == "failed", got
    on_tpu = getattr(getattr(report, "provenance", None), "backend", None) == "tpu"
    graded = status == ("failed" if failed else "passed")  # never an error
    if item.kind in ("solution", "correct"):
        return graded and failed <= (item.tpu_may_fail if on_tpu else frozenset()), got
    must_fail = item.expected_failures - (item.tpu_may_pass if on_tpu else frozenset())
    allowed = item.expected_failures | item.may_fail | co_firing(item.expected_failures)
    if on_tpu:
        allowed |= item.tpu_may_fail
    return graded and must_fail <= failed <= allowed, got


def evidence(report: object) -> list[dict[str, object]]:
    """What a disagreeing grade's failed checks said: message and facts (the log keeps
    them, so a verdict that does not recur can still be explained)."""
    return [{"id": c.id, "message": c.message, "facts": dict(c.evidence.facts)}
            for c in getattr(report, "checks", ()) if c.status == "failed"]


def grade_all(items: Sequence[Item], log: Callable[[dict[str, object]], None],
              every_evidence: bool = False) -> list[tuple[Item, bool, str, float]]:
    """Grade each item in this process (each child cold, holding the device lease). The
    log keeps a disagreeing grade's failed checks' messages and facts, and every grade's
    with ``every_evidence`` (which of a flawed file's checks found what, e.g. whether
    ``interval-clean`` saw a learner's thread's CPU time on this host)."""
    import syncgrade

    results = []
    for item in items:
        start = time.perf_counter()
        report = syncgrade.grade(item.exercise, item.path)
        took = time.perf_counter() - start
        ok, got = agrees(item, report)
        backend = report.provenance.backend
        results.append((item, ok, got, took))
        log({"stage": "grade", "exercise": item.exercise, "kind": item.kind,
             "file": str(item.path.relative_to(ROOT)), "agrees": ok, "got": got,
             "expected": sorted(item.expected_failures), "seconds": round(took, 2),
             "backend": backend, "device": report.provenance.device,
             "jax": report.provenance.jax_version,
             **({} if ok and not every_evidence else {"evidence": evidence(report)})})
        print(f"  {'ok ' if ok else 'NO '} {took:6.1f} s  {item.exercise:11} {item.kind:8} "
              f"{item.path.name}: {got} [{backend}]", flush=True)
    return results


def memory_bomb(log: Callable[[dict[str, object]], None]) -> bool:
    """A submission that allocates without end ends as ``memory_limit``."""
    import syncgrade

    report = syncgrade.grade("exercise-1", source=BOMB, memory_bytes=2 * 2**30, timeout=30)
    applied = [p.name for p in report.grading.protections if p.applied
               and p.name in ("address-space-limit", "resident-memory-limit")]
    ok = report.cause == "memory_limit"
    log({"stage": "bomb", "agrees": ok, "cause": report.cause, "limit": applied,
         "summary": report.summary[:300]})
    print(f"  {'ok ' if ok else 'NO '} memory bomb: cause {report.cause}, limit "
          f"{' '.join(applied)}: {report.summary[:160]}", flush=True)
    return ok


def _timed(argv: Sequence[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False,
                          env=env)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: a grade that is not full marks still ran
        raise SystemExit(f"{' '.join(argv[:5])} failed ({done.returncode}):\n"
                         f"{done.stderr[-3000:]}")
    return took


def speed(runs: int, log: Callable[[dict[str, object]], None]) -> dict[str, float]:
    """The floor and a cold CLI grade, interleaved; then repeat grades through a
    daemon. The daemon's warm child holds the device, so its figures come last."""
    from syncgrade import daemon

    solution = str(SOLUTIONS / "exercise-1" / "solution.py")
    cli = [sys.executable, "-m", "syncgrade.cli", "exercise-1", solution, "--json"]
    folder = Path(tempfile.mkdtemp(prefix="syncgrade-selfcheck-"))
    env = {**os.environ, daemon.DIR_ENV: str(folder / "daemon"),
           "XDG_STATE_HOME": str(folder / "state")}
    cold_env = {**env, daemon.USE_ENV: "0"}
    floor, cold, warm = [], [], []
    for i in range(runs):
        floor.append(_timed(FLOOR, env))
        cold.append(_timed(cli, cold_env))
        print(f"  run {i + 1}: floor {floor[-1]:.2f} s   cold CLI grade {cold[-1]:.2f} s",
              flush=True)
    os.environ[daemon.DIR_ENV] = env[daemon.DIR_ENV]
    _timed([sys.executable, "-m", "syncgrade.cli", "daemon", "start"], env)
    try:
        _timed(cli, env)  # the daemon's first grade imports the rubric's lazy parts
        for i in range(runs):
            _until(lambda: daemon.call({"op": "ping"}, 30)["warm_children"] >= 1, 300)
            warm.append(_timed(cli, env))
            print(f"  run {i + 1}: repeat grade through the daemon {warm[-1]:.3f} s",
                  flush=True)
    finally:
        _timed([sys.executable, "-m", "syncgrade.cli", "daemon", "stop"], env)
    f, c, w = (statistics.median(v) for v in (floor, cold, warm))
    figures = {"floor_s": f, "cold_s": c, "daemon_s": w, "cold_ratio": c / f,
               "daemon_ratio": w / f}
    log({"stage": "speed", **{k: round(v, 3) for k, v in figures.items()},
         "floor_runs": floor, "cold_runs": cold, "daemon_runs": warm})
    print(f"floor (import jax + one jitted call), median of {runs}: {f:.2f} s")
    print(f"cold CLI grade: median {c:.2f} s = {c / f:.2f} x floor (target <= 1.5)")
    print(f"repeat grade through the daemon: median {w:.2f} s = {w / f:.2f} x floor "
          "(target <= 0.5)")
    return figures


def _until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("the daemon's pool did not warm up in time")
        time.sleep(0.05)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "tpu", "gpu"))
    parser.add_argument("--per-class", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--only", default=",".join(s for s in STAGES if s != "files"))
    parser.add_argument("--exercises", default="", help="numbers, e.g. 1,4 (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="speed: runs of each figure")
    parser.add_argument("--files", nargs="*", default=[],
                        help="stage 'files': these corpus files (globs from the project)")
    parser.add_argument("--log", type=Path, default=None, help="append JSON lines here")
    parser.add_argument("--evidence", action="store_true",
                        help="log every grade's failed checks' messages and facts")
    args = parser.parse_args(argv)
    os.environ["SYNCGRADE_DEVICE"] = args.device  # accelerator.DEVICE_ENV
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    ids = exercises([n for n in args.exercises.split(",") if n])

    def log(entry: dict[str, object]) -> None:
        if args.log is not None:
            with args.log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    log({"stage": "start", "device": args.device, "seed": seed, "date": time.strftime(
        "%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "python": sys.version.split()[0]})
    print(f"selfcheck on device {args.device!r}, seed {seed}, {len(ids)} exercises",
          flush=True)
    results: list[tuple[Item, bool, str, float]] = []
    everything_agrees = True
    started = time.perf_counter()
    for stage in args.only.split(","):  # in the order given
        if stage in ("solutions", "stubs"):
            results += grade_all(reference_items(ids, stage[:-1]), log, args.evidence)
        elif stage == "corpus":
            results += grade_all(corpus_items(ids, args.per_class, seed), log, args.evidence)
        elif stage == "files":
            results += grade_all(named_items(args.files), log, args.evidence)
        elif stage == "bomb":
            everything_agrees = memory_bomb(log) and everything_agrees
        elif stage == "speed":
            speed(args.runs, log)
        else:
            parser.error(f"unknown stage {stage!r} (stages: {', '.join(STAGES)})")
    agreed = sum(ok for _, ok, _, _ in results)
    everything_agrees = everything_agrees and agreed == len(results)
    print(f"agreement: {agreed}/{len(results)} grades as their folders say "
          f"({time.perf_counter() - started:.0f} s in all, seed {seed})", flush=True)
    for item, ok, got, _ in results:
        if not ok:
            print(f"  disagrees: {item.path.relative_to(ROOT)} ({item.kind}): {got}")
    log({"stage": "end", "agreed": agreed, "graded": len(results)})
    return 0 if everything_agrees else 1


if __name__ == "__main__":
    sys.exit(main())
