"""Decode the child's tagged JSON values back into plain Python and NumPy objects.

The inverse of ``syncgrade.child.values.encode``. Arrays that were JAX arrays in the child
come back as :class:`JaxArray` (an ``ndarray`` view subclass) so that checks can tell a
device array from a host array. Objects that could not travel come back as
:class:`Opaque` with their type name and a learner-facing reason.

Contract: :func:`decode` never raises, whatever the frame holds (the child's values are
claims that learner code could have forged). What it returns is safe for the checks:

- every ``int`` fits in 64 bits and every ``float`` is a float (NaN and infinities
  included), so ``float(v)`` never overflows after :func:`is_number`;
- every array has one of the dtypes in :data:`WIRE_DTYPES` and exactly the bytes its
  shape needs; an array whose dtype NumPy cannot name without ml_dtypes (``bfloat16``)
  comes back widened (float32), with :func:`source_dtype` naming the learner's dtype;
- anything else (structured or object arrays, huge integers, ``Decimal``, malformed or
  over-deep data) is an :class:`Opaque`.
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

WIRE_DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
})
"""The dtypes array bytes may travel in (``syncgrade.child.values.WIRE_DTYPES``)."""

MAX_DEPTH = 16  # the child nests at most 8 levels; deeper data is forged
MAX_DIMS = 32  # NumPy's own limit is 64
INT_LIMIT = 2**63  # the child sends larger ints as text only


class JaxArray(np.ndarray):
    """Marks data that was a ``jax.Array`` in the learner's process.

    ``source_dtype`` is the learner's dtype name when the values were widened to travel
    (``"bfloat16"`` arrives as float32), else ``None``.
    """

    source_dtype: str | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self.source_dtype = getattr(obj, "source_dtype", None)


class WidenedArray(np.ndarray):
    """A NumPy result whose dtype NumPy alone cannot hold (``bfloat16``, ``float8_*``,
    ``int4`` from ml_dtypes, or ``longdouble``): the values widened to a wire dtype,
    ``source_dtype`` naming the learner's dtype."""

    source_dtype: str | None = None

    def __array_finalize__(self, obj: Any) -> None:
        self.source_dtype = getattr(obj, "source_dtype", None)


@dataclass(frozen=True)
class Opaque:
    """A value that did not travel: its type name, why (a learner-facing phrase that
    completes "... could not be read back: <reason>"), and a short repr."""

    type_name: str
    reason: str
    text: str = ""

    def __str__(self) -> str:
        article = "an" if self.type_name[:1].lower() in "aeiou" else "a"
        return f"{article} `{self.type_name}` ({self.reason})"


class NumpyScalar(float):
    """A NumPy floating/integer scalar, kept distinct from a Python float."""

    dtype: str = "float64"


MALFORMED = Opaque("unknown", "the grader received a malformed value")


def decode(tagged: Any) -> Any:
    """The value ``tagged`` describes; never raises (see the module contract)."""
    try:
        return _decode(tagged, 0)
    except (ValueError, TypeError, KeyError, OverflowError, RecursionError,
            binascii.Error, MemoryError):
        return MALFORMED


def _decode(tagged: Any, depth: int) -> Any:
    if not isinstance(tagged, dict) or "t" not in tagged or depth > MAX_DEPTH:
        return MALFORMED
    tag = tagged["t"]
    if tag == "none":
        return None
    if tag == "bool":
        return _typed(tagged["v"], bool)
    if tag == "int":
        v = _typed(tagged["v"], int)
        if abs(v) >= INT_LIMIT:
            return _too_large_int()
        return v
    if tag == "str":
        return _typed(tagged["v"], str)
    if tag == "float":
        return _float(tagged["v"])
    if tag == "npscalar":
        dtype = str(tagged.get("dtype", "float64"))[:40]
        scalar = NumpyScalar(_float(tagged["v"]))
        scalar.dtype = dtype
        return scalar
    if tag in ("jax", "ndarray"):
        return _array(tagged, tag == "jax")
    if tag in ("list", "tuple", "set"):
        items = [_decode(v, depth + 1) for v in _typed(tagged.get("items", []), list)]
        if tag == "list":
            return items
        if tag == "tuple":
            return tuple(items)
        try:
            return frozenset(items)
        except TypeError:
            return Opaque("set", "its items cannot be compared")
    if tag == "dict":
        out: dict[Any, Any] = {}
        for pair in _typed(tagged.get("items", []), list):
            key, value = _typed(pair, list)
            k, v = _decode(key, depth + 1), _decode(value, depth + 1)
            try:
                out[k] = v
            except TypeError:
                return Opaque("dict", "its keys cannot be compared")
        return out
    return _other(tagged, str(tag))


