"""``grade serve``: run the HTTP service (see :mod:`syncgrade.service`, docs/platforms.md).

    grade serve [--host 127.0.0.1] [--port 8000] [--workers N] [--queue N]
                [--max-body BYTES] [--timeout S] [--memory GIB] [--course DIR]

A service serves one course: ``--course`` (a folder or an installed course's name), else
``$SYNCGRADE_COURSE``, else the built-in course.

Needs the ``serve`` extra (FastAPI and uvicorn); without it, says how to install it and
exits 2. Runs until interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from syncgrade.cli.common import UsageError, add_course, add_memory, add_timeout, open_course
from syncgrade.limits import GIB


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


def serve_parser() -> argparse.ArgumentParser:
    from syncgrade.service import DEFAULT_MAX_BODY, ServiceConfig

    defaults = ServiceConfig()
    parser = argparse.ArgumentParser(
        prog="grade serve",
        description="Serve syncgrade over HTTP: POST /v1/grade, GET /v1/exercises, "
                    "GET /v1/schema, GET /healthz; OpenAPI docs at /docs. Each grade runs "
                    "in its own sandboxed child, as on the command line.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    parser.add_argument("--workers", type=_int_at_least(1), default=defaults.workers,
                        metavar="N",
                        help=f"grades run at once (default: {defaults.workers}); size it by "
                             "memory, see docs/platforms.md")
    parser.add_argument("--queue", type=_int_at_least(0), default=defaults.queue, metavar="N",
                        help=f"grade requests waiting for a worker before new ones get 429 "
                             f"(default: {defaults.queue})")
    parser.add_argument("--max-body", type=_int_at_least(1), default=DEFAULT_MAX_BODY,
                        metavar="BYTES",
                        help=f"largest request body; bigger ones get 413 (default: "
                             f"{DEFAULT_MAX_BODY})")
    add_timeout(parser, defaults.timeout, what="wall-clock limit for each submission's code")
    parser.add_argument("--warm-pool", type=_int_at_least(0), default=None, metavar="N",
                        help="children kept pre-started, jax imported, each used for one "
                             "submission (default: --workers; 0: start each child cold)")
    add_memory(parser)
    add_course(parser)
    return parser


def cmd_serve(argv: Sequence[str]) -> int:
    args = serve_parser().parse_args(argv)
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError:
        raise UsageError("`grade serve` needs the serve extra: pip install "
                         "'syncgrade[serve]' (FastAPI and uvicorn)") from None
    from syncgrade.service import ServiceConfig, create_app

    course = open_course(args.course)  # a usage error before the server starts
    config = ServiceConfig(workers=args.workers, queue=args.queue, max_body=args.max_body,
                           timeout=args.timeout, memory_bytes=int(args.memory * GIB),
                           warm_pool=args.workers if args.warm_pool is None
                           else args.warm_pool, course=str(course.root))
    app = create_app(config)
    print(f"grade serve: {course.title} ({len(course.exercises)} exercises, "
          f"{course.root})", file=sys.stderr)
    print(f"grade serve: http://{args.host}:{args.port}  workers {config.workers}, queue "
          f"{config.queue}, warm pool {config.warm_pool}, max body {config.max_body} bytes; "
          "POST /v1/grade, docs at /docs",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return 0
