"""The request and answer bodies of the HTTP service (the OpenAPI schema comes from here)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from syncgrade.limits import GIB
from syncgrade.service.config import ServiceConfig


class GradeRequest(BaseModel):
    """One submission to grade. Unknown fields are rejected, so a misspelt field is an
    error rather than silently ignored."""

    model_config = ConfigDict(extra="forbid")

    exercise: str = Field(description="exercise id, e.g. exercise-1 (see GET /v1/exercises)",
                          examples=["exercise-1"])
    source: str = Field(description="the learner's Python source text")
    display_name: str | None = Field(
        None, max_length=255, description="the name learners see in the report (default "
        "submission.py); never pass a platform's own path")
    timeout: float | None = Field(
        None, strict=True, description="wall-clock limit for the learner's code, seconds "
        "(default: the service's --timeout; at most its --max-timeout, see GET /healthz)")
    memory: float | None = Field(
        None, strict=True, description="memory limit of the learner's child, GiB (default: "
        "the service's --memory; at most its --max-memory, see GET /healthz)")


class JobRequest(GradeRequest):
    """A grade request run as a job: the same fields, and where to POST the result."""

    callback_url: str | None = Field(
        None, max_length=2048, description="http(s) URL the finished job (as GET "
        "/v1/jobs/{id} shows it) is POSTed to; a loopback host unless the operator "
        "allows others (--callback-host)")


class JobAccepted(BaseModel):
    """``POST /v1/jobs``'s 202 answer."""

    id: str
    status: str = Field("queued", description="always 'queued' here")
    url: str = Field(description="where to GET the job: /v1/jobs/{id}")


class ErrorBody(BaseModel):
    error: str = Field(description="what was wrong, in one line")


class Health(BaseModel):
    status: str = "ok"
    syncgrade_version: str
    report_schema_version: str
    workers: int
    queue: int
    running: int = Field(description="grades running now")
    queued: int = Field(description="admitted grade requests waiting for a worker")
    warm_pool: int = Field(0, description="children kept pre-started (0: none of its own)")
    served_warm: int = Field(0, description="child runs served by a pre-started child")
    zygote: str = Field("off", description="whether the warm children are forked from a "
                        "zygote that imported jax once: 'off', 'on', or 'failed: why' "
                        "(then each starts as a fresh interpreter)")
    course: str = Field("", description="the title of the course this service grades")
    max_timeout: float = Field(0.0, description="the largest timeout a request may ask for")
    max_memory_gib: float = Field(0.0, description="the largest memory a request may ask "
                                  "for, GiB")


def request_limits(body: GradeRequest, config: ServiceConfig) -> tuple[float, int] | str:
    """``(timeout, memory_bytes)`` for ``body`` within ``config``'s caps, or the one-line
    reason it asks for an invalid or too large limit (naming the field and the cap)."""
    timeout, memory_bytes = config.timeout, config.memory_bytes  # checked by the config
    if body.timeout is not None:
        cap = config.timeout_cap
        if not (0 < body.timeout <= cap):  # NaN fails too
            return (f"field 'timeout' must be a number of seconds above 0 and at most "
                    f"{cap:g} (this service's cap), not {body.timeout:g}")
        timeout = body.timeout
    if body.memory is not None:
        cap_gib = config.memory_cap / GIB
        if not (0 < body.memory <= cap_gib) or int(body.memory * GIB) < 1:
            return (f"field 'memory' must be a number of GiB above 0 and at most "
                    f"{cap_gib:g} (this service's cap), not {body.memory:g}")
        memory_bytes = int(body.memory * GIB)
    return timeout, memory_bytes
