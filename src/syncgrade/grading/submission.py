"""Stage 1: reading the submission (a file or its text) into a :class:`Submission`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from syncgrade.errors import SubmissionError

BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some editors write at the start of a file."""


@dataclass(frozen=True)
class Submission:
    source: str | None
    display_name: str
    problem: str = ""  # why it cannot be graded (binary, not UTF-8, empty)

    @property
    def lines(self) -> tuple[str, ...] | None:
        """The source's lines as graded (decoded by :func:`decode_submission`: a
        byte-order mark dropped), for the checks and for quoting in timelines; ``None``
        when there is no source to grade."""
        return None if self.source is None else tuple(self.source.splitlines())


def read_submission(path: Path | None = None, *, source: str | None = None,
                    display_name: str | None = None) -> Submission:
    """The submission from exactly one of ``path`` (a :class:`~pathlib.Path`, read as
    bytes) or ``source`` (the text itself).

    Raises :class:`SubmissionError` when the path is missing or both or neither are given,
    and ``TypeError`` when ``path`` is a string: a string could be either, and grading a
    mistyped path as Python source would blame the learner for the caller's slip.
    ``display_name`` is the only name learners see (default: the path as given, or
    ``submission.py``); platforms should pass it so their paths never reach a learner.
    """
    if isinstance(path, str):
        raise TypeError("pass the file as a pathlib.Path, or its text as source=...; "
                        "a plain string is ambiguous")
    if (path is None) == (source is None):
        raise SubmissionError("give exactly one of a path or source=")
    if path is not None:
        if not path.is_file():
            raise SubmissionError(f"no such file: {path}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise SubmissionError(f"cannot read {path}: {exc.strerror or exc}") from None
        return decode_submission(data, display_name or str(path))
    assert source is not None
    if not isinstance(source, str):
        raise TypeError(f"source= must be a str, not {type(source).__name__}")
    return decode_submission(source.encode("utf-8", "surrogatepass"),
                             display_name or "submission.py")


def decode_submission(data: bytes, name: str) -> Submission:
    """The submission named ``name`` from its bytes ``data``: their text, UTF-8 with or
    without a byte-order mark (editors on Windows save one; Python itself reads such a
    file, so the grader does too: ``utf-8-sig`` drops a leading mark and is plain UTF-8
    otherwise), or why it cannot be graded."""
    if not data.removeprefix(BOM).strip():
        return Submission(None, name, "The file is empty.")
    if b"\x00" in data:
        return Submission(None, name, "The file is binary, not Python source.")
    try:
        return Submission(data.decode("utf-8-sig"), name)
    except UnicodeDecodeError as exc:
        return Submission(None, name, f"The file is not UTF-8 text (byte {exc.start}).")
