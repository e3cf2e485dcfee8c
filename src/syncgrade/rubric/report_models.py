"""Pydantic models of the reports learners return (exercise-6 and exercise-7).

``report-schema`` validates the decoded return value against one of these. Field types
are deliberately strict where a loose coercion would hide a mistake: a JAX or NumPy array
where a float belongs, text where a number belongs, or a single string where a set of
phase names belongs, are all errors. Containers stay lenient (a tuple is a fine list).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict
from pydantic_core import PydanticCustomError

from syncgrade.analysis import PHASES
from syncgrade.values import JaxArray, NumpyScalar, Opaque

Phase = Literal[
    "input placement", "compilation", "dispatch", "device execution", "output wait",
    "host transfer",
]
assert get_args(Phase) == PHASES, "the phase vocabulary is defined once, in analysis.PHASES"


def type_name(value: Any) -> str:
    """How a decoded learner value is named in a message ("a JAX array", "a str")."""
    if isinstance(value, JaxArray):
        return "a JAX array"
    if isinstance(value, np.ndarray):
        return "a NumPy array"
    if isinstance(value, NumpyScalar):
        return f"a NumPy {value.dtype} scalar"
    if isinstance(value, frozenset):
        return "a set"
    if isinstance(value, Opaque):
        return f"a {value.type_name} object"
    if value is None:
        return "None"
    return f"a {type(value).__name__}"


def _plain_number(value: Any) -> Any:
    """Accept Python and NumPy numbers; name anything else precisely."""
    if isinstance(value, np.ndarray):  # includes JaxArray; pydantic would accept a 0-d one
        raise PydanticCustomError("array_not_float", "{got} where a float belongs; convert "
                                  "it with float(...)", {"got": type_name(value)})
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("not_a_number", "{got} where a number belongs",
                                  {"got": type_name(value)})
    return value


Seconds = Annotated[float, BeforeValidator(_plain_number), Field(allow_inf_nan=False)]
Text = Annotated[str, Strict()]
Count = Annotated[int, Strict()]


class _Report(BaseModel):
    # Learners may add fields of their own; only the required ones are validated.
    model_config = ConfigDict(extra="allow", frozen=True)


class RepairReport(_Report):
    """exercise-6: ``{"boundary": set[str], "samples": list[float]}``."""

    boundary: set[Phase]
    samples: list[Seconds]


class Environment(_Report):
    jax_version: Text
    backend: Text
    device: Text


class Workload(_Report):
    shapes: list[list[Count]]
    dtypes: list[Text]


class TimingReport(_Report):
    """exercise-7: first-call and warm distributions, summary, environment, boundary."""

    first_call_s: list[Seconds]
    warm_s: list[Seconds]
    first_call_median_s: Seconds
    warm_median_s: Seconds
    compile_estimate_s: Seconds
    environment: Environment
    workload: Workload
    boundary: list[Phase]
