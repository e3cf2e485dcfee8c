"""Static argument values are recorded by value (``instrument.static_value``): the core
sends exact built-ins only, and a NumPy scalar or an enum member used as a static
argument is the same program for jax as its plain value."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
import pytest

from syncgrade.child.instrument import static_value
from syncgrade.rubric.checks import plain_static


class Colour(enum.Enum):
    RED = "red"


class Block(enum.IntEnum):
    SMALL = 16


class Name(str):
    pass


@pytest.mark.parametrize(("value", "recorded"), [
    (np.int64(384), 384), (np.int32(-2), -2), (np.float32(0.5), 0.5), (np.bool_(True), True),
    (Colour.RED, "red"), (Block.SMALL, 16), ((np.int16(2), (3, Colour.RED)), [2, [3, "red"]]),
    (Name("x"), "x"), (384, 384), ("block", "block"), (None, None), (False, False),
])
def test_hashable_scalars_are_recorded_as_their_plain_value(value: Any, recorded: Any) -> None:
    got = static_value(value)
    assert got == recorded
    assert type(got) is type(recorded)
    # The parent normalises a declared value the same way: the two compare equal.
    assert plain_static([value]) == [recorded]


def test_what_has_no_plain_value_is_none() -> None:
    class Opaque:
        def __hash__(self) -> int:
            return 1

    assert static_value(Opaque()) is None
    assert static_value(frozenset({1})) is None
    nested: Any = 1
    for _ in range(20):
        nested = (nested,)
    assert "None" in repr(static_value(nested))  # too deep: cut, never a RecursionError
