"""One source for the stub and the solution: solution markers (as nbgrader's and Otter's
``assign`` have), turned into ``stub.py`` by ``grade stub EXERCISE``.

In ``solution.py``, each block of the answer is marked, and the stub's text for it follows
as comments::

    def synchronized_samples(fn, args, repeats):
        # BEGIN SOLUTION
        samples = []
        ...
        return samples
        # END SOLUTION
        # BEGIN STUB
        # # TODO: time each call, waiting for its result before you stop the timer
        # raise NotImplementedError
        # END STUB

The stub is the solution with every ``BEGIN SOLUTION``..``END SOLUTION`` block left out
(the marker lines too) and every ``BEGIN STUB``..``END STUB`` block uncommented: each line
loses the first ``#`` after its indentation and one space after it, and the marker lines
go. The solution runs as it is (the stub's text is comments). Markers are whole lines
(any indentation); ``###`` is accepted for ``#`` (nbgrader's spelling). A marker out of
order, an unclosed block, or a line in a stub block that is not a comment is a
:class:`MarkerError` naming the file and line. A solution without markers has no
generated stub (:func:`stub_from_solution` returns ``None``): its ``stub.py`` is written
by hand, as before.
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"#{1,3}\s*(BEGIN|END)\s+(SOLUTION|STUB)\s*$")


class MarkerError(Exception):
    """Markers that do not pair up, with ``file:line``; one line."""


def _marker(line: str) -> tuple[str, str] | None:
    found = _MARKER.fullmatch(line.strip())
    return (found[1], found[2]) if found else None


def _uncomment(line: str) -> str | None:
    """A stub block's line without its comment mark; ``None`` when it is not a comment."""
    body = line.lstrip()
    if not body:
        return ""
    if not body.startswith("#"):
        return None
    text = body[1:]
    if not text.strip():
        return ""  # a bare '#': an empty line of the stub, with no trailing blanks
    return line[: len(line) - len(body)] + (text[1:] if text.startswith(" ") else text)


def stub_from_solution(source: str, origin: str = "solution.py") -> str | None:
    """The stub ``source`` (a solution's text) generates, or ``None`` when it has no
    markers. Raises :class:`MarkerError` (``origin:line: ...``) for markers that do not
    pair up or a stub block line that is not a comment."""
    out: list[str] = []
    block: str | None = None  # None, "SOLUTION" or "STUB": the block we are in
    opened = 0
    seen = False
    for number, line in enumerate(source.splitlines(keepends=True), 1):
        marker = _marker(line)
        if marker is not None:
            seen = True
            edge, kind = marker
            if edge == "BEGIN" and block is None:
                block, opened = kind, number
            elif edge == "END" and block == kind:
                block = None
            else:
                where = f"inside the {block} block opened on line {opened}" if block \
                    else "outside any block"
                raise MarkerError(f"{origin}:{number}: '{line.strip()}' {where}")
            continue
        if block == "SOLUTION":
            continue
        if block == "STUB":
            text = _uncomment(line.rstrip("\r\n"))
            if text is None:
                raise MarkerError(f"{origin}:{number}: a line in a STUB block must be a "
                                  "comment (the stub's text, commented out)")
            out.append(text + line[len(line.rstrip("\r\n")):])
            continue
        out.append(line)
    if block is not None:
        raise MarkerError(f"{origin}:{opened}: BEGIN {block} is never closed (END {block})")
    return "".join(out) if seen else None
