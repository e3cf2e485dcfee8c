"""Entry point of the grading child: ``python -m syncgrade.child`` inside the sandbox.

Reads one job (JSON) from stdin, imports jax, installs the instrumentation, loads the
submission and runs the job's calls, writing one frame per step to the private channel
(``SYNCGRADE_CHANNEL_FD``). Frames: ``hello`` (versions, backend), ``load`` (did the file
load, are the names there), one ``call`` per job call, ``end`` (hook tampering). A frame is
sent as soon as its step ends, so a later hang or crash loses nothing already decided.
Nothing here knows the rubric or any expected value.
"""

from __future__ import annotations

import faulthandler
import io
import json
import linecache
import os
import platform
import signal
import struct
import sys
import types
from typing import Any, BinaryIO


class Channel:
    """Length-prefixed JSON frames on an inherited file descriptor."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def send(self, frame: dict[str, Any]) -> None:
        payload = json.dumps(frame, separators=(",", ":")).encode()
        self._stream.write(struct.pack(">I", len(payload)) + payload)
        self._stream.flush()


def _open_fd(env_name: str, mode: str) -> Any:
    fd = os.environ.get(env_name)
    if fd is None:
        return None
    os.environ.pop(env_name)  # keep the fd number out of the learner's environment
    return os.fdopen(int(fd), mode, buffering=0 if "b" in mode else 1)


def _arm_stack_dump() -> None:
    # On the wall-clock limit the sandbox sends SIGUSR1 and reads this dump, so a timeout
    # report can say which learner line was running.
    stack = _open_fd("SYNCGRADE_STACK_FD", "w")
    if stack is not None:
        faulthandler.register(signal.SIGUSR1, file=stack, all_threads=True)


def _load_submission(source: str, display_name: str) -> tuple[dict[str, Any] | None, Any]:
    from syncgrade.child.harness import describe_error

    linecache.cache[display_name] = (len(source), None, source.splitlines(True), display_name)
    module = types.ModuleType("submission")
    module.__file__ = display_name
    sys.modules["submission"] = module
    try:
        code = compile(source, display_name, "exec")
        exec(code, module.__dict__)
    except BaseException as exc:
        return None, describe_error(exc, display_name)
    return module.__dict__, None


def _missing_names(namespace: dict[str, Any], job: dict[str, Any]) -> list[dict[str, Any]]:
    from syncgrade.child.harness import check_signature

    problems = []
    for required in job.get("required", []):
        name = required["name"]
        if name not in namespace:
            problems.append({"name": name, "problem": "missing"})
            continue
        if required.get("kind", "function") != "function":
            continue
        reason = check_signature(namespace[name], required["positional"], required.get(
            "keywords", []))
        if reason:
            problems.append({"name": name, "problem": "signature", "detail": reason})
    return problems


def main() -> int:
    channel_file = _open_fd("SYNCGRADE_CHANNEL_FD", "wb")
    if channel_file is None:
        print("syncgrade.child: no SYNCGRADE_CHANNEL_FD; run through the grader", file=sys.stderr)
        return 2
    channel = Channel(channel_file)
    _arm_stack_dump()
    job = json.loads(sys.stdin.buffer.read())

    import jax
    import jaxlib
    import numpy as np

    from syncgrade.child import harness, instrument
    from syncgrade.child.recorder import Recorder

    device = jax.devices()[0]
    channel.send({
        "type": "hello", "jax_version": jax.__version__, "jaxlib_version": jaxlib.__version__,
        "numpy_version": np.__version__, "python_version": platform.python_version(),
        "backend": jax.default_backend(), "device": device.device_kind,
        "platform": device.platform,
    })
    display = job["display_name"]
    inputs: dict[str, Any] = {}
    if job.get("inputs"):
        with open(job["inputs"], "rb") as handle:
            inputs = dict(np.load(io.BytesIO(handle.read())).items())
    recorder = Recorder({display})
    installation = instrument.install(recorder)
    with open(job["submission"], encoding="utf-8") as handle:
        source = handle.read()
    namespace, error = _load_submission(source, display)
    problems = [] if namespace is None else _missing_names(namespace, job)
    # Checked right after import too: a hang later must not hide tampering at import.
    channel.send({"type": "load", "ok": namespace is not None and not problems,
                  "error": error, "problems": problems, "tampered": installation.tampered()})
    if namespace is not None and not problems:
        runner = harness.Harness(recorder=recorder, inputs=inputs)
        for call in job["calls"]:
            channel.send(harness.run_call(runner, namespace, call, display))
    channel.send({"type": "end", "tampered": installation.tampered()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
