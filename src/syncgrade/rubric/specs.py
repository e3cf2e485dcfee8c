"""Argument specs: how a rubric says what the grader passes to a learner function.

A :class:`~syncgrade.rubric.base.GraderCall` lists one spec per argument. A spec is a
small JSON-able dict that travels to the child in the job; the child builds the live
argument from it (``syncgrade.child.harness``) after the submission is loaded, so a rubric
stays data and the child never sees a reference or a check. Reference:
docs/authoring.md, "Argument specs".

- :func:`value`: a JSON value passed as is (a count, a list of settings).
- :func:`host`: hidden input ``name`` (from ``make_inputs``) as a NumPy array (a copy).
- :func:`device`: that input placed on the default device, ready; ``ready=False`` hands
  it over still being computed (~50 ms of device work), to test that the learner waits.
- :func:`tuple_of`: a tuple of specs (``args`` for ``fn(*args)``).
- :func:`jax_device`: the default ``jax.Device``; ``fault=`` makes its arithmetic slightly
  off for the whole call (:data:`DEVICE_FAULTS`, exercise-4's wrong device).
- :func:`rng`: ``np.random.default_rng(seed)``.
- :func:`workload`: ``jax.jit`` of a named workload, optionally warmed up; a built-in one
  (:data:`BUILTIN_WORKLOADS`) or one the rubric declares as source text (``source=``),
  with any of the ``jax.jit`` options in :data:`JIT_OPTIONS` (``donate_argnums``...);
  ``bind=`` appends hidden arguments to every call, so two setups can share one program
  and differ only in data (exercise-4).
- :func:`factory`: a zero-argument callable returning a fresh, uncompiled jit each call.
- :func:`probe`, :func:`probe_args`, :func:`probe_host_args`: the calibrated spin of
  about ``seconds`` and its placed or NumPy arguments; a call that uses any of them
  records the probe's measured duration, which ``covers-device-work`` reads.
- :func:`probe_like`: a jit with the signature and the exact results of workload ``name``
  whose program also runs the calibrated spin, so one call takes about ``seconds`` on the
  device (for functions that take a workload, not ``fn, args``: exercise-4).
- :func:`probe_factory`: :func:`factory` for the probe: each ``make_fn()`` is a fresh,
  uncompiled jit of the spin, called with :func:`probe_args` (exercise-7).

Every spec whose kind starts with ``probe`` makes its call record the probe's duration.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Spec = dict[str, Any]

BUILTIN_WORKLOADS = frozenset({
    "predict", "predict_exact", "predict_off_by_a_little", "energy", "spin",
})
"""The workloads the child ships (``syncgrade.child.workloads.WORKLOADS``): ``predict(x,
w) = tanh(x @ w)``; ``predict_exact`` / ``predict_off_by_a_little``: the same times 1 and
times 1 + 1e-3; ``energy(a, b) = sum((a @ b)**2, axis=1)``; ``spin(x, n)``:
``n`` steps of ``sin(x) * 1.0001`` in a ``lax.while_loop``. Listed here because the
parent never imports jax (a test keeps the two lists equal)."""

DEVICE_FAULTS = frozenset({"bfloat16-tanh"})
"""The device faults :func:`jax_device` can ask for (``syncgrade.child.workloads.
install_device_fault``; a test keeps the two lists equal): ``"bfloat16-tanh"``: every
``tanh`` JAX lowers in the call's child is computed in bfloat16 (up to ~0.4% off in
float32), in the learner's own programs and eager ``jnp.tanh`` too; NumPy is untouched."""

WORKLOAD_GLOBALS = ("jax", "jnp", "lax", "np")
"""The names a declared workload's source may use without importing them: ``jax``,
``jax.numpy as jnp``, ``jax.lax as lax`` and ``numpy as np``."""


def value(v: Any) -> Spec:
    """``v`` itself (JSON: numbers, strings, booleans, None, lists, dicts)."""
    return {"kind": "value", "value": v}


