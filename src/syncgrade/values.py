"""Decode the child's tagged JSON values back into plain Python and NumPy objects.

The inverse of ``syncgrade.child.values.encode``. Arrays that were JAX arrays in the child
come back as :class:`JaxArray` (an ``ndarray`` view subclass) so that checks can tell a
device array from a host array. Objects that could not travel come back as
:class:`Opaque` with their type name.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass
from typing import Any

import numpy as np


class JaxArray(np.ndarray):
    """Marks data that was a ``jax.Array`` in the learner's process."""


@dataclass(frozen=True)
class Opaque:
    """A value that did not travel: its type name, why, and a short repr."""

    type_name: str
    reason: str
    text: str = ""


class NumpyScalar(float):
    """A NumPy floating/integer scalar, kept distinct from a Python float."""

    dtype: str = "float64"


def decode(tagged: Any) -> Any:
    if not isinstance(tagged, dict) or "t" not in tagged:
        return Opaque("unknown", "malformed value")
    tag = tagged["t"]
    if tag == "none":
        return None
    if tag in ("bool", "int", "str"):
        return tagged["v"]
    if tag == "float":
        return _float(tagged["v"])
    if tag == "npscalar":
        scalar = NumpyScalar(_float(tagged["v"]))
        scalar.dtype = str(tagged.get("dtype", "float64"))
        return scalar
    if tag in ("jax", "ndarray"):
        return _array(tagged, tag == "jax")
    if tag in ("list", "tuple", "set"):
        items = [decode(v) for v in tagged.get("items", [])]
        if tag == "list":
            return items
        if tag == "tuple":
            return tuple(items)
        try:
            return frozenset(items)
        except TypeError:
            return Opaque("set", "unhashable items")
    if tag == "dict":
        out: dict[Any, Any] = {}
        for key, value in tagged.get("items", []):
            k = decode(key)
            try:
                out[k] = decode(value)
            except TypeError:
                return Opaque("dict", "unhashable keys")
        return out
    return Opaque(str(tagged.get("type", tag)), tag, str(tagged.get("repr", ""))[:200])


def _float(v: Any) -> float:
    if isinstance(v, str):  # "nan", "inf", "-inf" travel as text
        return float(v)
    return float(v)


def _array(tagged: dict[str, Any], was_jax: bool) -> Any:
    shape = tuple(int(n) for n in tagged.get("shape", []))
    dtype = np.dtype(tagged.get("dtype", "float32"))
    data = tagged.get("data")
    if data is None:
        return Opaque("array", "too large to return" if tagged.get("too_large") else "no data",
                      f"{dtype}{list(shape)}")
    array = np.frombuffer(base64.b64decode(data), dtype=dtype).reshape(shape)
    return array.view(JaxArray) if was_jax else array.copy()


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_positive(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value > 0
