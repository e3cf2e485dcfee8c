"""Checks for concept answers (exercise-2): module constants compared with an answer key.

``answer_phases`` grades one snippet's entry of a ``dict[str, set[str]]`` constant against
the set of phases the grader measured; ``answer_choice`` grades a constant that must be one
of a few public choices. Both are pure functions of the constant's decoded value.

Messages say *whether* an answer has too much, too little or both, never which phases the
key holds: the key is the exercise. Unknown names are answered with the public vocabulary.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from syncgrade.analysis import PHASES
from syncgrade.models import AnswerPicture, Evidence
from syncgrade.rubric.base import Context, Outcome
from syncgrade.rubric.snippets import parse_snippets, stub_docstring
from syncgrade.values import Opaque

_CONTAINERS = (list, tuple, set, frozenset)


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def _kind(value: Any) -> str:
    """"a list", "an int": the type of a learner value, for messages."""
    name = value.type_name if isinstance(value, Opaque) else type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


class _Invalid(Exception):
    """An answer that cannot be compared with the key; carries the failing outcome."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def _entry(ctx: Context, call: str, constant: str, key: str) -> Any:
    """The learner's ``constant[key]``; raises :class:`_Invalid` when it is not there."""
    table = ctx.value(call)
    if not isinstance(table, dict):
        raise _Invalid(Outcome.fail(
            f"`{constant}` is {_kind(table)}, not a dict from snippet letter to a set of "
            "phases.",
            f'Keep the stub\'s shape: `{constant} = {{"A": {{...}}, "B": {{...}}, ...}}`.',
        ))
    if key not in table:
        raise _missing_key(constant, key, sorted(str(k) for k in table))
    return table[key]


def _missing_key(constant: str, key: str, letters: list[str]) -> _Invalid:
    have = f" (it has {_quoted(letters)})" if letters else " (it is empty)"
    return _Invalid(Outcome.fail(
        f'`{constant}` has no entry for snippet "{key}"{have}.',
        'Use the capital snippet letters "A" to "D" as keys, exactly as in the stub.',
    ))


def _phase_names(answer: Any, snippet: str, vocabulary: Sequence[str]) -> frozenset[str]:
    """The answer as a set of known phase names; raises :class:`_Invalid` otherwise."""
    if isinstance(answer, str):
        raise _Invalid(Outcome.fail(
            f'Your answer for snippet {snippet} is the single string "{answer[:60]}", not a '
            "set of phase names.",
            'Write a set, even for one phase: `{"..."}` (a list or tuple works too).',
        ))
    if not isinstance(answer, _CONTAINERS):
        raise _Invalid(Outcome.fail(
            f"Your answer for snippet {snippet} is {_kind(answer)}, not a set of phase names.",
            'Write a set of phase names, for example `{"...", "..."}`.',
        ))
    not_text = [item for item in answer if not isinstance(item, str)]
    if not_text:
        raise _Invalid(Outcome.fail(
            f"Your answer for snippet {snippet} contains {_kind(not_text[0])}; every item "
            "must be a phase name (a string).",
            f"Use exactly these names: {_quoted(vocabulary)}.",
        ))
    unknown = sorted(set(answer) - set(vocabulary))
    if unknown:
        raise _Invalid(_unknown_names(snippet, unknown, vocabulary))
    return frozenset(answer)


def _unknown_names(snippet: str, unknown: list[str], vocabulary: Sequence[str]) -> Outcome:
    named = _quoted([u[:60] for u in unknown[:8]]) + (
        f" (and {len(unknown) - 8} more)" if len(unknown) > 8 else "")
    plural = "is not a phase name" if len(unknown) == 1 else "are not phase names"
    close = difflib.get_close_matches(unknown[0].strip().lower(), vocabulary, n=1, cutoff=0.5)
    guess = f' (did you mean "{close[0]}"?)' if close else ""
    return Outcome.fail(
        f"In your answer for snippet {snippet}, {named} {plural}{guess}. The phase names "
        f"are: {_quoted(vocabulary)}.",
        "Copy the names exactly from `PHASES` in the stub.",
        Evidence(facts={"unknown": unknown[0][:60]}),
    )


