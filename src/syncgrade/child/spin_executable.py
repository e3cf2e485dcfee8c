"""The probe's spin compiled once per zygote, and loaded by every child forked from it.

A warm pool child compiles the probe's spin while it waits for its job
(``workloads.prewarm_spin``): 0.07-0.095 CPU-s of XLA:CPU compilation in every child, most
of the warm-up and about a tenth of the test suite's CPU time (docs/performance.md, "The
test suite's time"). A pool's zygote (``syncgrade.sandbox.Zygote``, ``prepare=``) runs
:func:`prepare` once, in a throwaway fork of itself that may start a backend because it
ends right after: it compiles the spin exactly as the warm-up does and returns the entry
jax's compilation cache would store for it (its key, and the serialized executable). The
zygote keeps those bytes (:func:`adopt`); every child forked later inherits them, and its
warm-up compiles the spin inside :func:`adopted`, with a one-entry cache holding them:
jax traces and lowers the spin as always, and where its cache key matches (the same
program, jax, XLA flags, compile options and device) loads the executable instead of
compiling it (about 0.03 CPU-s, the executable's first run included). The fork also
measures the spin's rate, and each child's own measurement starts its search at the step
count the fork ended with (:func:`first_steps`), skipping the shorter runs that would
only find it again (about 0.01 CPU-s); the rate a child keeps is still its own.

Why no learner can forge it: the bytes are made by grader code in a process that never
ran learner code, and live in the zygote's memory, which no run can write (each fork has
its own copy-on-write copy; docs/security.md, "The zygote"). Nothing goes through a
file. The cache is in place only while the warm-up compiles the spin, before any learner
code exists, and removed right after: a learner's own programs, a re-jit of the handed
probe included, compile as they always did. The spin is the same program: jax lowers it
as before, and the executable is what XLA made of that module (a key that differs in
anything jax hashes misses, and the spin compiles here as it did before).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

import jax
import numpy as np

from syncgrade.child import workloads
from syncgrade.child.jax_private import CacheInterface, compilation_cache

_ADOPTED: tuple[str, bytes] | None = None
"""The spin's cache entry, in a zygote (and so in every child forked from it) that
adopted one; None elsewhere (a cold child compiles the spin as before)."""
_FIRST_STEPS = workloads.FIRST_STEPS  # where the rate's search starts (adopted with it)

_SEPARATOR = b"\0"  # a cache key is text (a module name, '-', a hex digest): no NUL


class _Entries(CacheInterface):
    """A compilation cache in memory: what jax puts, and the entries it was given. Never
    a file: nothing another process could write reaches it."""

    _path = None  # type: ignore[assignment]  # no file; read by reset_cache()'s log

    def __init__(self, entries: dict[str, bytes] | None = None) -> None:
        self.entries = dict(entries or {})
        self.hits = 0

    def get(self, key: str) -> bytes | None:
        value = self.entries.get(key)
        self.hits += value is not None
        return value

    def put(self, key: str, value: bytes) -> None:
        self.entries[key] = value


@contextlib.contextmanager
def _caching(entries: _Entries) -> Iterator[_Entries]:
    """Compilations inside use ``entries`` as jax's compilation cache; afterwards the
    cache is back to jax's own pristine state (none configured)."""
    compilation_cache.reset_cache()
    compilation_cache._cache = entries
    try:
        yield entries
    finally:
        compilation_cache.reset_cache()


def compile_spin() -> None:
    """Compile the spin and run it once, as the warm-up's first run does
    (``workloads.measure_spin``: the plain ``jax.jit``, the probe's elements, 10 steps):
    the same call lowers to the same module, so its cache key is the warm-up's."""
    x = np.ones((workloads.PROBE_ELEMENTS,), np.float32)
    workloads.time_spin(jax.jit(workloads.spin), x, 10, time.perf_counter)


def prepare() -> bytes:
    """In a zygote's throwaway fork (which starts the backend): compile the spin as
    :func:`compile_spin` does, measure its rate as a warm-up does, and return the step
    count the measurement ended with and jax's cache entry for the spin, as ``steps NUL
    key NUL value``; empty when jax stored no entry (e.g. caching turned off in its
    config)."""
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)  # store it
    with _caching(_Entries()) as entries:
        compile_spin()
    if len(entries.entries) != 1:
        return b""
    rate = workloads.measure_spin(jax.jit(workloads.spin), time.perf_counter)
    assert rate is not None  # without ``stop`` a measurement always finishes
    ((key, value),) = entries.entries.items()
    return str(rate.steps).encode() + _SEPARATOR + key.encode() + _SEPARATOR + value


def adopt(data: bytes) -> None:
    """In the zygote, after :func:`prepare` ran in its fork: keep the entry and the step
    count, so that every child forked from now on inherits them. Ignores anything
    malformed (empty: none)."""
    global _ADOPTED, _FIRST_STEPS
    steps, separator, rest = data.partition(_SEPARATOR)
    key, separator_2, value = rest.partition(_SEPARATOR)
    if separator and separator_2 and steps.isdigit() and key and value:
        _ADOPTED = (key.decode(), value)
        _FIRST_STEPS = max(workloads.FIRST_STEPS, int(steps))


def first_steps() -> int:
    """Where a warm-up's rate search starts: the step count the zygote's fork ended its
    own measurement with, where one was adopted; else ``workloads.FIRST_STEPS``."""
    return _FIRST_STEPS


@contextlib.contextmanager
def adopted() -> Iterator[_Entries | None]:
    """While inside, a compilation whose cache key is the adopted entry's loads it
    instead of compiling (the warm-up's spin); yields the cache (``hits`` counts the
    loads), or None where nothing was adopted (jax's caching untouched). Grader code
    only, before any learner code runs: afterwards jax's cache is as if never set."""
    if _ADOPTED is None:
        yield None
        return
    key, value = _ADOPTED
    with _caching(_Entries({key: value})) as entries:
        yield entries
