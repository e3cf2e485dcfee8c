"""Encode whatever a learner function returned into bounded, JSON-safe data.

The parent must never unpickle learner data, so values travel as tagged JSON: arrays as
base64 bytes with dtype and shape, containers recursively, anything else as a short repr.
Encoding happens with the recorder disabled, so reading the result does not count as a
learner wait.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

MAX_ARRAY_BYTES = 8 * 2**20
MAX_ITEMS = 10_000
MAX_DEPTH = 8
MAX_REPR = 200


class Budget:
    """Bytes left for array data in one encoded value."""

    def __init__(self, limit: int = MAX_ARRAY_BYTES) -> None:
        self.left = limit


def encode(value: Any, budget: Budget | None = None, depth: int = 0) -> dict[str, Any]:
    """Return a tagged dict for ``value``; never raises for learner-made objects."""
    budget = budget or Budget()
    try:
        return _encode(value, budget, depth)
    except Exception as exc:  # a hostile __repr__ or __array__: report, never crash
        return {"t": "unencodable", "type": type(value).__name__, "error": str(exc)[:MAX_REPR]}


def _encode(value: Any, budget: Budget, depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH:
        return {"t": "too-deep"}
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int) and not isinstance(value, np.integer):
        return {"t": "int", "v": int(value)} if abs(value) < 2**63 else _repr(value)
    if isinstance(value, float):
        return _float(float(value), "float")
    if isinstance(value, str):
        return {"t": "str", "v": value[:2000], "truncated": len(value) > 2000}
    if isinstance(value, (np.floating, np.integer)):
        return {**_float(float(value), "npscalar"), "dtype": str(value.dtype)}
    if _is_jax_array(value):
        return _array(np.asarray(value), budget, "jax")
    if isinstance(value, np.ndarray):
        return _array(value, budget, "ndarray")
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        tag = {list: "list", tuple: "tuple"}.get(type(value), "set")
        if isinstance(value, list) and type(value) is not list:
            tag = "list"
        return {
            "t": tag,
            "items": [_encode(v, budget, depth + 1) for v in items[:MAX_ITEMS]],
            "truncated": len(items) > MAX_ITEMS,
        }
    if isinstance(value, dict):
        pairs = list(value.items())[:MAX_ITEMS]
        return {
            "t": "dict",
            "items": [[_encode(k, budget, depth + 1), _encode(v, budget, depth + 1)]
                      for k, v in pairs],
            "truncated": len(value) > MAX_ITEMS,
        }
    return _repr(value)


def _float(v: float, tag: str) -> dict[str, Any]:
    # JSON has no NaN/inf: keep them as strings so "finite" can still be checked.
    return {"t": tag, "v": v if math.isfinite(v) else repr(v)}


def _repr(value: Any) -> dict[str, Any]:
    return {"t": "other", "type": type(value).__name__, "repr": repr(value)[:MAX_REPR]}


def _is_jax_array(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith(("jax", "jaxlib")) and hasattr(value, "shape") and hasattr(
        value, "dtype"
    )


def _array(array: np.ndarray, budget: Budget, tag: str) -> dict[str, Any]:
    meta = {"t": tag, "dtype": str(array.dtype), "shape": list(array.shape)}
    if array.dtype == object or array.nbytes > budget.left:
        return {**meta, "data": None, "too_large": array.nbytes > budget.left}
    budget.left -= array.nbytes
    data = np.ascontiguousarray(array).tobytes()
    return {**meta, "data": base64.b64encode(data).decode("ascii"), "too_large": False}
