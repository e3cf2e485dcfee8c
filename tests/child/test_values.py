"""Learner values across the process boundary: ``child.values.encode`` -> JSON ->
``values.decode``. Whatever a learner returns, or a forged frame claims, decoding never
raises and gives the checks only safe values (see the contract in ``syncgrade.values``)."""

from __future__ import annotations

import base64
import decimal
import json
import math
import time
from typing import Any

import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from syncgrade.child import values as child_values
from syncgrade.child.values import Budget, encode
from syncgrade.values import (
    MALFORMED,
    WIRE_DTYPES,
    JaxArray,
    NumpyScalar,
    Opaque,
    WidenedArray,
    decode,
    is_finite_positive,
    is_number,
    source_dtype,
)


def roundtrip(value: Any) -> Any:
    """What the parent sees of ``value``: encoded, sent as JSON, decoded."""
    wire = json.dumps(encode(value, Budget()))
    return decode(json.loads(wire))


def test_wire_dtypes_agree_on_both_sides() -> None:
    assert child_values.WIRE_DTYPES == WIRE_DTYPES


def test_plain_values_roundtrip() -> None:
    value = {"a": [1, 2.5, None, True, "s"], "b": (1,), "c": frozenset({1, 2})}
    assert roundtrip(value) == value
    assert isinstance(roundtrip(np.float32(0.5)), NumpyScalar)
    assert roundtrip(np.float32(0.5)).dtype == "float32"


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int8", "uint16", "bool",
                                   "float16", "complex64"])
def test_numeric_arrays_keep_dtype_shape_and_values(dtype: str) -> None:
    array = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    got = roundtrip(array)
    assert type(got) is np.ndarray and got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, array)
    assert source_dtype(got) == dtype


def test_zero_d_and_empty_arrays() -> None:
    assert roundtrip(np.array(3.5)).shape == ()
    assert float(roundtrip(np.array(3.5))) == 3.5
    assert roundtrip(np.zeros((0, 4), np.float32)).shape == (0, 4)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float8_e4m3fn])
def test_jax_bfloat16_widens_and_names_its_dtype(dtype: Any) -> None:
    out = jnp.linspace(-1, 1, 12, dtype=jnp.float32).reshape(3, 4).astype(dtype)
    got = roundtrip(out)
    assert isinstance(got, JaxArray) and got.dtype == np.float32
    assert source_dtype(got) == np.dtype(dtype).name
    assert source_dtype(got[1:]) == np.dtype(dtype).name  # views keep it
    np.testing.assert_array_equal(got, np.asarray(out).astype(np.float32))


def test_numpy_bfloat16_and_longdouble_widen() -> None:
    got = roundtrip(np.ones(3, dtype=jnp.bfloat16))
    assert isinstance(got, WidenedArray) and not isinstance(got, JaxArray)
    assert source_dtype(got) == "bfloat16" and got.dtype == np.float32
    assert roundtrip(np.ones(2, np.longdouble)).dtype == np.float64
    big_endian = roundtrip(np.arange(3, dtype=">f4"))
    np.testing.assert_array_equal(big_endian, [0, 1, 2])


def test_exotic_scalars_are_numbers_with_their_dtype() -> None:
    got = roundtrip(ml_dtypes.bfloat16(0.5))
    assert isinstance(got, NumpyScalar) and got == 0.5 and got.dtype == "bfloat16"
    zero_d = roundtrip(jnp.bfloat16(0.5))  # a 0-d jax.Array, not a scalar
    assert isinstance(zero_d, JaxArray) and zero_d.shape == () and zero_d == 0.5
    assert source_dtype(zero_d) == "bfloat16"
    assert isinstance(roundtrip(np.True_), Opaque)  # a bool is not a number
    assert isinstance(roundtrip(np.complex64(1j)), Opaque)


@pytest.mark.parametrize("array, words", [
    (np.zeros(3, dtype=[("a", "f4"), ("b", "i4")]), "structured array (dtype with fields a, b)"),
    (np.array([object(), 1], dtype=object), "Python objects"),
    (np.array(["x", "y"]), "not a number type"),
    (np.array(["2024-01-01"], dtype="datetime64[D]"), "not a number type"),
])
def test_arrays_that_are_not_numbers_are_opaque_with_a_reason(array: np.ndarray,
                                                              words: str) -> None:
    got = roundtrip(array)
    assert isinstance(got, Opaque) and words in got.reason, got


def test_huge_arrays_do_not_travel_and_say_so() -> None:
    got = decode(json.loads(json.dumps(encode(np.zeros(3 * 2**20, np.float32)))))
    assert isinstance(got, Opaque) and "too large" in got.reason
    # A broadcast view of 8 TB costs nothing to refuse.
    started = time.process_time()  # CPU time: a load-proof measure of work done here
    got = roundtrip(np.broadcast_to(np.float64(1), (10**6, 10**6)))
    assert isinstance(got, Opaque) and time.process_time() - started < 1


def test_a_process_sends_at_most_the_run_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(child_values, "_run_left", 3 * 2**20)
    first = decode(encode(np.zeros(2**19, np.float32)))  # 2 MiB: fits
    second = decode(encode(np.zeros(2**19, np.float32)))  # only 1 MiB left
    assert isinstance(first, np.ndarray) and isinstance(second, Opaque)


