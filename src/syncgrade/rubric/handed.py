"""The callable the grader hands over, as the learner's code names it, so that a hint says
what to call in the exercise's own words (``compiled_predict`` in exercise-4, what
``make_fn()`` returns in exercise-7) rather than a generic ``fn(*args)``.

The grader call's argument specs say which parameter is the callable (a ``workload``,
``probe`` or ``probe_like`` spec) or a factory of callables (``factory``,
``probe_factory``); the name is the learner's own parameter at that position when their
``def`` has one, else the statement's (the exercise's ``Required`` signature). Pure
functions of a :class:`~syncgrade.rubric.base.Context`; no learner code runs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from syncgrade.rubric.base import Context

CALLABLE_KINDS = {"workload": False, "probe": False, "probe_like": False,
                  "factory": True, "probe_factory": True}
"""Argument spec kinds that hand over a callable, each with whether it is a factory (the
timed callable is what calling it returns)."""
MAX_EXAMPLE = 72
"""A longer rewritten line is not quoted: a hint's code must fit on one line."""


@dataclass(frozen=True)
class Handed:
    """The handed-over parameter ``name``; ``factory``: the callables to time are what
    ``name()`` returns."""

    name: str
    factory: bool

    @property
    def what(self) -> str:
        """How a message names the callable: ```compiled_predict``` or ``what
        `make_fn()` returns``."""
        return f"what `{self.name}()` returns" if self.factory else f"`{self.name}`"


def handed(ctx: Context, call_id: str) -> Handed | None:
    """The callable grader call ``call_id`` hands over; ``None`` when it hands none, or
    several (a hint cannot tell which one the learner meant), or its name is unknown."""
    call = next((c for c in ctx.exercise.calls if c.id == call_id), None)
    if call is None or not call.function:
        return None
    positions = [i for i, spec in enumerate(call.args) if spec.get("kind") in CALLABLE_KINDS]
    if len(positions) != 1:
        return None
    index = positions[0]
    name = _learner_parameter(ctx, call.function, index) or _statement_parameter(
        ctx, call.function, index)
    return Handed(name, CALLABLE_KINDS[call.args[index]["kind"]]) if name else None


def _learner_parameter(ctx: Context, function: str, index: int) -> str:
    """The name of positional parameter ``index`` of the learner's top-level ``def
    function``; ``""`` when the source cannot say."""
    try:
        tree = ast.parse("\n".join(ctx.source_lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            params = [*node.args.posonlyargs, *node.args.args]
            return params[index].arg if index < len(params) else ""
    return ""


def _statement_parameter(ctx: Context, function: str, index: int) -> str:
    """The name of positional parameter ``index`` in the statement's signature."""
    for required in ctx.exercise.required:
        if required.name == function:
            params = [p.split("=")[0].strip() for p in required.params.split(",")]
            if index < len(params) and params[index].isidentifier():
                return params[index]
    return ""


def call_example(line_text: str, callee: str, handed: Handed) -> str:
    """The learner's own call of ``callee`` (another callable than the one handed over) on
    ``line_text``, rewritten to call the handed one, for a hint: ``predict(larger, w)``
    becomes ``compiled_predict(larger, w)``; for a factory, ``fn = make_fn()`` (``callee``
    as the variable when it is a plain name). ``""`` when it cannot be rewritten plainly
    (the callee has no name, is called more than once on the line, or the call is long)."""
    if handed.factory:
        variable = callee if callee.isidentifier() else "fn"
        return f"{variable} = {handed.name}()"
    text = line_text.strip()
    if not callee or len(text) > 2 * MAX_EXAMPLE:
        return ""
    for attempt in (text, text + "\n    pass", text + ")"):  # a header; a call's first line
        try:
            tree = ast.parse(attempt)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        calls = [node for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and ast.unparse(node.func) == callee]
        if len(calls) != 1:
            return ""
        calls[0].func = ast.Name(handed.name, ast.Load())
        example = ast.unparse(calls[0])
        return example if len(example) <= MAX_EXAMPLE else ""
    return ""
