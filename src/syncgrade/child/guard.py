"""An audit hook that refuses the routes from learner code to the grader's state.

:func:`arm` is called once, after every grader import and right before the submission is
loaded. From then on, for every thread (CPython cannot remove an audit hook, and the child
grades one submission only), it refuses:

- importing ``syncgrade.*`` (the grader's modules are also removed from ``sys.modules``);
- ``gc.get_objects`` / ``get_referrers`` / ``get_referents`` and ``sys._current_frames``
  (object and frame walks that would reach the main thread's state);
- ``sys.settrace`` / ``sys.setprofile`` (a tracer sees every frame's locals) and
  ``sys.addaudithook`` (a learner hook would run inside the sealed core's frame);
- every ``ctypes`` event (raw memory access), and opening ``/proc/*/mem`` or the report
  channel / stack-dump fds (``os.fdopen``, ``open(fd)``, ``/proc/self/fd/N``);
- ``gi_frame`` / ``gi_code`` of the sealed core generator;
- setting or deleting attributes of the grader's own classes and functions
  (``__code__``, ``__defaults__``, methods of ``Reading``), which CPython audits as
  ``object.__setattr__``.

Before the learner's code sends a signal (``os.kill``, ``os.killpg``,
``signal.pthread_kill``, ``signal.raise_signal``, which CPython does not audit and ``arm``
wraps), starts a process or changes a resource limit, the hook writes
``protocol.SIGNAL_NOTE`` once on the stack-dump pipe (``note_fd``): a SIGKILL or SIGTERM
that then ends the child may be the learner's own (``os.kill(os.getpid(), 9)`` is their
crash), and without the note the grader knows it came from outside. If the note cannot be
written (the learner closed the pipe), the call is refused, so the parent is never left
to guess.

A refusal raises ``RuntimeError`` in the learner's code and is remembered; the child reports
the remembered attempts as tampering (report status ``error``). Grader code never performs
these operations after arming, so refusing them for every caller is both simpler and
cheaper than deciding who the caller is. The hook runs on every audited event (jax's own
included): its first tests are one string comparison (the frequent ``object.__getattr__``)
and one frozenset lookup, and it calls only C functions bound when it was made. See
docs/security.md for what it does not cover.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

from syncgrade.protocol import SIGNAL_NOTE

REFUSED_EVENTS = frozenset({
    "gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
    "sys.settrace", "sys.setprofile", "sys.addaudithook", "sys._getframemodulename",
    "cpython._PySys_ClearAuditHooks",
})
WATCHED = REFUSED_EVENTS | {"import", "open", "os.symlink", "object.__getattr__",
                            "object.__setattr__", "object.__delattr__"}
FRAME_ATTRIBUTES = frozenset({"gi_frame", "gi_code", "cr_frame", "ag_frame"})
SIGNALLING = frozenset({
    "os.kill", "os.killpg", "signal.pthread_kill", "subprocess.Popen", "os.system",
    "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "resource.setrlimit", "resource.prlimit",
})
"""Audited events after which the child's own process may be ended by a signal the
learner's code caused (a process it started can signal it, a lowered RLIMIT_CPU kills)."""


def arm(*, sealed: Iterable[Any], protected: Iterable[Any], fds: Iterable[int],
        note_fd: int | None = None) -> Callable[[], tuple[str, ...]]:
    """Install the hook; return a function that lists the refused attempts so far.

    ``sealed``: objects whose frame/code attributes are refused (the core generator).
    ``protected``: grader classes and functions whose attributes must not be set.
    ``fds``: the private fds (report channel, stack dump) that must not be reopened.
    ``note_fd``: where :data:`~syncgrade.protocol.SIGNAL_NOTE` goes (the stack-dump
    pipe); None: nowhere (signals are then not noted).
    """
    # Identity by address without id(): id() is itself audited ("builtins.id"), so
    # calling it here re-entered this hook. object.__hash__ is the address, rotated (one
    # to one for live objects), and is not audited.
    address = object.__hash__
    attempts: list[str] = []
    note = _make_note(note_fd, attempts.append)
    hook = _make_hook(frozenset(map(address, sealed)), frozenset(map(address, protected)),
                      frozenset(fds), attempts.append, note)
    sys.addaudithook(hook)
    _wrap_raise_signal(note)
    return lambda: tuple(attempts)


def _make_note(fd: int | None, record: Callable[[str], None]) -> Callable[[], None]:
    """Write :data:`SIGNAL_NOTE` on ``fd`` the first time it is called; if it cannot be
    written, record and refuse (raise ``RuntimeError``) the call that asked."""
    import os

    write = os.write
    line = (SIGNAL_NOTE + "\n").encode()
    done: list[bool] = []

    def note() -> None:
        if done or fd is None:
            return
        try:
            write(fd, line)
        except OSError:
            record("sending a signal with the grader's stack-dump pipe closed")
            raise RuntimeError("syncgrade: sending a signal is not allowed after closing "
                               "the grader's file descriptors") from None
        done.append(True)

    return note


