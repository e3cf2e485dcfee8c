"""Encode whatever a learner function returned into bounded, JSON-safe data.

The parent must never unpickle learner data, so values travel as tagged JSON: arrays as
base64 bytes with dtype and shape, containers recursively, anything else as a short repr.
Encoding happens with the recorder disabled, so reading the result does not count as a
learner wait.

Contract (the parent's ``syncgrade.values.decode`` relies on it):

- ``encode`` never raises, whatever the learner returned.
- Array bytes are always in one of :data:`WIRE_DTYPES` (native byte order). An array whose
  dtype NumPy alone cannot name (``bfloat16``, ``float8_*``, ``int4`` from ml_dtypes) or
  that is not native-endian or is a ``longdouble`` is converted first; ``dtype`` keeps the
  learner's dtype name and ``wire`` names the dtype of the bytes. Structured, object,
  string and datetime arrays travel without data, with a ``reason``.
- The size of one encoded value is bounded: at most :data:`MAX_ARRAY_BYTES` of array and
  string data and :data:`MAX_NODES` values in all, and every call of one child process
  together at most :data:`RUN_ARRAY_BYTES` of array data and :data:`RUN_NODES` values,
  so honest encoding always fits in the sandbox's result cap (32 MiB) and the parent's
  parse budget (``engine.PARSE_BUDGET``), and a huge return value becomes a
  learner-facing "too large" / "too many values" instead of a truncated channel.
"""

from __future__ import annotations

import base64
import math
from typing import Any

import numpy as np

MAX_ARRAY_BYTES = 8 * 2**20
RUN_ARRAY_BYTES = 16 * 2**20  # base64 makes this ~21 MiB: under the 32 MiB result cap
MAX_ITEMS = 10_000
MAX_NODES = 20_000
RUN_NODES = 50_000  # ~4 JSON commas and braces each: a fraction of the parent's budget
MAX_DEPTH = 8
MAX_REPR = 200
MAX_STR = 2000

WIRE_DTYPES = frozenset({
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
})
"""Dtypes whose bytes travel as they are; the parent decodes only these."""

_run_left = RUN_ARRAY_BYTES  # array bytes every later call of this process may still send
_run_nodes = RUN_NODES  # values every later call of this process may still send


class Budget:
    """Bytes (array data and strings) and values left for one encoded value."""

    def __init__(self, limit: int = MAX_ARRAY_BYTES, nodes: int = MAX_NODES) -> None:
        self.left = limit
        self.nodes = nodes


def encode(value: Any, budget: Budget | None = None, depth: int = 0) -> dict[str, Any]:
    """Return a tagged dict for ``value``; never raises for learner-made objects.

    Without ``budget``, the value gets :data:`MAX_ARRAY_BYTES` or what is left of this
    process's :data:`RUN_ARRAY_BYTES`, whichever is smaller, and uses that up.
    """
    global _run_left, _run_nodes
    own = budget is None
    if budget is None:
        budget = Budget(min(MAX_ARRAY_BYTES, _run_left), min(MAX_NODES, _run_nodes))
    start, start_nodes = budget.left, budget.nodes
    try:
        return _encode(value, budget, depth)
    except Exception as exc:  # a hostile __repr__ or __array__: report, never crash
        return {"t": "unencodable", "type": _type_name(value), "error": _text(exc)}
    finally:
        if own:
            _run_left = max(0, _run_left - (start - budget.left))
            _run_nodes = max(0, _run_nodes - (start_nodes - budget.nodes))


def _encode(value: Any, budget: Budget, depth: int) -> dict[str, Any]:
    if depth > MAX_DEPTH:
        return {"t": "too-deep"}
    if budget.nodes <= 0:
        return {"t": "too-many", "type": _type_name(value)}
    budget.nodes -= 1
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool):
        return {"t": "bool", "v": bool(value)}
    if isinstance(value, int) and not isinstance(value, np.integer):
        # Past 2**63 a number is no sample or result of any exercise; floats and JSON
        # readers lose it. The parent gets its type and a short text only.
        if abs(value) < 2**63:
            return {"t": "int", "v": int(value)}
        return {"t": "other", "type": _type_name(value), "reason": "int-too-large",
                "repr": f"an integer with {len(format(abs(value), 'x')) * 4} bits"}
    if isinstance(value, float):
        return _float(float(value), "float")
    if isinstance(value, str):
        keep = max(0, min(MAX_STR, budget.left))
        budget.left -= min(len(value), keep)
        return {"t": "str", "v": str.__str__(value)[:keep], "truncated": len(value) > keep}
    if isinstance(value, np.generic) and not isinstance(value, (np.bool_, np.complexfloating)):
        wire = _wire(value.dtype)
        if wire is not None and wire.kind in "iuf":  # numbers, also bfloat16 and float128
            return {**_float(float(value), "npscalar"), "dtype": value.dtype.name}
    if _is_jax_array(value):
        return _jax_array(value, budget)
    if isinstance(value, np.ndarray):
        return _array(value, budget, "ndarray")
    if isinstance(value, (list, tuple, set, frozenset)):
        tag = "list" if isinstance(value, list) else "tuple" if isinstance(value, tuple) else (
            "set")
        items: list[Any] = []
        for item in value:  # never list() a huge or endless container
            if len(items) >= MAX_ITEMS or budget.nodes <= 0:
                return {"t": "too-many", "type": _type_name(value)}
            items.append(_encode_item(item, budget, depth + 1))
        return {"t": tag, "items": items}
    if isinstance(value, dict):
        pairs: list[Any] = []
        for k, v in value.items():
            if len(pairs) >= MAX_ITEMS or budget.nodes <= 0:
                return {"t": "too-many", "type": _type_name(value)}
            pairs.append([_encode_item(k, budget, depth + 1), _encode_item(v, budget, depth + 1)])
        return {"t": "dict", "items": pairs}
    return _repr(value)


