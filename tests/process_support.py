"""Finding a test's processes through /proc (Linux): what the sandbox and the pool leave."""

from __future__ import annotations

import os
from pathlib import Path


def processes_inside(base: Path) -> list[int]:
    """Pids whose working directory is (or was) inside ``base``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if cwd.startswith(str(base)):
                found.append(int(entry))
    return found
