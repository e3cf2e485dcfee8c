"""``grade serve``: run the HTTP service (see :mod:`syncgrade.service`, docs/platforms.md).

    grade serve [--host 127.0.0.1] [--port 8000] [--workers N] [--queue N]
                [--max-body BYTES] [--timeout S] [--memory GIB] [--max-timeout S]
                [--max-memory GIB] [--warm-pool N] [--course DIR]
                [--token-file PATH | --no-auth] [--callback-host HOST ...]

A service serves one course: ``--course`` (a folder or an installed course's name), else
``$SYNCGRADE_COURSE``, else the built-in course.

Authentication: a bearer token from ``--token-file`` (its first line), else
``$SYNCGRADE_SERVE_TOKEN``. On a loopback host it is optional (off without a token); on
any other host a token is required unless ``--no-auth`` (or
``SYNCGRADE_SERVE_NO_AUTH=1``) says the network in front does it: without either,
``grade serve`` refuses to start (exit 2). The token never goes on the command line,
where any local user could read it in the process list.

Logs are JSON lines on stderr (:mod:`syncgrade.service.logs`).

Needs the ``serve`` extra (FastAPI, uvicorn, prometheus-client); without it, says how to
install it and exits 2. Runs until interrupted.
"""

from __future__ import annotations

import argparse
import logging.config
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from syncgrade.cli.common import (
    UsageError,
    _limit,
    add_course,
    add_memory,
    add_timeout,
    open_course,
)
from syncgrade.limits import GIB, MAX_MEMORY_GIB, MAX_TIMEOUT_S, check_memory_gib, check_timeout

if TYPE_CHECKING:
    from syncgrade.service import ServiceConfig

TOKEN_ENV = "SYNCGRADE_SERVE_TOKEN"
NO_AUTH_ENV = "SYNCGRADE_SERVE_NO_AUTH"
STAFF_TOKEN_ENV = "SYNCGRADE_SERVE_STAFF_TOKEN"


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}")
        return value

    return parse


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError("must be between 1 and 65535")
    return value


ENV_PREFIX = "SYNCGRADE_SERVE_"
COURSE_ENV = "SYNCGRADE_COURSE"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")


def env_name(action: argparse.Action) -> str:
    """The environment variable of an option: ``SYNCGRADE_SERVE_`` and its name in capitals
    (``--max-body`` -> ``SYNCGRADE_SERVE_MAX_BODY``); ``--course`` keeps the variable every
    command reads, ``SYNCGRADE_COURSE``."""
    return COURSE_ENV if action.dest == "course" else ENV_PREFIX + action.dest.upper()


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if a.option_strings and a.dest != "help"]


def apply_environment(parser: argparse.ArgumentParser, environ: Mapping[str, str]) -> None:
    """Each option's default from its environment variable (:func:`env_name`) when set;
    the command line still wins. A flag reads 1/true/yes/on or 0/false/no/off, a
    repeatable option a comma-separated list. A bad value is a :class:`UsageError` that
    names the variable."""
    for action in _options(parser):
        name = env_name(action)
        text = environ.get(name)
        if text is None or action.dest == "course":  # courses.open_course reads its own
            continue
        convert = action.type if callable(action.type) else str
        try:
            if isinstance(action, argparse._StoreTrueAction):
                if text.strip().lower() not in _TRUE + _FALSE:
                    raise argparse.ArgumentTypeError("not one of 1, true, yes, on, 0, "
                                                     "false, no, off")
                value: object = text.strip().lower() in _TRUE
            elif isinstance(action, argparse._AppendAction):
                value = [convert(part.strip()) for part in text.split(",") if part.strip()]
            else:
                value = convert(text.strip())
        except (argparse.ArgumentTypeError, UsageError, ValueError) as exc:
            raise UsageError(f"${name}: {exc}") from None
        parser.set_defaults(**{action.dest: value})


def _name_variables(parser: argparse.ArgumentParser) -> None:
    """Each option's help ends with the variable it is also read from."""
    for action in _options(parser):
        if action.dest != "course":  # its help names $SYNCGRADE_COURSE already
            action.help = f"{action.help} [env: {env_name(action)}]"


