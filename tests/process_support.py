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


def descendants(pid: int | None = None) -> list[int]:
    """Every live descendant of ``pid`` (default: this process), from /proc's ppids."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    found, todo = [], [os.getpid() if pid is None else pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def descendant_with_file(name: str) -> int | None:
    """A descendant of this process whose working directory holds ``name`` (a grading
    child whose learner code made it there), or None. Only this test's own processes:
    other test runs on the machine have children of their own."""
    for pid in descendants():
        try:
            if os.path.exists(f"/proc/{pid}/cwd/{name}"):
                return pid
        except OSError:
            continue
    return None