def host(name: str) -> Spec:
    """A copy of hidden input ``name`` as a NumPy array."""
    return {"kind": "host", "name": name}


def device(name: str, ready: bool = True) -> Spec:
    """Hidden input ``name`` placed on the default device (``ready=False``: handed over
    while a ~50 ms computation that produces it is still running)."""
    return {"kind": "device", "name": name, "ready": ready}


def tuple_of(*items: Spec) -> Spec:
    """A tuple built from ``items``."""
    return {"kind": "tuple", "items": list(items)}


def jax_device(fault: str | None = None) -> Spec:
    """``jax.devices()[0]``; with ``fault`` (one of :data:`DEVICE_FAULTS`), that device
    computes slightly wrong for the whole call, installed before any argument is built.
    Only for a rubric whose calls each run in a fresh child (``isolate_calls=True``): the
    fault lasts as long as the process."""
    return {"kind": "jax_device"} if fault is None else {"kind": "jax_device", "fault": fault}


def rng(seed: int) -> Spec:
    """``np.random.default_rng(seed)``."""
    return {"kind": "rng", "seed": seed}


JIT_OPTIONS = ("static_argnums", "static_argnames", "donate_argnums", "donate_argnames",
               "keep_unused", "inline")
"""The ``jax.jit`` options a declared workload may take (:func:`workload`,
:func:`factory`): which arguments are static, which inputs are donated (their buffers
handed to XLA for the outputs: a donated array is deleted by the call), whether unused
arguments are kept, whether the jit is inlined into an enclosing one. The sharding,
device, backend and compiler options are not offered: a timed workload runs where the
grader places its inputs, as the learner's code would."""


def _names(value: str | Sequence[str]) -> list[str]:
    # jax takes one name or a sequence of them; a str is one name, not its characters.
    return [value] if isinstance(value, str) else [str(n) for n in value]


def _numbers(value: int | Sequence[int]) -> list[int]:
    return [value] if isinstance(value, int) else list(value)


def static_positions(static_argnums: int | Sequence[int]) -> list[int]:
    """``static_argnums`` as a list: one int, as ``jax.jit`` accepts, or a sequence of
    ints. Raises ``TypeError`` naming the parameter for anything else (raised where the
    declaration builds the spec, so the loader's error names that line)."""
    if isinstance(static_argnums, int) and not isinstance(static_argnums, bool):
        return [static_argnums]
    if isinstance(static_argnums, (str, bytes)) or not isinstance(static_argnums, Sequence):
        raise TypeError(f"static_argnums must be an int or a sequence of ints (as "
                        f"jax.jit takes), not {static_argnums!r}")
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in static_argnums):
        raise TypeError(f"static_argnums must hold ints only, not {list(static_argnums)!r}")
    return list(static_argnums)


def _declared(spec: Spec, source: str | None, static_argnums: int | Sequence[int] = (),
              static_argnames: str | Sequence[str] = (),
              donate_argnums: int | Sequence[int] = (),
              donate_argnames: str | Sequence[str] = (),
              keep_unused: bool = False, inline: bool = False) -> Spec:
    # Keys only when used: the jobs of exercises that do not declare workloads or options
    # stay as they were. Values are kept as given (an int stays where ints belong): the
    # rubric's load-time validation (rubric.validation) names a wrong one.
    if source is not None:
        spec["source"] = source
    for key, value in (("static_argnums", static_positions(static_argnums)),
                       ("static_argnames", _names(static_argnames)),
                       ("donate_argnums", _numbers(donate_argnums)),
                       ("donate_argnames", _names(donate_argnames))):
        if value:
            spec[key] = value
    for key, flag in (("keep_unused", keep_unused), ("inline", inline)):
        if flag is not False:
            spec[key] = flag
    return spec