def _wrap_raise_signal(note: Callable[[], None]) -> None:
    """``signal.raise_signal`` (not audited by CPython) notes first, then signals."""
    import _signal
    import signal

    raise_signal = signal.raise_signal

    def noted_raise_signal(signalnum: int, /) -> None:
        note()
        raise_signal(signalnum)

    noted_raise_signal.__doc__ = raise_signal.__doc__
    signal.raise_signal = noted_raise_signal
    _signal.raise_signal = noted_raise_signal


def _make_hook(sealed_ids: frozenset[int], protected_ids: frozenset[int],
               fd_numbers: frozenset[int], record: Callable[[str], None],
               note: Callable[[], None] = lambda: None
               ) -> Callable[[str, tuple[Any, ...]], None]:
    """``arm``'s audit hook: refuses (and records with ``record``) what ``arm`` says."""
    address = object.__hash__
    fd_names = frozenset(map(str, fd_numbers))
    signalling = SIGNALLING
    watched = WATCHED | signalling
    refused = REFUSED_EVENTS
    frame_attributes = FRAME_ATTRIBUTES
    str_type, int_type, bytes_type = str, int, bytes
    startswith = str.startswith
    split = str.split
    str_len = str.__len__
    decode = bytes.decode
    isdisjoint = frozenset.isdisjoint

    def refuse(what: str) -> None:
        record(what)
        raise RuntimeError(f"syncgrade: {what} is not allowed while grading")

    def dangerous_path(target: Any) -> bool:
        # No normalisation (os.path is Python code a learner could replace): judge the
        # path's components. "mem" catches /proc/<pid>/mem however it is spelled or
        # reached (relative to a /proc dir fd, through a symlink's name); a private fd
        # number under an "fd" component catches /proc/self/fd/N and /dev/fd/N.
        kind = type(target)
        if kind is bytes_type:
            target = decode(target, "utf-8", "replace")
        elif kind is not str_type:
            return False
        parts = split(target, "/")
        return "mem" in parts or ("fd" in parts and not isdisjoint(fd_names, parts))

    def hook(event: str, args: tuple[Any, ...]) -> None:
        # The hot event first, by one string comparison (no hash of the new event
        # string): the recorder core's f_code reads, several per timed iteration.
        if event == "object.__getattr__":
            # The attribute name first: an f_code read ends here without the cost of
            # taking args[0]'s address (a slot-wrapper call). Same test, reordered.
            if args[1] in frame_attributes and address(args[0]) in sealed_ids:
                refuse("reading the grader's sealed state")
            return
        if event not in watched:
            if startswith(event, "ctypes."):
                refuse("ctypes")
            return
        if event in signalling:
            note()
        elif event in refused:
            refuse(event)
        elif event == "import":
            name = args[0]
            # str methods called unbound: a str subclass's own methods never run here.
            if isinstance(name, str_type) and startswith(name, "syncgrade") and (
                    str_len(name) == 9 or startswith(name, "syncgrade.")):
                refuse(f"importing {str_type.__str__(name)}")
        elif event == "open":
            target = args[0]
            if type(target) is int_type:
                if target in fd_numbers:
                    refuse("opening the grader's private file descriptor")
            elif dangerous_path(target):
                refuse(f"opening {target!s}")
        elif event == "os.symlink":
            source = args[0]
            if type(source) is bytes_type:
                source = decode(source, "utf-8", "replace")
            if type(source) is not str_type or "proc" in source or "fd" in source:
                refuse("a symbolic link into /proc")
        elif address(args[0]) in protected_ids:  # object.__setattr__ / __delattr__
            refuse("changing the grader's own classes or functions")

    return hook


def grader_objects(modules: Iterable[Any]) -> list[Any]:
    """The classes and functions defined in ``modules`` (and their methods), for ``arm``'s
    ``protected``."""
    found: list[Any] = []
    for module in modules:
        name = module.__name__
        for value in list(vars(module).values()):
            if getattr(value, "__module__", None) != name:
                continue
            if isinstance(value, type):
                found.append(value)
                for member in vars(value).values():
                    target = getattr(member, "__func__", member)
                    if callable(target) or isinstance(member, property):
                        found.append(target)
                        if isinstance(member, property):
                            found.extend(f for f in (member.fget, member.fset) if f)
            elif callable(value):
                found.append(value)
    return found