def _other(tagged: dict[str, Any], tag: str) -> Opaque:
    type_name = str(tagged.get("type", tag))[:80]
    text = str(tagged.get("repr", ""))[:200]
    if tag == "other" and tagged.get("reason") == "int-too-large":
        return _too_large_int()
    reason = {
        "other": f"a `{type_name}` object is not a number, string, list, dict or array",
        "unencodable": f"reading the `{type_name}` object raised an error",
        "too-deep": "it is nested too deeply",
        "too-many": f"the `{type_name}` holds too many values (10000 items at most)",
    }.get(tag, "the grader received a value it does not know")
    return Opaque(type_name if "type" in tagged else tag, reason, text)


def _too_large_int() -> Opaque:
    return Opaque("int", "too large: 64 bits at most")


def _typed(v: Any, kind: type) -> Any:
    # bool is an int subclass; an int field holding true/false is forged, not a number
    if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
        raise TypeError(f"expected {kind.__name__}")
    return v


def _float(v: Any) -> float:
    if isinstance(v, str):  # "nan", "inf", "-inf" travel as text; nothing else does
        if v not in ("nan", "inf", "-inf"):
            raise ValueError("not a float")
        return float(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("not a float")
    return float(v)  # OverflowError for a forged 10**400: the whole value is malformed


def _array(tagged: dict[str, Any], was_jax: bool) -> Any:
    name = str(tagged.get("dtype", "float32"))[:40]
    wire = str(tagged.get("wire", name))
    shape = tuple(_typed(n, int) for n in _typed(tagged.get("shape", []), list))
    if len(shape) > MAX_DIMS or any(n < 0 for n in shape):
        return MALFORMED
    label = f"{name}[{', '.join(map(str, shape))}]" if len(shape) <= 8 else name
    data = tagged.get("data")
    kind = "JAX array" if was_jax else "NumPy array"
    if data is None:
        if tagged.get("too_large"):
            return Opaque(kind, f"the {name} array of shape {shape} is too large to "
                                "return", label)
        why = {
            "structured": f"it is a structured array (dtype with fields "
                          f"{', '.join(map(str, tagged.get('fields', [])[:8]))}), not "
                          "an array of numbers",
            "object": "it is an array of Python objects (dtype=object), not of numbers",
        }.get(str(tagged.get("reason")), f"its dtype {name} is not a number type")
        return Opaque(kind, why, label)
    if wire not in WIRE_DTYPES:
        return MALFORMED
    dtype = np.dtype(wire)
    raw = base64.b64decode(_typed(data, str), validate=True)
    if len(raw) != math.prod(shape) * dtype.itemsize:
        return MALFORMED
    array = np.frombuffer(raw, dtype=dtype).reshape(shape)
    widened = name != wire
    if was_jax:
        marked: JaxArray | WidenedArray = array.view(JaxArray)
    elif widened:
        marked = array.copy().view(WidenedArray)
    else:
        return array.copy()
    marked.source_dtype = name if widened else None
    return marked


def source_dtype(value: Any) -> str | None:
    """The dtype name the learner's array had (``"bfloat16"`` for a widened one), or
    ``None`` for anything that is not an array."""
    if not isinstance(value, np.ndarray):
        return None
    return getattr(value, "source_dtype", None) or value.dtype.name


def is_number(value: Any) -> bool:
    """A real number that ``float()`` converts without overflow (never a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, int) or abs(value) < 2**1023


def is_finite_positive(value: Any) -> bool:
    return is_number(value) and math.isfinite(value) and value > 0
