"""Which device a grading child runs on, what it needs from the grader's environment to
find it, and the lease that gives one child at a time the chip (docs/accelerators.md).

Three things, all decided in the grader without importing jax:

- **the device choice**: ``grade --device auto|cpu|tpu|gpu`` or ``SYNCGRADE_DEVICE``
  (:func:`device_choice`). ``auto`` leaves the platform to JAX (the grader's own
  ``JAX_PLATFORMS``, if set, travels); the others set the child's ``JAX_PLATFORMS``.
- **the runtime environment** (:func:`runtime_environment`): the child's environment is
  scrubbed (docs/security.md, "The child's environment"), and an accelerator runtime
  reads its settings from variables. Only the names of :data:`RUNTIME_VARIABLES` and
  :data:`RUNTIME_PREFIXES` travel, never one that looks like a secret
  (:data:`SECRET_MARKERS`), and the directories the grader's ``jax``, ``jaxlib``,
  ``numpy`` and runtime plug-ins come from (:func:`import_paths`), so the child imports
  the same JAX as the grader, also where it comes from ``PYTHONPATH``.
- **the device lease** (:class:`DeviceLease`): a TPU chip admits one process, and
  several processes on one GPU share its memory. Every grading child that may open an
  accelerator runs while its grader holds an exclusive ``flock`` on one lock file per
  platform; every grader on the machine (one grade's children, ``grade batch --jobs N``,
  the service, a warm pool, the daemon) takes turns on it. A lease not had within its
  bound wait is :class:`DeviceBusy`, a grader fault that says who to wait for.

Stdlib only: the CLI, the pool and the tests import it before (or without) jax.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import importlib.util
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Literal

Device = Literal["auto", "cpu", "tpu", "gpu"]
DEVICES: tuple[Device, ...] = ("auto", "cpu", "tpu", "gpu")
DEVICE_ENV = "SYNCGRADE_DEVICE"
"""``SYNCGRADE_DEVICE=auto|cpu|tpu|gpu``: the device when ``grade --device`` is not
given (the service, ``grade batch``, the daemon and the API read it too)."""
LOCK_DIR_ENV = "SYNCGRADE_DEVICE_LOCK_DIR"
"""Where the lease's lock files live (default: the system temp directory, shared by
every grader of the machine)."""
LEASE_ENV = "SYNCGRADE_DEVICE_LEASE"
"""``SYNCGRADE_DEVICE_LEASE=1``: children take the lease (and run under the resident
memory limit) on the CPU too: one grading child at a time on the machine, and how the
lease and the watchdog are tested where there is no accelerator."""
LEASE_WAIT_ENV = "SYNCGRADE_DEVICE_WAIT"
DEFAULT_LEASE_WAIT_S = 300.0
"""How long a grading child waits for the device before its grade is a grader fault:
several grades queued behind exercise-4 (about a minute on a TPU) still get their turn."""

JAX_PLATFORMS = {"cpu": "cpu", "tpu": "tpu,cpu", "gpu": "cuda,cpu"}
"""``JAX_PLATFORMS`` for each explicit choice: the accelerator first (JAX's default
device, and one that fails to start is an error, not a fall-back to the CPU), then the
host's CPU backend, which JAX's host callbacks need on an accelerator
(``jax.debug.print``, ``jax.debug.callback`` and ``pure_callback`` place their operands
on a local CPU device: with ``JAX_PLATFORMS=tpu`` alone every one raised "failed to find
a local CPU device" on the chip, 2026-12-07, and a correct submission failed ``runs``).
``gpu`` means CUDA (ROCm: ``auto`` with ``JAX_PLATFORMS=rocm`` in the grader's
environment)."""

RUNTIME_VARIABLES: dict[str, str] = {
    "JAX_PLATFORMS": "which JAX backends may start (the grader's, under --device auto)",
    "XLA_FLAGS": "XLA compiler and runtime flags the machine's image sets",
    "CUDA_VISIBLE_DEVICES": "which GPUs the CUDA runtime may open",
    "CUDA_DEVICE_ORDER": "how CUDA numbers the GPUs CUDA_VISIBLE_DEVICES names",
    "NVIDIA_VISIBLE_DEVICES": "which GPUs a container runtime exposed",
    "NVIDIA_DRIVER_CAPABILITIES": "which driver libraries a container runtime mounted",
    "LD_LIBRARY_PATH": "where the CUDA and driver libraries of a GPU image are",
    "ROCR_VISIBLE_DEVICES": "which AMD GPUs the ROCm runtime may open",
    "HIP_VISIBLE_DEVICES": "which AMD GPUs HIP may open",
}
"""Variables passed on as they are, each with why the runtime needs it."""
RUNTIME_PREFIXES: dict[str, str] = {
    "TPU_": "the TPU runtime's topology and worker settings (TPU_ACCELERATOR_TYPE, "
            "TPU_SKIP_MDS_QUERY, ...); without them libtpu asks the cloud metadata "
            "server for each one, about 29 s apiece",
    "LIBTPU": "where libtpu is and its flags (LIBTPU_INIT_ARGS)",
    "XLA_PYTHON_CLIENT_": "JAX's device memory allocator (preallocation, fraction)",
    "NCCL_": "the GPU collective library's transport settings",
    "TF_CPP_": "the XLA runtime's log level",
}
"""Name prefixes passed on, each with why."""
SECRET_MARKERS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "_KEY", "AUTH",
                  "COOKIE", "SESSION")
"""A variable whose name holds one of these never travels, whatever its prefix."""
RUNTIME_MODULES = ("jax", "jaxlib", "numpy", "ml_dtypes", "opt_einsum", "scipy", "libtpu",
                   "jax_plugins", "jax_cuda12_plugin", "jax_cuda12_pjrt", "jax_cuda13_plugin",
                   "jax_cuda13_pjrt", "nvidia")
"""Top-level modules whose folders the child must import from where the grader would."""


class DeviceBusy(RuntimeError):
    """The device lease was not had within its wait: another grader's child holds it."""


def device_choice(explicit: str | None = None,
                  environ: Mapping[str, str] | None = None) -> Device:
    """``explicit`` (``--device``), else ``$SYNCGRADE_DEVICE``, else ``auto``.
    ``ValueError`` for anything but :data:`DEVICES`."""
    env = os.environ if environ is None else environ
    value = (explicit or env.get(DEVICE_ENV, "") or "auto").strip().lower()
    for device in DEVICES:
        if value == device:
            return device
    raise ValueError(f"the device must be one of {', '.join(DEVICES)}, not {value!r}")


def travels(name: str) -> bool:
    """Whether the variable ``name`` is part of the runtime allowlist (and not secret)."""
    upper = name.upper()
    if any(marker in upper for marker in SECRET_MARKERS) or upper.startswith("SYNCGRADE"):
        return False
    return name in RUNTIME_VARIABLES or name.startswith(tuple(RUNTIME_PREFIXES))


def runtime_environment(device: Device, environ: Mapping[str, str] | None = None
                        ) -> dict[str, str]:
    """What the child's scrubbed environment gets for ``device``: the allowlisted
    variables of ``environ`` (default: the grader's), and ``JAX_PLATFORMS`` for an
    explicit choice (replacing the grader's). Nothing else of ``environ``. Under
    ``auto``, a grader's ``JAX_PLATFORMS`` that names platforms but not the CPU gets it
    appended (:func:`with_host_cpu`)."""
    env = os.environ if environ is None else environ
    kept = {name: value for name, value in env.items() if travels(name)}
    if device != "auto":
        kept["JAX_PLATFORMS"] = JAX_PLATFORMS[device]
    elif "JAX_PLATFORMS" in kept:
        kept["JAX_PLATFORMS"] = with_host_cpu(kept["JAX_PLATFORMS"])
    return kept


def with_host_cpu(platforms: str) -> str:
    """``platforms`` (a ``JAX_PLATFORMS`` value) with ``cpu`` last when it names platforms
    but not the CPU: JAX's host callbacks need the host's CPU backend whatever device runs
    the program (:data:`JAX_PLATFORMS`), and the first platform stays JAX's default. An
    empty value (JAX chooses) is left as it is."""
    names = [name.strip() for name in platforms.split(",") if name.strip()]
    if not names or "cpu" in (name.lower() for name in names):
        return platforms
    return ",".join([*names, "cpu"])


def import_paths(modules: tuple[str, ...] = RUNTIME_MODULES) -> list[str]:
    """The folders the grader's interpreter would import ``modules`` from (found, not
    imported), in the grader's ``sys.path`` order, outside the interpreter's own
    prefixes (those the child has anyway). Empty where they all come from the venv."""
    own = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    found: list[str] = []
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        folder = _search_path_entry(spec)
        if folder is None or any(_under(folder, p) for p in own) or folder in found:
            continue
        found.append(folder)
    order = [os.path.realpath(p) for p in sys.path if p]
    return sorted(found, key=lambda f: order.index(f) if f in order else len(order))


def _search_path_entry(spec: importlib.machinery.ModuleSpec | None) -> str | None:
    """The ``sys.path`` entry ``spec`` was found under (its package's parent folder)."""
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or [])
    origin = locations[0] if locations else spec.origin
    if not origin or origin in ("built-in", "frozen"):
        return None
    return os.path.realpath(os.path.dirname(origin))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def accelerator_present(environ: Mapping[str, str] | None = None) -> str | None:
    """The platform a child under ``auto`` would likely open (``"tpu"``, ``"gpu"``), or
    None for the CPU. Cheap signs, no jax import: the TPU runtime's variables or its
    ``libtpu`` package, an NVIDIA device node. ``JAX_PLATFORMS=cpu`` means the CPU."""
    env = os.environ if environ is None else environ
    platforms = env.get("JAX_PLATFORMS", "").strip().lower()
    if platforms:
        first = platforms.split(",")[0].strip()
        return {"tpu": "tpu", "cuda": "gpu", "gpu": "gpu", "rocm": "gpu"}.get(first)
    if env.get("TPU_ACCELERATOR_TYPE") or _findable("libtpu"):
        return "tpu"
    if os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/kfd"):
        return "gpu"
    return None


