"""The child's defences against forged traces: the sealed recorder core, the audit-hook
guard, waits recorded only after the real call returned, and the parent's strict,
authenticated frame protocol.

Anything that installs hooks or arms the guard runs in a subprocess (an audit hook cannot
be removed, and the hooks patch jax), driven by ``_PROBE`` below, which prints one JSON
object of observations. Grading end to end is covered by ``tests/corpus/integrity/forge_*``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from syncgrade.grading.frames import parse_frames

ROOT = Path(__file__).resolve().parents[2]

_PROBE = r'''
import _thread, json, os, sys, time
import jax, jax.numpy as jnp, numpy as np
from syncgrade.child import guard, instrument, recorder as rec
from syncgrade.child.__main__ import integrity_table

out = {}
read_fd, write_fd = os.pipe()
ArrayImpl = instrument.ArrayImpl

def control():
    core = rec.new_core(b"k" * 32, write_fd, ["main"], _thread.get_ident(),
                        frozenset({control.__code__}), ArrayImpl.__dict__["is_ready"],
                        ArrayImpl.__dict__["is_deleted"], ArrayImpl)
    recorder = rec.Recorder(core, {"learner.py"})
    inst = instrument.install(recorder)
    core.send((rec.PROTECT, instrument.hook_codes(), frozenset(), rec.EMIT_CODES,
               integrity_table(inst.hooks(), instrument.EMITTING_HELPERS,
                               [instrument, rec])))
    ns = {}
    exec(compile(LEARNER, "learner.py", "exec"), ns)
    core.send((rec.SET, True))
    ns["good_wait"]()
    out["good"] = core.send((rec.STATUS,))[1]
    ns["failed_waits"]()
    ns["forged_emit"](recorder)
    core.send((rec.SET, False))
    out["tampered_after_forgery"] = list(core.send((rec.STATUS,))[1])
    core.send((rec.SEND, {"type": "hello"}, None))
    core.send((rec.SEND, {"type": "load", "tampered": []}, '{"ok": true}'))
    core.send((rec.SEND, {"type": "call", "id": "main"}, '{"ok": true}'))
    os.close(write_fd)
    data = os.read(read_fd, 1 << 20)
    body = data[4 + 64:]
    frames = []
    while data:
        size = int.from_bytes(data[:4], "big")
        frames.append(json.loads(data[4 + 64:4 + size]))
        data = data[4 + size:]
    out["waits"] = [(e["how"], e["arrays"]) for e in frames[-1]["events"]
                    if e["kind"] == "wait"]
    out["frame_kinds"] = [f["type"] for f in frames]
    # control steps from another thread are refused
    done = []
    _thread.start_new_thread(lambda: done.append(core.send((rec.RESET,))), ())
    while not done:
        time.sleep(0.01)
    out["thread_control"] = list(core.send((rec.STATUS,))[1])[-1:]
    attempts = guard.arm(sealed=[core], protected=[
        *guard.grader_objects([instrument, rec]), *inst.hooks()], fds={write_fd})
    for name in [n for n in sys.modules if n.startswith("syncgrade")]:
        del sys.modules[name]
    refused = {}
    for label, route in ns["ROUTES"](core, instrument.Reading).items():
        try:
            route()
            refused[label] = False
        except RuntimeError as exc:
            refused[label] = "syncgrade" in str(exc)
        except Exception as exc:
            refused[label] = f"{type(exc).__name__}: {exc}"
    out["refused"] = refused
    out["attempts"] = list(attempts())
    # jax still works under the guard
    out["jax_ok"] = float(jax.jit(lambda x: x * 2)(jnp.ones(3)).sum()) == 6.0

LEARNER = """
import ctypes, gc, os, sys, time
import jax.numpy as jnp

def good_wait():
    x = jnp.ones(4) + 1
    x.block_until_ready()

def failed_waits():
    x = jnp.ones(4) + 1
    x.delete()
    for attempt in (lambda: x.block_until_ready(), lambda: x.item(),
                    lambda: type(x).block_until_ready(object())):
        try:
            attempt()
        except Exception:
            pass

def forged_emit(recorder):
    recorder.emit("wait", how="block_until_ready", arrays=[1], site=None)

def ROUTES(core, reading):
    return {
        "import": lambda: __import__("syncgrade.child.recorder"),
        "gc.get_objects": gc.get_objects,
        "gc.get_referrers": lambda: gc.get_referrers(time),
        "current_frames": sys._current_frames,
        "settrace": lambda: sys.settrace(None),
        "setprofile": lambda: sys.setprofile(None),
        "addaudithook": lambda: sys.addaudithook(lambda *a: None),
        "ctypes": lambda: ctypes.string_at(id(time), 8),
        "proc_mem": lambda: open("/proc/self/mem", "rb"),
        "proc_fd": lambda: open(f"/proc/self/fd/{WRITE_FD}", "wb"),
        "fdopen": lambda: os.fdopen(WRITE_FD, "wb"),
        "gi_frame": lambda: core.gi_frame,
        "set_code": lambda: setattr(reading.__sub__, "__code__", (lambda a, b: 0).__code__),
        "set_defaults": lambda: setattr(reading.__sub__, "__defaults__", (1,)),
        "allowed_open": lambda: open(os.devnull).close(),
    }
