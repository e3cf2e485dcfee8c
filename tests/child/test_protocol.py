"""The wire protocol (syncgrade.protocol), one definition for the child and the parent."""

from __future__ import annotations

from syncgrade import protocol
from syncgrade.child import recorder

CALLS = ("a", "b")


def test_the_frame_order_is_hello_load_calls_end() -> None:
    sent: list[tuple[str, str | None]] = []
    while allowed := protocol.next_frames(len(sent), CALLS, True,
                                          bool(sent) and sent[-1][0] == protocol.END):
        assert len(allowed) == 1
        sent.append(allowed[0])
    assert sent == [("hello", None), ("load", None), ("call", "a"), ("call", "b"),
                    ("end", None)]


def test_a_failed_load_skips_the_calls_and_the_child_allows_either() -> None:
    assert protocol.next_frames(2, CALLS, False) == (("end", None),)
    # The child's core does not know the load's outcome: the next call or the end.
    assert protocol.next_frames(3, CALLS) == (("call", "b"), ("end", None))
    assert protocol.next_frames(4, CALLS) == (("end", None),)
    assert protocol.next_frames(4, CALLS, ended=True) == ()


def test_the_core_uses_a_sealed_copy_of_the_order() -> None:
    sealed = recorder.private_globals()["_NEXT_FRAMES"]
    assert sealed.__code__ is protocol.next_frames.__code__
    assert sealed.__globals__ is not vars(protocol)
    assert set(sealed.__globals__) == {*protocol.NEXT_FRAMES_GLOBALS, "__builtins__"}
    assert sealed.__globals__["__builtins__"] == {"len": len}
    assert sealed(0, CALLS, None, False) == (("hello", None),)


def test_the_recorder_op_codes_are_the_protocols() -> None:
    for name in ("EMIT", "TOKEN", "ENABLED", "SET", "RESET", "SEND", "PROTECT", "STATUS",
                 "NOTE", "TIMER", "SITED", "CALL", "CANCEL", "COMPILE", "REGISTER",
                 "DESIGNATE"):
        assert getattr(recorder, name) == getattr(protocol, name)
    assert protocol.MAC_SIZE == 64 and protocol.HEADER.size == 4
