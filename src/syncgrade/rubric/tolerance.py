"""How far a correct float32 result may be from the grader's float64 reference.

``numpy-match`` compares the learner's result with a float64 NumPy reference element by
element. The allowed difference is not one number picked on one machine: it is derived
from the rounding error that *any* correct float32 evaluation can make, whatever summation
order, blocking, vector width, thread split or fused multiply-add the backend uses. A
result outside it is wrong on every machine; a correct result is inside it on every
machine. Pure NumPy: this module runs in the parent, which never imports jax.

The model (``u = 2**-24``, the unit roundoff of float32; ``gamma_n = n*u / (1 - n*u)``):

- **Matrix product** ``y = x @ w``, float32 inputs, reduction length ``K``. For any order
  of the ``K`` additions and any mix of separate and fused multiply-adds, the classic
  bound (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. 3.13) is
  ``|fl(y) - y| <= gamma_K * (|x| @ |w|)`` element-wise; ``|x| @ |w|`` is computed in
  float64 (exact enough: its own error is ~1e-16 relative). Backends whose default matmul
  precision rounds the float32 inputs first (GPU tensor cores: TF32, ``u_in = 2**-11``;
  TPU: bfloat16, ``u_in = 2**-8``) add ``(2*u_in + u_in**2) * (|x| @ |w|)`` for the
  rounded products, and the float32 accumulation then works on inputs up to
  ``(1 + u_in)**2`` larger. ``u_in`` comes from the backend the child reported
  (:func:`input_unit`): ``cpu`` (and a host NumPy result) 0; ``gpu``/``cuda``/``rocm``
  ``2**-11``; anything else, e.g. ``tpu`` or an unknown backend, ``2**-8`` (the
  coarsest input rounding a default-precision backend uses). A term ``2*K*2**-126`` covers
  products and partial sums flushed to zero (it is ~1e-35: inputs here are O(1)).
- **tanh.** ``tanh`` is increasing, so with ``|z' - z| <= d`` the difference
  ``|tanh(z') - tanh(z)|`` is at most ``tanh(|z|) - tanh(|z| - d)`` (the step towards 0
  is the steeper one because ``tanh'`` decreases in ``|z|``). This is the exact supremum
  over the interval, tighter than the mean-value bound ``sech^2(max(|z| - d, 0)) * d``.
  A float32 ``tanh`` then adds its own error: XLA on CPU and GPU evaluates a clamped
  rational approximation (measured here at 2.3 ulp of 1.0 over a dense grid of
  [-12, 12]; evaluated with or without FMA it moves by a few ulp), NumPy's is within
  1 ulp, and the output rounds to float32 (half an ulp). :data:`TANH_ABS` allows 32 ulp
  of 1.0 (3.8e-6), ten times the largest of these, and far below what a wrong result
  differs by. A TPU's float32 ``tanh`` is coarser: measured on a TPU v5e at 369 ulp of
  1.0 (4.4e-5) over the same grid, 8.1e-5 relative (docs/accelerators.md);
  :data:`COARSE_TANH_ABS`, 1024 ulp of 1.0 (1.2e-4), applies to every backend whose
  inputs round to bfloat16 (``tpu`` and unknown ones, :func:`tanh_error`).
- **Row-wise energy** ``e_i = sum_j y_ij**2`` over ``N`` outputs (exercise-5). With
  ``|y'_ij - y_ij| <= d_ij`` from the matrix product, ``|sum y'**2 - sum y**2| <=
  sum (2|y| d + d**2)``; squaring and summing ``N`` terms in float32 (any order) adds at
  most ``gamma_{N+3} * sum (|y| + d)**2``: ``N - 1`` additions and one rounding per
  square, plus two for a result computed as ``norm(y)**2`` (square root and square).

**Never stricter than the lesson.** The lessons tell learners to check their result with
``np.testing.assert_allclose(result, numpy_float32_reference, atol=2e-5, rtol=2e-5)``.
If that check passes, then, with the float32 NumPy reference itself within the host bound
``h`` (the model with ``u_in = 0``) of the exact value ``v``, the result is within
``2e-5 + 2e-5 * (|v| + h) + h`` of ``v``. The allowed difference is the larger of that and
the derived bound, so ``numpy-match`` never blames a learner whose own NumPy check passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

U32 = 2.0**-24
"""Unit roundoff of float32 (round to nearest)."""
TF32_UNIT = 2.0**-11
"""Unit roundoff of TF32 (10 stored mantissa bits), the GPU's default matmul input."""
BF16_UNIT = 2.0**-8
"""Unit roundoff of bfloat16 (7 stored mantissa bits), the TPU's default matmul input."""
TANH_ABS = 32 * 2.0**-23
"""Absolute error allowed for a float32 ``tanh`` implementation and its output rounding."""
COARSE_TANH_ABS = 1024 * 2.0**-23
"""Absolute error allowed for a TPU's (or an unknown backend's) float32 ``tanh``."""
FLUSH = 2.0**-126
"""The smallest normal float32: what a flush-to-zero loses at most per operation."""
LESSON_ATOL = 2e-5
LESSON_RTOL = 2e-5
"""The tolerances the lessons give learners for their own NumPy check."""

HOST = "host"
"""Backend name for a result computed by NumPy on the host (``reference-is-numpy``)."""

Bound = Callable[..., np.ndarray]
"""``bound(u_in, tanh_abs=TANH_ABS)``: see :class:`Expected`."""