""".replace("WRITE_FD", str(write_fd))

control()
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def probe() -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_real_wait_is_recorded_and_failed_waits_are_not(probe: dict[str, Any]) -> None:
    # good_wait's block_until_ready is the only wait: the deleted array's
    # block_until_ready / item and the call with a bad `self` all raised.
    # (A NumPy conversion of a plain list is recorded with no arrays, for CPU accounting:
    # no wait.)
    assert [how for how, arrays in probe["waits"] if arrays] == ["block_until_ready"]
    assert probe["good"] == []


def test_an_event_sent_by_learner_code_is_refused_and_reported(probe: dict[str, Any]) -> None:
    assert any("not a grader hook" in t for t in probe["tampered_after_forgery"])


def test_the_core_writes_frames_in_protocol_order(probe: dict[str, Any]) -> None:
    assert probe["frame_kinds"] == ["hello", "load", "call"]


def test_control_steps_from_another_thread_are_refused(probe: dict[str, Any]) -> None:
    assert probe["thread_control"] == ["recorder: a grader control step was called from "
                                       "learner code"]


@pytest.mark.parametrize("route", [
    "import", "gc.get_objects", "gc.get_referrers", "current_frames", "settrace",
    "setprofile", "ctypes", "proc_mem", "proc_fd", "fdopen", "gi_frame", "set_code",
    "set_defaults",
])
def test_the_guard_refuses(probe: dict[str, Any], route: str) -> None:
    assert probe["refused"][route] is True, probe["refused"][route]


def test_the_guard_allows_ordinary_work(probe: dict[str, Any]) -> None:
    assert probe["refused"]["allowed_open"] is False
    assert probe["jax_ok"] is True
    # every refusal was remembered for the report; CPython swallows the refusal of
    # sys.addaudithook (the hook is just not added), so only the record shows it
    assert probe["refused"]["addaudithook"] is False
    assert "sys.addaudithook" in probe["attempts"]
    assert len(probe["attempts"]) == 14


# --------------------------------------------------------------------------- parent side

KEY = b"k" * 32
CALLS = ["main", "probe"]


def _frame(seq: int, body: dict[str, Any], key: bytes = KEY) -> bytes:
    raw = json.dumps({**body, "seq": seq}).encode()
    return hmac.new(key, raw, hashlib.sha256).hexdigest().encode() + raw


HELLO = {"type": "hello", "jax_version": "x", "jaxlib_version": "x", "numpy_version": "x",
         "python_version": "x", "backend": "cpu", "device": "cpu", "platform": "cpu"}
LOAD = {"type": "load", "learner": json.dumps({"ok": True, "error": None, "problems": []})}


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "call", "id": call_id, "events": [],
            "learner": json.dumps({"ok": True, "value": None, "error": None})}


def _honest() -> list[bytes]:
    bodies = [HELLO, LOAD, _call("main"), _call("probe"), {"type": "end"}]
    return [_frame(i + 1, b) for i, b in enumerate(bodies)]


def test_an_honest_channel_is_trusted() -> None:
    parsed = parse_frames(_honest(), KEY, CALLS, clean_exit=True)
    assert parsed.tampering is None
    assert parsed.load is not None and parsed.load.ok
    assert list(parsed.calls) == CALLS and parsed.end is not None


def test_a_child_that_died_part_way_is_not_tampering() -> None:
    parsed = parse_frames(_honest()[:3], KEY, CALLS, incomplete=True)
    assert parsed.tampering is None and parsed.end is None and list(parsed.calls) == ["main"]


@pytest.mark.parametrize("frames", [
    pytest.param(lambda f: [*f[:3], f[2], *f[3:]], id="duplicate"),
    pytest.param(lambda f: [f[0], f[1], f[3], f[2], f[4]], id="out-of-order"),
    pytest.param(lambda f: [*f, _frame(6, {"type": "end"})], id="after-end"),
    pytest.param(lambda f: [*f[:2], _frame(3, _call("main"), key=b"guess"), *f[3:]],
                 id="bad-mac"),
    pytest.param(lambda f: [*f[:2], _frame(3, _call("probe")), *f[3:]], id="wrong-call"),
    pytest.param(lambda f: [*f[:2], _frame(3, {"type": "end"})], id="end-before-calls"),
    pytest.param(lambda f: [*f[:2], b"x" * 10, *f[2:]], id="garbage"),
])
def test_a_forged_channel_is_tampering(frames: Any) -> None:
    parsed = parse_frames(frames(_honest()), KEY, CALLS, clean_exit=True)
    assert parsed.tampering is not None


def test_a_torn_frame_from_a_clean_exit_is_tampering() -> None:
    parsed = parse_frames(_honest()[:3], KEY, CALLS, clean_exit=True, incomplete=True)
    assert parsed.tampering is not None