def _findable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def leased_platform(device: Device, environ: Mapping[str, str] | None = None) -> str | None:
    """The platform whose lease a child on ``device`` must hold, or None (the CPU needs
    none: ``--device cpu`` and a machine with no accelerator run as before, unless
    ``$SYNCGRADE_DEVICE_LEASE`` is 1: then ``"cpu"``)."""
    env = os.environ if environ is None else environ
    if device in ("tpu", "gpu"):
        return device
    found = None if device == "cpu" else accelerator_present(env)
    if found is None and env.get(LEASE_ENV, "").strip() == "1":
        return "cpu"
    return found


def lease_wait_s(environ: Mapping[str, str] | None = None) -> float:
    """``$SYNCGRADE_DEVICE_WAIT`` seconds (default :data:`DEFAULT_LEASE_WAIT_S`)."""
    env = os.environ if environ is None else environ
    try:
        value = float(env.get(LEASE_WAIT_ENV, "") or DEFAULT_LEASE_WAIT_S)
    except ValueError:
        return DEFAULT_LEASE_WAIT_S
    return value if value >= 0 else DEFAULT_LEASE_WAIT_S


def lock_path(platform: str, environ: Mapping[str, str] | None = None) -> Path:
    """The lock file of ``platform``'s lease: one per platform and machine (every
    grader sees the same unless ``$SYNCGRADE_DEVICE_LOCK_DIR`` says otherwise)."""
    import tempfile  # here, not at the top: `grade` imports this module for --device

    env = os.environ if environ is None else environ
    folder = env.get(LOCK_DIR_ENV) or tempfile.gettempdir()
    visible = env.get("CUDA_VISIBLE_DEVICES", "") if platform == "gpu" else ""
    suffix = "-" + "".join(c if c.isalnum() else "_" for c in visible) if visible else ""
    return Path(folder) / f"syncgrade-{platform}{suffix}.lock"


