"""Stage 2: the exercise's hidden data (inputs, their ``.npz`` bytes, references),
made once per process and shared by every later grade of the exercise."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from syncgrade.rubric.base import Exercise


@dataclass(frozen=True)
class HiddenData:
    """An exercise's hidden inputs (read-only arrays), their bytes as the child reads them
    (``.npz``), and its references (computed on a background thread)."""

    inputs: dict[str, np.ndarray]
    npz: bytes
    references: _Background

_HIDDEN: dict[tuple[Any, Any], HiddenData] = {}

_HIDDEN_LOCK = threading.Lock()

def hidden_data(exercise: Exercise) -> HiddenData:
    """The exercise's hidden data, made once per process and shared by every later grade
    of it.

    ``make_inputs`` is deterministic by contract (seeded; ``grade validate`` checks that
    it gives the same arrays twice) and checks only read them, so a batch, a service or
    the suite need not rebuild them for each submission. The first grade computes the
    references while its child runs. Keyed by the two functions themselves, so an
    exercise whose inputs or references are replaced gets its own entry.
    """
    key = (exercise.make_inputs, exercise.make_references)
    with _HIDDEN_LOCK:
        cached = _HIDDEN.get(key)
        if cached is None or cached.references.failed:  # a failure is not kept
            inputs = exercise.make_inputs()
            for array in inputs.values():
                if isinstance(array, np.ndarray):
                    array.setflags(write=False)  # a check that wrote would fault loudly
            cached = _HIDDEN[key] = HiddenData(
                inputs, npz_bytes(inputs), _Background(exercise.make_references, inputs))
        return cached

class _Background:
    """``fn(*args)`` on a daemon thread; :meth:`result` waits and returns or raises (the
    same value or exception on every call)."""

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(fn, *args), daemon=True,
                                        name="syncgrade-references")
        self._thread.start()

    def _run(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            self._value = fn(*args)
        except BaseException as exc:  # re-raised by result() on the grading thread
            self._error = exc

    @property
    def failed(self) -> bool:
        """Finished with an exception."""
        return not self._thread.is_alive() and self._error is not None

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value

def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` as the bytes of an ``.npz`` file (what the child's job names)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()
