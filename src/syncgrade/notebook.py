"""Grade code written in a notebook (Jupyter, Colab), with the same sandbox and report.

In a notebook::

    %load_ext syncgrade.notebook

    %%grade exercise-3
    import time
    import jax
    def timed_samples(fn, args, repeats):
        ...

The cell is not run in the notebook: it is graded, exactly as ``grade exercise-3`` grades
a file, in the grader's sandbox, and the report is shown with a picture of each interval
that failed a check (``GradeReport._repr_html_``). Options after the exercise id:
``--passing`` draws the passing checks' pictures too, ``--reveal`` shows hidden checks'
details (instructors), ``--text`` shows the terminal view instead.

Without the magic, :func:`grade` does the same from Python::

    import syncgrade.notebook
    syncgrade.notebook.grade("exercise-3")              # the cell that defines what it asks for
    syncgrade.notebook.grade("exercise-3", source=code)  # or any code, as text

IPython is imported lazily: this module imports without it (``pip install
'syncgrade[notebook]'`` brings it, with what a headless run of a notebook needs).
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Iterable
from typing import Any

from syncgrade.models import GradeReport

CELL_NAME = "notebook-cell.py"
"""The name a graded cell has in its report (and in every timeline's line numbers)."""


class NotebookError(Exception):
    """No code to grade: no source given, and no notebook cell defines what is asked."""


def grade(exercise_id: str, source: str | None = None, *, reveal: bool = False,
          display_name: str = CELL_NAME, **options: Any) -> GradeReport:
    """Grade ``source`` (default: the notebook's latest cell that defines every name the
    exercise asks for) as exercise ``exercise_id``; return the report, which a notebook
    shows as HTML with its pictures.

    Same sandbox and report as ``syncgrade.grade(exercise_id, source=...)`` (``options``
    go to it: ``timeout``, ``course``, ...). Hidden checks are redacted, as for any
    learner, unless ``reveal``. A cell found in the notebook is graded as it is, less the
    lines that call this function; the ``import`` lines of earlier cells are appended
    after it (a cell often relies on imports made above it), so its line numbers stay
    those of the cell."""
    import syncgrade

    if source is None:
        source = notebook_source(exercise_id, options.get("course"))
    report = syncgrade.grade(exercise_id, source=source, display_name=display_name,
                             **options)
    if reveal:
        return report
    from syncgrade.platforms.visibility import redact

    return redact(report)


def required_names(exercise_id: str, course: Any = None) -> list[str]:
    """The names the exercise asks a submission to define."""
    from syncgrade.courses import open_course

    return [required.name for required in open_course(course).get(exercise_id).required]


def notebook_source(exercise_id: str, course: Any = None) -> str:
    """The code to grade, from the running notebook's cells (see :func:`grade`)."""
    cells = _cells()
    return source_from_cells(cells, required_names(exercise_id, course))


def _cells() -> list[str]:
    try:
        from IPython import get_ipython
    except ImportError:
        raise NotebookError("IPython is not installed: pass the code to grade as "
                            "`source=`, or install syncgrade[notebook]") from None
    shell = get_ipython()
    if shell is None:
        raise NotebookError("not running in a notebook: pass the code to grade as "
                            "`source=`") from None
    return [str(cell) for cell in shell.user_ns.get("In", [])]


def source_from_cells(cells: Iterable[str], names: Iterable[str]) -> str:
    """The latest of ``cells`` that defines every one of ``names`` at its top level, less
    its top-level calls of ``grade``, followed by the imports of the cells before it."""
    cells = [cell for cell in cells if cell.strip()]
    wanted = set(names)
    for index in range(len(cells) - 1, -1, -1):
        tree = _parse(cells[index])
        if tree is None or not wanted <= _defined(tree):
            continue
        imports = [line for cell in cells[:index] for line in _imports(cell)]
        code = _without_grade_calls(cells[index], tree)
        if imports:
            code = (code.rstrip("\n") + "\n\n# Imports from earlier cells of the notebook.\n"
                    + "\n".join(dict.fromkeys(imports)) + "\n")
        return code
    listed = ", ".join(f"`{name}`" for name in sorted(wanted))
    raise NotebookError(f"no cell of this notebook defines {listed}: run the cell that "
                        "does, or use `%%grade` on it, or pass `source=`")


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _imports(code: str) -> list[str]:
    tree = _parse(code)
    if tree is None:
        return []
    lines = code.splitlines()
    return ["\n".join(lines[node.lineno - 1:node.end_lineno]) for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node.col_offset == 0
            and node.end_lineno is not None]


def _is_grade_call(node: ast.stmt) -> bool:
    value = getattr(node, "value", None)
    if not isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)) or not isinstance(
            value, ast.Call):
        return False
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name == "grade"


def _without_grade_calls(code: str, tree: ast.Module) -> str:
    """``code`` with each top-level ``grade(...)`` statement blanked (``pass``), so the
    sandbox does not grade again and the other lines keep their numbers."""
    lines = code.splitlines()
    for node in tree.body:
        if _is_grade_call(node) and node.end_lineno is not None:
            first, last = node.lineno - 1, node.end_lineno
            lines[first:last] = ["pass  # (the grade call)"] + [""] * (last - first - 1)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the magic


class Shown:
    """What ``%%grade`` returns: the report, shown as HTML (or as the terminal's text)."""

    def __init__(self, report: GradeReport, source: str, *, passing: bool = False,
                 text: bool = False) -> None:
        self.report, self.source, self.passing, self.text = report, source, passing, text

    def _repr_html_(self) -> str | None:
        if self.text:
            return None
        from syncgrade.picture.html import render_fragment

        return render_fragment(self.report, passing=self.passing,
                               source_lines=self.source.splitlines())

    def __repr__(self) -> str:
        from syncgrade.render import render

        return render(self.report, self.source.splitlines())


def grade_magic(line: str, cell: str) -> Shown:
    """``%%grade EXERCISE [--passing] [--reveal] [--text]``: grade the cell's code."""
    words = shlex.split(line)
    flags = {word for word in words if word.startswith("--")}
    unknown = flags - {"--passing", "--reveal", "--text"}
    ids = [word for word in words if not word.startswith("--")]
    if unknown or len(ids) != 1:
        raise NotebookError("usage: %%grade EXERCISE [--passing] [--reveal] [--text], "
                            "e.g. %%grade exercise-3")
    passing = "--passing" in flags  # passing checks are drawn too: graded to carry them
    # Jupyter numbers the cell from its `%%grade` line; IPython hands over the body only.
    # The magic's line goes back on top (as a comment), so every line number a report
    # names is the one the notebook shows.
    source = magic_source(line, cell)
    report = grade(ids[0], source=source, reveal="--reveal" in flags, draw_passing=passing)
    return Shown(report, source, passing=passing, text="--text" in flags)


def magic_source(line: str, cell: str) -> str:
    """The code ``%%grade`` grades: the cell's body under its magic line as a comment, so
    line ``n`` is line ``n`` of the cell as the notebook numbers it."""
    return f"# %%grade {' '.join(line.split())}\n{cell}"


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext syncgrade.notebook``: register the ``%%grade`` cell magic."""
    ipython.register_magic_function(grade_magic, magic_kind="cell", magic_name="grade")
