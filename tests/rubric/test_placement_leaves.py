"""A placement is judged leaf by leaf (``Placement.host_leaves``): one ``device_put`` of a
tuple holding a host array and already placed weights moves the host array only."""

from __future__ import annotations

from syncgrade.trace import Placement


def test_only_the_leaves_from_the_host_were_moved() -> None:
    mixed = Placement(kind="placement", seq=1, arrays=[10, 11], host=1,
                      host_leaves=[True, False])
    assert mixed.host_arrays == [10]


def test_a_placement_without_leaf_flags_falls_back_to_its_count() -> None:
    # Older traces (and jnp.asarray of NumPy data) carry the count only.
    assert Placement(kind="placement", seq=1, arrays=[10, 11], host=2).host_arrays == [10, 11]
    assert Placement(kind="placement", seq=1, arrays=[10], host=0).host_arrays == []
    # Flags that do not line up with the arrays are not trusted leaf by leaf.
    odd = Placement(kind="placement", seq=1, arrays=[10, 11], host=1, host_leaves=[True])
    assert odd.host_arrays == [10, 11]