def input_unit(backend: str) -> float:
    """Unit roundoff of the matmul inputs on ``backend`` at JAX's default precision."""
    name = backend.strip().lower()
    if name in ("cpu", HOST, "numpy"):
        return 0.0
    if name in ("gpu", "cuda", "rocm"):
        return TF32_UNIT
    return BF16_UNIT


def tanh_error(backend: str) -> float:
    """Absolute error allowed for a float32 ``tanh`` computed on ``backend``."""
    return COARSE_TANH_ABS if input_unit(backend) == BF16_UNIT else TANH_ABS


def gamma(n: int, u: float = U32) -> float:
    """Higham's ``gamma_n = n*u / (1 - n*u)``: the relative error bound of ``n`` roundings."""
    if n * u >= 1:
        raise ValueError(f"gamma_{n} is undefined for u={u}")
    return n * u / (1 - n * u)


def matmul_error(magnitude: np.ndarray, k: int, u_in: float) -> np.ndarray:
    """Bound on ``|fl(x @ w) - x @ w|`` given ``magnitude = |x| @ |w|`` (float64) and the
    reduction length ``k``, for any summation order, with inputs rounded to ``u_in``."""
    relative = (2 * u_in + u_in**2) + gamma(k) * (1 + u_in) ** 2
    return relative * magnitude + 2 * k * FLUSH


def tanh_spread(z: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``sup |tanh(z') - tanh(z)|`` over ``|z' - z| <= d``: ``tanh(|z|) - tanh(|z| - d)``."""
    a = np.abs(z)
    return np.tanh(a) - np.tanh(a - d)


@dataclass(frozen=True, eq=False)
class Expected:
    """A float64 reference ``value`` and ``bound(u_in, tanh_abs=TANH_ABS)``: the largest
    difference, element by element, between ``value`` and any correct float32 evaluation
    whose matmul inputs are rounded to ``u_in`` (0 for exact float32 inputs) and whose
    ``tanh``, if it has one, is within ``tanh_abs``.

    Behaves as an array of ``value`` for NumPy (``np.asarray``, ``np.shape``)."""

    value: np.ndarray
    bound: Bound
    _allowed: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.shape)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self.value, dtype=dtype)

    def allowed(self, backend: str) -> np.ndarray:
        """The allowed ``|result - value|`` per element for a result computed on
        ``backend``: the derived bound, never tighter than the lesson's own check.
        Computed once per backend (the reference is shared by every grade of a process);
        the array is read-only."""
        cached = self._allowed.get(backend)
        if cached is None:
            host = self.bound(0.0)
            derived = self.bound(input_unit(backend), tanh_error(backend))
            lesson = LESSON_ATOL + LESSON_RTOL * (np.abs(self.value) + host) + host
            cached = np.maximum(derived, lesson)
            cached.setflags(write=False)
            self._allowed[backend] = cached  # threads racing here store equal arrays
        return cached


def as_expected(reference: Any) -> Expected:
    """``reference`` as an :class:`Expected`; a plain array gets the lesson's tolerance only."""
    if isinstance(reference, Expected):
        return reference
    value = np.asarray(reference, dtype=np.float64)
    return Expected(value, lambda u_in, tanh_abs=TANH_ABS: np.zeros_like(value))


def tanh_matmul(x: np.ndarray, w: np.ndarray) -> Expected:
    """``tanh(x @ w)`` for float32 ``x`` and ``w``, computed in float64, with its bound."""
    x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
    z = x64 @ w64
    magnitude = np.abs(x64) @ np.abs(w64)
    k = x64.shape[-1]

    def bound(u_in: float, tanh_abs: float = TANH_ABS) -> np.ndarray:
        return tanh_spread(z, matmul_error(magnitude, k, u_in)) + tanh_abs

    return Expected(np.tanh(z), bound)


def row_energy(a: np.ndarray, b: np.ndarray) -> Expected:
    """``sum((a @ b)**2, axis=1)`` for float32 ``a`` and ``b``, in float64, with its bound."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    y = a64 @ b64
    size = np.abs(y)
    magnitude = np.abs(a64) @ np.abs(b64)
    k, n = a64.shape[-1], y.shape[-1]

    def bound(u_in: float, tanh_abs: float = TANH_ABS) -> np.ndarray:
        del tanh_abs  # no tanh in an energy
        d = matmul_error(magnitude, k, u_in)
        propagated = np.sum(2 * size * d + d * d, axis=-1)
        rounding = gamma(n + 3) * np.sum((size + d) ** 2, axis=-1)
        return propagated + rounding

    return Expected(np.sum(y * y, axis=-1), bound)


@dataclass(frozen=True)
class Mismatch:
    """How a result differs: ``count`` of ``total`` elements outside their allowance; at
    the element with the largest ``error / allowed``, that error and that allowance."""

    count: int
    total: int
    error: float
    allowed: float

    @property
    def ratio(self) -> float:
        return self.error / self.allowed if self.allowed else 0.0


def compare(result: np.ndarray, expected: Any, backend: str) -> Mismatch:
    """Compare a finite float64 ``result`` of the reference's shape with ``expected``."""
    reference = as_expected(expected)
    allowed = reference.allowed(backend)
    error = np.abs(np.asarray(result, np.float64) - reference.value)
    ratio = error / allowed
    worst = int(np.argmax(ratio)) if ratio.size else 0
    return Mismatch(
        count=int(np.count_nonzero(ratio > 1)), total=int(ratio.size),
        error=float(error.flat[worst]) if error.size else 0.0,
        allowed=float(allowed.flat[worst]) if allowed.size else 0.0,
    )