def _encode_item(value: Any, budget: Budget, depth: int) -> dict[str, Any]:
    """One item of a container: a hostile item spoils only itself, not its siblings."""
    try:
        return _encode(value, budget, depth)
    except Exception as exc:
        return {"t": "unencodable", "type": _type_name(value), "error": _text(exc)}


def _float(v: float, tag: str) -> dict[str, Any]:
    # JSON has no NaN/inf: keep them as strings so "finite" can still be checked.
    return {"t": tag, "v": v if math.isfinite(v) else repr(v)}


def _type_name(value: Any) -> str:
    return str(type(value).__name__)[:MAX_REPR]


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_REPR]
    except Exception:  # an exception whose __str__ raises
        return type(exc).__name__


def _repr(value: Any) -> dict[str, Any]:
    return {"t": "other", "type": _type_name(value), "repr": repr(value)[:MAX_REPR]}


def _is_jax_array(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith(("jax", "jaxlib")) and hasattr(value, "shape") and hasattr(
        value, "dtype"
    )


def _jax_array(value: Any, budget: Budget) -> dict[str, Any]:
    # Decide on the size before copying to the host: a 2 GiB device array must not be
    # materialised just to be refused.
    dtype = np.dtype(value.dtype)
    shape = [int(n) for n in value.shape]
    wire = _wire(dtype)
    if wire is not None and math.prod(shape) * max(dtype.itemsize, wire.itemsize) > budget.left:
        return {"t": "jax", "dtype": dtype.name, "shape": shape, "data": None,
                "too_large": True}
    return _array(np.asarray(value), budget, "jax")


def _wire(dtype: np.dtype[Any]) -> np.dtype[Any] | None:
    """The dtype an array of ``dtype`` travels as, or None when it cannot travel."""
    if dtype.names is not None or dtype.subdtype is not None:
        return None
    if dtype.kind in "biufc":
        native = dtype.newbyteorder("=")
        if native.name in WIRE_DTYPES:
            return native
        return np.dtype({"f": np.float64, "c": np.complex128}.get(dtype.kind, np.int64))
    name = dtype.name
    if dtype.kind == "V" and name.startswith(("bfloat", "float")):  # ml_dtypes floats
        return np.dtype(np.float32)
    if dtype.kind == "V" and name.startswith(("int", "uint")):  # ml_dtypes int2/int4
        return np.dtype(np.int32)
    return None


def _why_not(dtype: np.dtype[Any]) -> str:
    if dtype.names is not None:
        return "structured"
    if dtype.kind == "O":
        return "object"
    return "not-numeric"


def _array(array: np.ndarray, budget: Budget, tag: str) -> dict[str, Any]:
    dtype = array.dtype
    meta: dict[str, Any] = {"t": tag, "dtype": str(dtype.name)[:MAX_REPR],
                            "shape": [int(n) for n in array.shape]}
    wire = _wire(dtype)
    if wire is None:
        fields = list(dtype.names or ())[:8]
        return {**meta, "data": None, "too_large": False, "reason": _why_not(dtype),
                "fields": [str(f)[:MAX_REPR] for f in fields]}
    nbytes = array.size * max(dtype.itemsize, wire.itemsize)
    if nbytes > budget.left:
        return {**meta, "data": None, "too_large": True}
    if wire != dtype:
        array = array.astype(wire)
        meta["wire"] = wire.name
    data = np.ascontiguousarray(array).tobytes()
    budget.left -= len(data)
    return {**meta, "data": base64.b64encode(data).decode("ascii"), "too_large": False}
