"""Argument specs for grader calls (see ``syncgrade.child.harness`` for their meaning)."""

from __future__ import annotations

from typing import Any

Spec = dict[str, Any]


def value(v: Any) -> Spec:
    return {"kind": "value", "value": v}


def host(name: str) -> Spec:
    return {"kind": "host", "name": name}


def device(name: str, ready: bool = True) -> Spec:
    return {"kind": "device", "name": name, "ready": ready}


def tuple_of(*items: Spec) -> Spec:
    return {"kind": "tuple", "items": list(items)}


def jax_device() -> Spec:
    return {"kind": "jax_device"}


def rng(seed: int) -> Spec:
    return {"kind": "rng", "seed": seed}


def workload(name: str, warm: list[Spec] | None = None) -> Spec:
    return {"kind": "workload", "name": name, "warm": warm}


def factory(name: str) -> Spec:
    return {"kind": "factory", "name": name}


def probe(seconds: float) -> Spec:
    return {"kind": "probe", "seconds": seconds}


def probe_args(seconds: float) -> Spec:
    return {"kind": "probe_args", "seconds": seconds}


def probe_host_args(seconds: float) -> Spec:
    return {"kind": "probe_host_args", "seconds": seconds}