def test_huge_containers_and_strings_stay_bounded() -> None:
    nested: Any = ["x" * 5000] * 10
    for _ in range(6):
        nested = [nested] * 50  # 10**11 strings if walked naively
    started = time.process_time()
    wire = json.dumps(encode(nested))
    assert time.process_time() - started < 5 and len(wire) < 20 * 2**20
    decode(json.loads(wire))  # no exception


def test_long_lists_are_opaque_not_silently_cut() -> None:
    got = roundtrip([0.1] * 10_001)
    assert isinstance(got, Opaque) and got.type_name == "list" and "too many" in got.reason
    assert len(roundtrip([0.1] * 10_000)) == 10_000


def test_hostile_objects_spoil_only_themselves() -> None:
    class Bad:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    got = roundtrip([1.0, Bad()])
    assert got[0] == 1.0 and isinstance(got[1], Opaque) and got[1].type_name == "Bad"


@pytest.mark.parametrize("sample", [10**400, -(2**64), 2**63])
def test_integers_beyond_64_bits_are_opaque_not_numbers(sample: int) -> None:
    got = roundtrip([sample])[0]
    assert isinstance(got, Opaque) and "too large" in got.reason
    assert not is_number(got)
    forged = decode({"t": "int", "v": sample})  # a forged frame sends the digits
    assert isinstance(forged, Opaque) and not is_number(forged)


def test_odd_samples_decode_to_values_checks_can_handle() -> None:
    got = roundtrip([math.nan, -math.inf, math.inf, True, np.int64(3), decimal.Decimal("1.5"),
                     "0.1", [[0.1]]])
    assert math.isnan(got[0]) and got[1] == -math.inf and got[2] == math.inf
    assert got[3] is True and not is_number(got[3])
    assert isinstance(got[4], NumpyScalar) and got[4] == 3 and got[4].dtype == "int64"
    assert isinstance(got[5], Opaque) and got[5].type_name == "Decimal"
    assert got[6] == "0.1" and got[7] == [[0.1]]
    for value in got:
        if is_number(value):
            float(value)  # never OverflowError
    assert [is_finite_positive(v) for v in got[:5]] == [False, False, False, False, True]


def test_is_number_refuses_ints_floats_cannot_hold() -> None:
    assert is_number(2**1000) and not is_number(2**1024) and not is_number(10**400)
    assert not is_finite_positive(10**400)


@pytest.mark.parametrize("tagged", [
    None, 5, "x", [], {}, {"t": "float", "v": "abc"}, {"t": "float", "v": [1]},
    {"t": "float", "v": 10**400}, {"t": "int", "v": "7"}, {"t": "int", "v": True},
    {"t": "bool", "v": 1}, {"t": "str", "v": 5}, {"t": "list", "items": 5},
    {"t": "list", "items": [{"t": "none"}, 3, {"t": "int", "v": 10**400}]},
    {"t": "dict", "items": [[{"t": "none"}]]},
    {"t": "npscalar", "v": "x"},
    {"t": "ndarray", "dtype": "float32", "shape": [10**12], "data": ""},
    {"t": "ndarray", "dtype": "float32", "shape": [-1], "data": ""},
    {"t": "ndarray", "dtype": "float32", "shape": [3], "data": "AAAA"},
    {"t": "ndarray", "dtype": "float32", "shape": [1], "data": "!!!!"},
    {"t": "ndarray", "dtype": "bfloat16", "shape": [1], "data": "AAA="},
    {"t": "ndarray", "dtype": "[('a', '<f4')]", "shape": [1], "data": "AAAAAA=="},
    {"t": "jax", "dtype": "object", "shape": [1], "data": "AAAAAAAAAAA="},
    {"t": "ndarray", "dtype": "float32", "shape": [1] * 40, "data": "AAAAAA=="},
    {"t": "ndarray", "dtype": "float32", "shape": ["1"], "data": "AAAAAA=="},
])
def test_forged_values_are_malformed_never_an_exception(tagged: Any) -> None:
    got = decode(tagged)
    assert isinstance(got, Opaque) or (
        isinstance(got, list) and got[0] is None and all(isinstance(v, Opaque)
                                                         for v in got[1:])), got


def test_forged_nesting_is_bounded() -> None:
    deep: Any = {"t": "none"}
    for _ in range(50_000):
        deep = {"t": "list", "items": [deep]}
    started = time.process_time()
    got = decode(deep)
    assert time.process_time() - started < 1
    while isinstance(got, list):
        got = got[0]
    assert got == MALFORMED


def test_opaque_reads_as_a_phrase() -> None:
    got = roundtrip(decimal.Decimal(1))
    assert str(got).startswith("a `Decimal` (") and "not a number" in got.reason
    assert str(roundtrip([10**400])[0]) == "an `int` (too large: 64 bits at most)"


def test_array_bytes_are_exactly_the_shape() -> None:
    data = base64.b64encode(np.arange(4, dtype=np.float32).tobytes()).decode()
    ok = decode({"t": "ndarray", "dtype": "float32", "shape": [2, 2], "data": data})
    assert ok.shape == (2, 2)
    assert decode({"t": "ndarray", "dtype": "float32", "shape": [3], "data": data}) == MALFORMED
