"""The device choice, the runtime environment allowlist and the device lease
(docs/accelerators.md), on the CPU: what CI has. The GPU and TPU paths are driven with
fake environments; the lease with real flocks between threads and processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from syncgrade import accelerator
from syncgrade.accelerator import DeviceBusy, DeviceLease

TPU_ENV = {"TPU_ACCELERATOR_TYPE": "v5litepod-4", "TPU_SKIP_MDS_QUERY": "true",
           "TPU_WORKER_HOSTNAMES": "localhost", "LIBTPU_INIT_ARGS": "--xla_x",
           "PATH": "/usr/bin", "HOME": "/root", "AWS_SECRET_ACCESS_KEY": "s3cr3t",
           "GITHUB_TOKEN": "ghp_x", "TPU_AUTH_TOKEN": "t", "SYNCGRADE_COURSE": "/c",
           "OPENAI_API_KEY": "k", "LD_PRELOAD": "/evil.so"}
GPU_ENV = {"CUDA_VISIBLE_DEVICES": "1", "NVIDIA_VISIBLE_DEVICES": "all",
           "NVIDIA_DRIVER_CAPABILITIES": "compute,utility", "XLA_FLAGS": "--xla_gpu_x",
           "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5", "NCCL_DEBUG": "WARN",
           "HF_TOKEN": "h", "PGPASSWORD": "p"}


def test_the_device_comes_from_the_option_then_the_variable_then_auto() -> None:
    assert accelerator.device_choice(None, {}) == "auto"
    assert accelerator.device_choice(None, {"SYNCGRADE_DEVICE": "TPU "}) == "tpu"
    assert accelerator.device_choice("cpu", {"SYNCGRADE_DEVICE": "tpu"}) == "cpu"
    with pytest.raises(ValueError, match="auto, cpu, tpu, gpu"):
        accelerator.device_choice(None, {"SYNCGRADE_DEVICE": "cuda"})


def test_the_tpu_runtime_variables_travel_and_no_secret_does() -> None:
    env = accelerator.runtime_environment("auto", TPU_ENV)
    assert env == {"TPU_ACCELERATOR_TYPE": "v5litepod-4", "TPU_SKIP_MDS_QUERY": "true",
                   "TPU_WORKER_HOSTNAMES": "localhost", "LIBTPU_INIT_ARGS": "--xla_x"}


def test_the_gpu_runtime_variables_travel_and_no_secret_does() -> None:
    env = accelerator.runtime_environment("gpu", GPU_ENV)
    assert env == {"CUDA_VISIBLE_DEVICES": "1", "NVIDIA_VISIBLE_DEVICES": "all",
                   "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
                   "XLA_FLAGS": "--xla_gpu_x", "XLA_PYTHON_CLIENT_MEM_FRACTION": ".5",
                   "NCCL_DEBUG": "WARN", "JAX_PLATFORMS": "cuda,cpu"}


@pytest.mark.parametrize(("device", "platforms"),
                         [("cpu", "cpu"), ("tpu", "tpu,cpu"), ("gpu", "cuda,cpu"),
                          ("auto", "rocm,cpu")])
def test_an_explicit_device_sets_jax_platforms_and_auto_keeps_the_graders_with_the_cpu(
        device: accelerator.Device, platforms: str) -> None:
    # The accelerator first (JAX's default device), then the host's CPU backend:
    # jax.debug.print and pure_callback place their operands on a local CPU device, and
    # with the accelerator alone they raised inside a correct submission on the chip.
    env = accelerator.runtime_environment(device, {"JAX_PLATFORMS": "rocm"})
    assert env["JAX_PLATFORMS"] == platforms


def test_every_allowlisted_name_has_a_reason() -> None:
    for name, why in {**accelerator.RUNTIME_VARIABLES, **accelerator.RUNTIME_PREFIXES}.items():
        assert len(why.split()) >= 4, name
    for secret in ("TPU_API_KEY", "NVIDIA_TOKEN", "XLA_FLAGS_PASSWORD", "SYNCGRADE_DEVICE"):
        assert not accelerator.travels(secret)


def test_the_lease_and_the_resident_limit_follow_the_device() -> None:
    assert accelerator.leased_platform("cpu", TPU_ENV) is None
    assert accelerator.leased_platform("tpu", {}) == "tpu"
    assert accelerator.leased_platform("gpu", {}) == "gpu"
    assert accelerator.leased_platform("auto", TPU_ENV) == "tpu"
    assert accelerator.leased_platform("auto", {**TPU_ENV, "JAX_PLATFORMS": "cpu"}) is None
    assert accelerator.leased_platform("auto", {"JAX_PLATFORMS": "cuda,cpu"}) == "gpu"
    assert accelerator.leased_platform("cpu", {"SYNCGRADE_DEVICE_LEASE": "1"}) == "cpu"


def test_this_machine_under_auto_needs_no_lease_unless_asked() -> None:
    # CI has no accelerator: the default on the CPU behaves as before (no lease, RLIMIT_AS).
    env = {"PATH": "/usr/bin", "JAX_PLATFORMS": "cpu"}
    assert accelerator.lease_for("auto", env) is None


def test_gpu_lock_files_follow_the_visible_devices(tmp_path: Path) -> None:
    base = {"SYNCGRADE_DEVICE_LOCK_DIR": str(tmp_path)}
    one = accelerator.lock_path("gpu", {**base, "CUDA_VISIBLE_DEVICES": "0"})
    two = accelerator.lock_path("gpu", {**base, "CUDA_VISIBLE_DEVICES": "1"})
    assert one != two and one.parent == tmp_path
    assert accelerator.lock_path("tpu", base) == tmp_path / "syncgrade-tpu.lock"


def test_the_runtime_comes_from_where_the_grader_imports_it(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    # A JAX on PYTHONPATH (as on the TPU machines): its folder is found, not imported.
    fake = tmp_path / "site" / "fakeruntime_sg34"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise RuntimeError('imported')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert accelerator.import_paths(("fakeruntime_sg34", "numpy")) [0] == str(
        (tmp_path / "site").resolve())
    assert "fakeruntime_sg34" not in sys.modules


def test_a_child_imports_jax_from_the_graders_pythonpath(tmp_path: Path) -> None:
    # The pool's child command carries the folder the grader's jax comes from.
    from syncgrade.pool import child_command

    command = child_command()
    paths = command.env["PYTHONPATH"].split(":")
    import jax

    folder = str(Path(jax.__file__).resolve().parent.parent)
    venv = Path(sys.prefix).resolve()
    assert folder in paths or Path(folder).is_relative_to(venv)


def test_a_held_lease_makes_another_wait_then_fail_clearly(tmp_path: Path) -> None:
    path = tmp_path / "syncgrade-tpu.lock"
    with DeviceLease(path):
        second = DeviceLease(path, wait_s=0.3)
        start = time.monotonic()
        with pytest.raises(DeviceBusy, match="another grading process held its lease"):
            second.acquire()
        assert time.monotonic() - start >= 0.3
        assert not second.held
    with DeviceLease(path, wait_s=0.3) as third:  # given back: free at once
        assert third.held


def test_a_lease_is_had_as_soon_as_its_holder_gives_it_back(tmp_path: Path) -> None:
    path = tmp_path / "syncgrade-tpu.lock"
    first = DeviceLease(path).acquire()
    threading.Timer(0.3, first.release).start()
    second = DeviceLease(path, wait_s=30).acquire()
    assert second.held and second.waited_s >= 0.2
    second.release()


def test_a_waiting_lease_stops_when_told(tmp_path: Path) -> None:
    path = tmp_path / "syncgrade-tpu.lock"
    with DeviceLease(path):
        stop = threading.Event()
        threading.Timer(0.2, stop.set).start()
        with pytest.raises(DeviceBusy):
            DeviceLease(path, wait_s=60).acquire(stop=stop.is_set)


def test_the_lease_holds_across_processes_and_ends_with_its_holder(tmp_path: Path) -> None:
    path = tmp_path / "syncgrade-gpu.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from syncgrade.accelerator import DeviceLease; "
         f"DeviceLease(Path({str(path)!r})).acquire(); print('held', flush=True); "
         "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(DeviceBusy):
            DeviceLease(path, wait_s=0.2).acquire()
    finally:
        holder.kill()
        holder.wait()
    with DeviceLease(path, wait_s=5) as lease:  # the kernel dropped the dead holder's lock
        assert lease.held


@pytest.mark.parametrize(("given", "sent"), [
    ("tpu", "tpu,cpu"), ("cuda", "cuda,cpu"), ("cpu", "cpu"), ("cuda,cpu", "cuda,cpu"),
    ("tpu, CPU", "tpu, CPU"), ("", "")])
def test_auto_adds_the_host_cpu_to_the_graders_platforms(given: str, sent: str) -> None:
    env = accelerator.runtime_environment("auto", {"JAX_PLATFORMS": given})
    assert env["JAX_PLATFORMS"] == sent
