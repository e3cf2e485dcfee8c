"""A real kernel: a notebook executed headless (nbclient + ipykernel) loads the extension,
grades a correct and a flawed cell with ``%%grade``, and a defined function with
``syncgrade.notebook.grade``; each gets the right verdict and an HTML report."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from syncgrade.courses import open_course

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def _function_only(source: str, name: str) -> str:
    """The source of the one function ``name`` (a cell a learner would write)."""
    tree = ast.parse(source)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(source, node) or ""


def _result(cell: Any) -> dict[str, str]:
    """The data of a cell's displayed result (``execute_result``)."""
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert not errors, "\n".join(errors[0].traceback)
    (shown,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    return dict(shown.data)


def test_a_notebook_grades_its_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYNCGRADE_WARM_POOL", "0")  # the kernel grades cold: no pool left
    files = open_course().folder("exercise-1")
    solution = files.solution.read_text(encoding="utf-8")
    stub = files.stub.read_text(encoding="utf-8")
    cell = nbformat.v4.new_code_cell
    notebook = nbformat.v4.new_notebook(cells=[
        cell("%load_ext syncgrade.notebook"),
        cell("%%grade exercise-1\n" + solution),
        cell("%%grade exercise-1\n" + stub),
        cell("import time\nimport jax"),
        cell(_function_only(solution, "synchronized_samples")),
        cell("import syncgrade.notebook\nsyncgrade.notebook.grade('exercise-1')"),
    ])
    client = nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    correct, flawed = _result(notebook.cells[1]), _result(notebook.cells[2])
    assert 'data-status="passed"' in correct["text/html"]
    assert "PASSED" in correct["text/plain"]
    assert 'data-status="failed"' in flawed["text/html"]
    assert "NOT YET" in flawed["text/plain"]
    html = flawed["text/html"]
    assert 'data-check="sync-before-stop"' in html and 'class="sg-pic sg-interval"' in html
    assert "still running at the stop" in html and 'role="img"' in html
    assert "out = fn(*args)" in html  # the cell's own code, quoted in the text timeline
    found = _result(notebook.cells[5])
    assert 'data-status="passed"' in found["text/html"]
    assert "notebook-cell.py" in found["text/html"]