class DeviceLease:
    """An exclusive ``flock`` on ``path`` (created if absent), held from
    :meth:`acquire` until :meth:`release` (or the holder's death: the kernel drops it).

    ``flock`` locks belong to an open file description, so two leases conflict in one
    process as across processes. :meth:`acquire` polls every ``poll_s`` until
    ``wait_s`` has passed, then raises :class:`DeviceBusy`; it never blocks forever."""

    def __init__(self, path: Path, wait_s: float = DEFAULT_LEASE_WAIT_S,
                 poll_s: float = 0.05) -> None:
        self.path = path
        self.wait_s = wait_s
        self.poll_s = poll_s
        self.waited_s = 0.0
        self._fd = -1

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def acquire(self, stop: Callable[[], bool] | None = None) -> DeviceLease:
        """Take the lease (idempotent); :class:`DeviceBusy` after ``wait_s``, or as soon
        as ``stop()`` says so (a closing pool never waits out the whole bound)."""
        if self.held:
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        start = time.monotonic()
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise
                waited = time.monotonic() - start
                if waited >= self.wait_s or (stop is not None and stop()):
                    raise DeviceBusy(
                        f"the device is busy: another grading process held its lease "
                        f"({self.path}) for all of {self.wait_s:g} s; grade again when it "
                        f"is done, or set {LEASE_WAIT_ENV} to wait longer")
                time.sleep(min(self.poll_s, self.wait_s - waited))
        except BaseException:
            os.close(fd)
            raise
        self.waited_s = time.monotonic() - start
        self._fd = fd
        return self

    def release(self) -> None:
        """Give the lease back (idempotent)."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)  # closing the last fd of the description drops the flock

    def __enter__(self) -> DeviceLease:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def lease_for(device: Device, environ: Mapping[str, str] | None = None
              ) -> DeviceLease | None:
    """A (not yet acquired) lease for a child on ``device``, or None when it needs none."""
    platform = leased_platform(device, environ)
    if platform is None:
        return None
    return DeviceLease(lock_path(platform, environ), lease_wait_s(environ))


@contextlib.contextmanager
def holding(lease: DeviceLease | None) -> Iterator[None]:
    """Hold ``lease`` (if any) for the ``with`` block."""
    if lease is None:
        yield
        return
    with lease:
        yield