def serve_parser(environ: Mapping[str, str] | None = None) -> argparse.ArgumentParser:
    """``grade serve``'s options; with ``environ``, their defaults from its variables
    (:func:`apply_environment`)."""
    from syncgrade.service import DEFAULT_MAX_BODY, ServiceConfig

    defaults = ServiceConfig()
    parser = argparse.ArgumentParser(
        prog="grade serve",
        description="Serve syncgrade over HTTP: POST /v1/grade (wait for the report), "
                    "POST /v1/jobs and GET /v1/jobs/ID (a job, with an optional callback), "
                    "GET /v1/exercises, GET /v1/schema, GET /healthz, GET /readyz, "
                    "GET /metrics (Prometheus); OpenAPI docs at /docs. Each grade runs in "
                    "its own sandboxed child, as on the command line. Logs are JSON lines "
                    "on stderr.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only; "
                             "any other needs a token or --no-auth)")
    parser.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    parser.add_argument("--workers", type=_int_at_least(1), default=defaults.workers,
                        metavar="N",
                        help=f"grades run at once (default: {defaults.workers}); size it by "
                             "memory, see docs/platforms.md")
    parser.add_argument("--queue", type=_int_at_least(0), default=defaults.queue, metavar="N",
                        help=f"grades (requests and jobs) waiting for a worker before new ones "
                             f"get 429 (default: {defaults.queue})")
    parser.add_argument("--max-body", type=_int_at_least(1), default=DEFAULT_MAX_BODY,
                        metavar="BYTES",
                        help=f"largest request body; bigger ones get 413 (default: "
                             f"{DEFAULT_MAX_BODY})")
    add_timeout(parser, defaults.timeout, what="wall-clock limit for each submission's code "
                "when the request names none")
    add_memory(parser)
    parser.add_argument("--max-timeout", type=_limit(check_timeout, "--max-timeout"),
                        default=None, metavar="SECONDS",
                        help=f"the largest 'timeout' a request may ask for (default: "
                             f"--timeout; at most {MAX_TIMEOUT_S:g})")
    parser.add_argument("--max-memory", type=_limit(check_memory_gib, "--max-memory"),
                        default=None, metavar="GIB",
                        help=f"the largest 'memory' (GiB) a request may ask for (default: "
                             f"--memory; at most {MAX_MEMORY_GIB:g})")
    parser.add_argument("--warm-pool", type=_int_at_least(0), default=None, metavar="N",
                        help="children kept pre-started, jax imported, each used for one "
                             "submission (default: --workers; 0: start each child cold)")
    parser.add_argument("--cluster", default=None, metavar="ADDRESS",
                        help="grade on the workers of the Dask scheduler at ADDRESS "
                             "(tcp://host:port) instead of this machine; every replica "
                             "given the same ADDRESS shares its workers (needs "
                             "syncgrade[cluster]; docs/platforms.md, 'Scaling out')")
    add_course(parser)
    _add_operations_options(parser, defaults)
    _add_security_options(parser)
    _name_variables(parser)
    if environ is not None:
        apply_environment(parser, environ)
    return parser


def _add_operations_options(parser: argparse.ArgumentParser, defaults: ServiceConfig
                            ) -> None:
    parser.add_argument("--drain-timeout", type=_limit(check_timeout, "--drain-timeout"),
                        default=defaults.drain_timeout, metavar="SECONDS",
                        help=f"on SIGTERM (or Ctrl-C), how long running grades may finish "
                             f"and held-open requests be answered before the service stops "
                             f"anyway (what is left: 503, jobs failed); keep it under the "
                             f"orchestrator's grace period, 30 s on Kubernetes (default: "
                             f"{defaults.drain_timeout:g})")
    parser.add_argument("--job-store", default=None, metavar="PATH",
                        help=f"the SQLite file jobs are kept in, so they survive a restart "
                             f"and every replica given the same file reads every job; "
                             f"':memory:' keeps them in this process only (default: "
                             f"{default_job_store()})")