def workload(name: str, warm: list[Spec] | None = None, *, source: str | None = None,
             static_argnums: int | Sequence[int] = (),
             static_argnames: str | Sequence[str] = (),
             donate_argnums: int | Sequence[int] = (),
             donate_argnames: str | Sequence[str] = (),
             keep_unused: bool = False, inline: bool = False,
             bind: list[Spec] | None = None) -> Spec:
    """``jax.jit(f, **options)`` of workload ``name``, a new function object per grader
    call; compiled and waited on ``warm`` argument specs first when given (include a
    :func:`value` for each static argument; a donated warm-up argument is built for the
    warm-up alone, so the call's own arguments are never consumed by it).

    The options (:data:`JIT_OPTIONS`) are ``jax.jit``'s, with its meaning:
    ``static_argnums``/``static_argnames`` (one value each is a new program),
    ``donate_argnums``/``donate_argnames`` (the call consumes those inputs: the learner
    must hand it a fresh array each time, and the trace records whether each call
    really donated, ``donates-input``), ``keep_unused``, ``inline``. A static argument
    cannot also be donated; positions and names must exist in the workload's signature
    (checked when the rubric loads).

    ``name`` is a built-in workload (:data:`BUILTIN_WORKLOADS`) or, with ``source``, the
    name of a top-level ``def`` in ``source``: Python text the child executes with
    :data:`WORKLOAD_GLOBALS` in scope. The source travels in the job (the learner's code
    calls it anyway, so it is not secret); it must hold no expected values.

    ``bind``: argument specs appended to every call of the jit (the warm-up's too). The
    learner gets a callable without those parameters whose calls, ``lower``, ``trace``
    and ``eval_shape`` pass them: setups that differ only in bound data run one program,
    the same text under ``jax.make_jaxpr`` and ``.lower(...).as_text()``."""
    spec = _declared({"kind": "workload", "name": name, "warm": warm}, source,
                     static_argnums, static_argnames, donate_argnums, donate_argnames,
                     keep_unused, inline)
    if bind:
        spec["bind"] = list(bind)
    return spec


def factory(name: str, *, source: str | None = None,
            static_argnums: int | Sequence[int] = (),
            static_argnames: str | Sequence[str] = (),
            donate_argnums: int | Sequence[int] = (),
            donate_argnames: str | Sequence[str] = (),
            keep_unused: bool = False, inline: bool = False) -> Spec:
    """``make_fn()``: each call returns a fresh ``jax.jit`` of workload ``name`` with the
    same options as :func:`workload`, whose first call traces and compiles."""
    return _declared({"kind": "factory", "name": name}, source, static_argnums,
                     static_argnames, donate_argnums, donate_argnames, keep_unused, inline)


def probe(seconds: float) -> Spec:
    """The grader's jit of ``spin``, calibrated so one run takes about ``seconds``."""
    return {"kind": "probe", "seconds": seconds}


def probe_like(name: str, seconds: float, warm: list[Spec] | None = None, *,
               source: str | None = None) -> Spec:
    """``jax.jit`` of workload ``name`` (see :func:`workload`, without static arguments)
    whose program also runs the calibrated spin: same signature, bit-for-bit the same
    results (each floating-point output ``y`` is returned as ``y - 0.0 * s``, ``s`` > 0
    the spin's first element), and one call takes at least the probe's ``seconds`` on the
    device. A new function object per grader call, uncompiled, or compiled on the
    ``warm`` specs first when given (that warm-up runs the spin too)."""
    return _declared({"kind": "probe_like", "name": name, "seconds": seconds,
                      "warm": warm}, source)


def probe_factory(seconds: float) -> Spec:
    """``make_fn()`` (see :func:`factory`): each call returns a fresh ``jax.jit`` of the
    spin, whose first call traces and compiles; called with :func:`probe_args` of the same
    ``seconds``, one run takes about ``seconds``."""
    return {"kind": "probe_factory", "seconds": seconds}


def probe_args(seconds: float) -> Spec:
    """The probe's arguments ``(x, n)``, placed on the device and ready."""
    return {"kind": "probe_args", "seconds": seconds}


def probe_host_args(seconds: float) -> Spec:
    """The probe's arguments ``(x, n)`` as NumPy arrays."""
    return {"kind": "probe_host_args", "seconds": seconds}