def snippet_picture(ctx: Context, snippet: str, answer: frozenset[str], verdict: str,
                    vocabulary: Sequence[str] = PHASES) -> AnswerPicture | None:
    """The learner's answer drawn against ``snippet``'s own lines, as the exercise's stub
    shows them (its docstring's ``Snippet X`` block, :mod:`syncgrade.rubric.snippets`);
    ``None`` when the exercise has no such stub or the snippet has no start and stop
    lines. Holds nothing of the key: the lines are public, the answer is the learner's."""
    folder = ctx.exercise.folder
    stub = folder / "stub.py" if folder is not None else None
    if stub is None or not stub.is_file():
        return None
    code = parse_snippets(stub_docstring(stub.read_text(encoding="utf-8"))).get(snippet)
    lines = code.rstrip("\n").split("\n") if code else []
    start = next((i for i, ln in enumerate(lines) if re.match(r"\s*start\s*=", ln)), None)
    stop = next((i for i, ln in enumerate(lines) if re.match(r"\s*stop\s*=", ln)), None)
    if start is None or stop is None or stop < start:
        return None
    return AnswerPicture(snippet=snippet, lines=lines, start=start, stop=stop,
                         answer=[p for p in vocabulary if p in answer], verdict=verdict)


def _verdict(ctx: Context, snippet: str, answer: frozenset[str], key: Collection[str],
             hint: str, vocabulary: Sequence[str]) -> Outcome:
    missing = set(key) - answer
    extra = answer - set(key)
    if not missing and not extra:
        message = f"Your answer for snippet {snippet} matches its interval."
        return Outcome.ok(message, Evidence(facts={"snippet": snippet}, answer=snippet_picture(
            ctx, snippet, answer, "", vocabulary)))
    if not answer:
        message = (f"Your answer for snippet {snippet} is empty, but its interval does "
                   "contain work.")
    elif not extra:
        message = f"Snippet {snippet}'s interval contains more than your answer."
    elif not missing:
        message = (f"Your answer for snippet {snippet} includes something its interval does "
                   "not wait for.")
    else:
        message = (f"Your answer for snippet {snippet} is not what its interval contains: it "
                   "lists something the interval does not wait for, and misses something "
                   "it does.")
    return Outcome.fail(message, hint, Evidence(facts={"snippet": snippet}, answer=(
        snippet_picture(ctx, snippet, answer, message, vocabulary))))


def answer_phases(
    ctx: Context, call: str, constant: str, snippet: str, key: Collection[str], hint: str,
    vocabulary: Sequence[str] = PHASES,
) -> Outcome:
    """``constant[snippet]`` (a list, tuple or set of phase names, any order, repeats
    ignored) equals ``key``. ``call`` is the grader call that read ``constant``."""
    try:
        answer = _phase_names(_entry(ctx, call, constant, snippet), snippet, vocabulary)
    except _Invalid as invalid:
        return invalid.outcome
    return _verdict(ctx, snippet, answer, key, hint, vocabulary)


def answer_choice(
    ctx: Context, call: str, constant: str, key: str, choices: Sequence[str],
    choices_name: str, hints: Mapping[str, str],
) -> Outcome:
    """``constant`` is the string ``key``, one of the public ``choices`` (listed under
    ``choices_name`` in the stub). ``hints`` holds one hint per wrong choice."""
    answer = ctx.value(call)
    if not isinstance(answer, str):
        return Outcome.fail(
            f"`{constant}` is {_kind(answer)}, not one of the strings in `{choices_name}`.",
            f"Set `{constant}` to exactly one of: {_quoted(choices)}.",
        )
    if answer not in choices:
        close = difflib.get_close_matches(answer.strip().lower(), choices, n=1, cutoff=0.6)
        guess = f' Did you mean "{close[0]}"?' if close else ""
        return Outcome.fail(
            f'`{constant}` is "{answer[:80]}", which is not one of `{choices_name}`.{guess}',
            f"Copy one of these exactly: {_quoted(choices)}.",
        )
    if answer != key:
        return Outcome.fail(f'"{answer}" is not where a completed-result measurement has to '
                            "synchronize.", hints.get(answer, ""))
    return Outcome.ok(f'"{answer}" is right.')
