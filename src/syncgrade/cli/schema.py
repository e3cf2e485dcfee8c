"""``grade schema``: print (or write) the JSON Schema of the grade report.

    grade schema                    the schema on stdout, nothing else
    grade schema --write DIR        write DIR/gradereport-<version>.schema.json

Exit code 0; an unwritable DIR is a usage error (exit 2, one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from syncgrade.cli.common import UsageError, parse_anywhere


def cmd_schema(argv: Sequence[str]) -> int:
    from syncgrade.models import SCHEMA_VERSION

    parser = argparse.ArgumentParser(
        prog="grade schema",
        description=f"Print the JSON Schema of the grade report (schema_version "
                    f"{SCHEMA_VERSION}), as `grade EXERCISE --json` and the HTTP service "
                    "produce it.")
    parser.add_argument("--write", type=Path, metavar="DIR",
                        help="write DIR/gradereport-<version>.schema.json instead of printing")
    args = parse_anywhere(parser, argv)
    from syncgrade.schema import schema_text, write_schema

    if args.write is None:
        sys.stdout.write(schema_text())
        return 0
    try:
        target = write_schema(args.write)
    except OSError as exc:
        raise UsageError(f"cannot write to {args.write}: {exc.strerror or exc}") from None
    print(f"wrote {target}")
    return 0