def default_job_store(environ: Mapping[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/syncgrade/jobs.sqlite3`` (``~/.local/state`` when unset)."""
    environ = os.environ if environ is None else environ
    state = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return str(Path(state) / "syncgrade" / "jobs.sqlite3")


def _add_security_options(parser: argparse.ArgumentParser) -> None:
    auth = parser.add_mutually_exclusive_group()
    auth.add_argument("--token-file", type=Path, default=None, metavar="PATH",
                      help=f"require 'Authorization: Bearer TOKEN' (TOKEN: the file's first "
                           f"line) on every endpoint but /healthz and /readyz; default: "
                           f"${TOKEN_ENV} if set. Required off loopback unless --no-auth")
    auth.add_argument("--no-auth", action="store_true",
                      help=f"no token even off loopback: a proxy or network in front "
                           f"authenticates (also {NO_AUTH_ENV}=1)")
    parser.add_argument("--staff-token-file", type=Path, default=None, metavar="PATH",
                        help=f"a second token (the file's first line) for staff: a request "
                             f"with 'Authorization: Bearer STAFF_TOKEN' sees full reports, "
                             f"hidden and after_due_date checks included; every other one "
                             f"gets the learner's view. Default: ${STAFF_TOKEN_ENV} if set, "
                             f"else no one sees the full view over HTTP")
    parser.add_argument("--callback-host", action="append", default=[], metavar="HOST",
                        help="a host job callbacks may go to besides loopback (repeat it; "
                             "'*': any). Default: loopback only")


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` reaches this machine only (names not resolved
    beyond ``localhost``; ``0.0.0.0``/``::`` are every interface, so not)."""
    from syncgrade.service.jobs import is_loopback_host

    return is_loopback_host(host)


def auth_token(args: argparse.Namespace, environ: Mapping[str, str]) -> str | None:
    """The bearer token the service requires, or None; :class:`UsageError` when a
    non-loopback ``--host`` has neither a token nor ``--no-auth``."""
    no_auth = args.no_auth or environ.get(NO_AUTH_ENV, "").strip().lower() in (
        "1", "true", "yes")
    token: str | None
    if args.token_file is not None:
        token = _read_token(args.token_file, "--token-file")
    elif no_auth:
        token = None
    else:
        token = environ.get(TOKEN_ENV, "").strip() or None
    if token is None and not no_auth and not is_loopback(args.host):
        raise UsageError(f"refusing to serve on {args.host} without authentication: set "
                         f"${TOKEN_ENV} or --token-file, or pass --no-auth if a proxy in "
                         "front authenticates")
    if token is not None and any(c.isspace() for c in token):
        raise UsageError("the token must not contain whitespace")
    return token


def staff_token(args: argparse.Namespace, environ: Mapping[str, str]) -> str | None:
    """The staff's token (full reports), from ``--staff-token-file`` or
    ``$SYNCGRADE_SERVE_STAFF_TOKEN``; None when neither is given."""
    if args.staff_token_file is not None:
        token: str | None = _read_token(args.staff_token_file, "--staff-token-file")
    else:
        token = environ.get(STAFF_TOKEN_ENV, "").strip() or None
    if token is not None and any(c.isspace() for c in token):
        raise UsageError("the staff token must not contain whitespace")
    return token


def _read_token(path: Path, option: str) -> str:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{option}: cannot read {path}: {exc}") from None
    token = lines[0].strip() if lines else ""
    if not token:
        raise UsageError(f"{option}: {path} has no token on its first line")
    return token


def cmd_serve(argv: Sequence[str], *, heartbeat_s: float | None = None,
              stale_s: float | None = None, self_test_retry_s: float | None = None) -> int:
    """``grade serve ARGV``. ``heartbeat_s``, ``stale_s``, ``self_test_retry_s``:
    :class:`~syncgrade.service.ServiceConfig`'s (None: its defaults), for a test that
    waits one of them out (no option sets them: they are not an operator's settings)."""
    args = serve_parser(os.environ).parse_args(argv)
    try:
        import fastapi  # noqa: F401
        import prometheus_client  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise UsageError("`grade serve` needs the serve extra: pip install "
                         "'syncgrade[serve]' (FastAPI, uvicorn and prometheus-client)") \
            from None
    from syncgrade.service import ServiceConfig, create_app
    from syncgrade.service.config import HEARTBEAT_S, SELF_TEST_RETRY_S, STALE_S
    from syncgrade.service.logs import log, log_config

    token = auth_token(args, os.environ)
    course = open_course(args.course)  # a usage error before the server starts
    try:
        config = ServiceConfig(
            workers=args.workers, queue=args.queue, max_body=args.max_body,
            timeout=args.timeout, memory_bytes=int(args.memory * GIB),
            max_timeout=args.max_timeout,
            max_memory_bytes=None if args.max_memory is None else int(args.max_memory * GIB),
            # With --cluster the workers hold the warm pools: none here.
            warm_pool=0 if args.cluster is not None
            else args.workers if args.warm_pool is None else args.warm_pool,
            course=str(course.root), auth_token=token,
            staff_token=staff_token(args, os.environ),
            callback_hosts=tuple(args.callback_host), drain_timeout=args.drain_timeout,
            job_store=args.job_store or default_job_store(),
            heartbeat_s=HEARTBEAT_S if heartbeat_s is None else heartbeat_s,
            stale_s=STALE_S if stale_s is None else stale_s,
            self_test_retry_s=SELF_TEST_RETRY_S if self_test_retry_s is None
            else self_test_retry_s)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    grade, client = None, None
    if args.cluster is not None:
        from syncgrade.cluster import ClusterError, Reconnecting
        from syncgrade.service.runner import cluster_grade

        try:  # a client that outlives scheduler outages (not ready meanwhile)
            client = Reconnecting(args.cluster)
        except ClusterError as exc:
            raise UsageError(str(exc)) from None
        grade = cluster_grade(client, str(course.root))
    logging.config.dictConfig(log_config())  # JSON lines on stderr, uvicorn's and Dask's
    import sqlite3

    try:
        app = create_app(config, grade=grade,
                         cluster=client.problem if client is not None else None,
                         workers=client.threads if client is not None else None)
    except (OSError, sqlite3.Error) as exc:  # the job store cannot be opened there
        raise UsageError(f"--job-store: cannot open {config.job_store}: {exc}") from None
    log("serving", course=course.title, exercises=len(course.exercises),
        course_root=str(course.root), url=f"http://{args.host}:{args.port}",
        workers=config.workers, queue=config.queue, warm_pool=config.warm_pool,
        max_body=config.max_body, timeout=config.timeout, max_timeout=config.timeout_cap,
        memory_gib=config.memory_bytes / GIB, max_memory_gib=config.memory_cap / GIB,
        auth="bearer token" if token else "off", cluster=args.cluster,
        staff_view="staff token" if config.staff_token else "off",
        drain_timeout=config.drain_timeout, job_store=config.job_store,
        callback_hosts=list(config.callback_hosts) or ["loopback"])
    try:
        _run(app, args.host, args.port)
    finally:
        if client is not None:  # after the app's shutdown, which waits for its grades
            client.close()
    if app.state.service.abandoned:
        # Grades still run on threads the interpreter would wait for at exit: end the
        # process now; the sandbox's children die with it (PR_SET_PDEATHSIG). (After a
        # signal uvicorn raises it again first, and the process ends by it.)
        logging.shutdown()
        os._exit(0)
    return 0


def _run(app: Any, host: str, port: int) -> None:
    """uvicorn, whose first SIGTERM or Ctrl-C starts the service's drain
    (:meth:`~syncgrade.service.app.Service.begin_drain`: readiness off, the queue
    cancelled, the deadline set) while it keeps serving: ``/readyz`` answers 503 and a
    grade asked for 503, rather than a refused connection, until the grades running
    have ended or the deadline passed; only then does uvicorn stop listening and shut
    down. A second signal stops uvicorn at once."""
    import uvicorn

    from syncgrade.service.config import LAST_CALLBACKS_S

    service = app.state.service

    class Draining(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if service.draining:  # a second signal: no more waiting
                super().handle_exit(sig, frame)
                return
            service.begin_drain()

            def then_exit() -> None:
                service.wait_drained()
                super(Draining, self).handle_exit(sig, frame)

            threading.Thread(target=then_exit, daemon=True, name="syncgrade-drain").start()

    # uvicorn's own bound on held-open requests: a backstop, as the service answers
    # them by the drain's deadline itself
    Draining(uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False,
                            timeout_graceful_shutdown=int(service.config.drain_timeout
                                                          + LAST_CALLBACKS_S) + 1)).run()
