"""How wide a text is drawn, without font metrics at hand: a model of a wide sans-serif.

An SVG writer cannot measure text, so the pictures lay out their labels with this model:
the advance widths of DejaVu Sans (the widest of the sans-serif faces a browser picks for
``system-ui`` on Linux, Windows and macOS), in ems, per character class. Every other
common face (Liberation Sans, Arial, Segoe UI, Roboto, San Francisco) is narrower, so a
label laid out in a box by this model fits that box in any of them.

:func:`text_width` is also what tests/picture uses to check that no label overflows its
box (see :func:`wrap`, which splits a label into rows that each fit a width).
"""

from __future__ import annotations

BOLD = 1.15
"""How much wider a bold run is than the regular one (DejaVu Sans Bold: 1.08 to 1.12 for
most letters)."""

_NARROW = frozenset("ijlI.,:;'|")
_SLIM = frozenset("frt()[] -/\\\"!")
_WIDE = frozenset("mwMW@%")
_UPPER = 0.74
_WIDE_EM = 0.98
_NARROW_EM = 0.34
_SLIM_EM = 0.42
_OTHER_EM = 0.64  # lower-case letters, digits, most punctuation (DejaVu: 0.52 to 0.64)
_NON_ASCII_EM = 1.0  # an arrow, a warning sign: as wide as an em at most


def char_em(char: str) -> float:
    """The advance width of ``char`` in ems (generous: never narrower than DejaVu Sans)."""
    if char in _NARROW:
        return _NARROW_EM
    if char in _SLIM:
        return _SLIM_EM
    if char in _WIDE:
        return _WIDE_EM
    if not char.isascii():
        return _NON_ASCII_EM
    if char.isupper():
        return _UPPER
    return _OTHER_EM


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width in pixels of ``text`` set at ``size`` pixels (an upper estimate)."""
    return sum(char_em(c) for c in text) * size * (BOLD if bold else 1.0)


def wrap(text: str, width: float, size: float, *, bold: bool = False) -> list[str]:
    """``text`` in rows that each fit ``width`` pixels, split at spaces only; a single word
    wider than ``width`` is a row of its own (whoever lays the rows out makes room for the
    widest row: nothing is ever cut)."""
    rows: list[str] = []
    for word in text.split(" "):
        if rows and text_width(f"{rows[-1]} {word}", size, bold=bold) <= width:
            rows[-1] = f"{rows[-1]} {word}"
        else:
            rows.append(word)
    return rows or [""]
