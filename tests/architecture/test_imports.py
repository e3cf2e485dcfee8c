"""Imports as docs/architecture.md and docs/authoring.md state them: no module imports one
that imports it back (no cycle anywhere, imports inside functions included); the sandbox
imports only limits.py and protocol.py of syncgrade, the child only protocol.py; a
course's declarations (the built-in course's, docs/authoring.md's examples, the `grade
new` scaffold) import nothing of syncgrade but the authoring façade `syncgrade.rubric`;
and errors.py's list of the exception classes defined elsewhere is complete."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import grimp

import syncgrade
import syncgrade.rubric as facade
from syncgrade.authoring import scaffold
from syncgrade.courses import builtin_course

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(syncgrade.__file__).resolve().parent
GRAPH = grimp.build_graph("syncgrade", exclude_type_checking_imports=True)


def import_cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(GRAPH.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(GRAPH.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(
                        GRAPH.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in GRAPH.find_modules_directly_imported_by(node):
                    found.append(sorted(component))
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert "syncgrade.rubric.base" in GRAPH.modules  # the graph is the package's
    assert import_cycles() == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c"):
        graph.add_module(name)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.b")
    global GRAPH
    saved, GRAPH = GRAPH, graph
    try:
        assert import_cycles() == [["a.b", "a.c"]]
    finally:
        GRAPH = saved


def _syncgrade_imports_of(package: str) -> set[str]:
    found = set()
    for module in GRAPH.find_children(package) | {package}:
        for imported in GRAPH.find_modules_directly_imported_by(module):
            if not imported.startswith(package) and imported.startswith("syncgrade"):
                found.add(imported)
    return found


def test_the_sandbox_and_the_child_import_what_architecture_md_says() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "it imports only `limits.py`,\n  `protocol.py`" in text and "`timing.py`" in text
    assert _syncgrade_imports_of("syncgrade.sandbox") == {"syncgrade.limits",
                                                          "syncgrade.protocol",
                                                          "syncgrade.timing"}
    assert _syncgrade_imports_of("syncgrade.child") == {"syncgrade.protocol"}


# --------------------------------------------------------------------------- the façade


def private_imports(source: str) -> list[str]:
    """Every import of syncgrade in ``source`` other than public names of the façade."""
    public = set(facade.__all__)
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names
                      if a.name.split(".")[0] == "syncgrade" and a.name != "syncgrade.rubric"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("syncgrade"):
            if node.module != "syncgrade.rubric":
                found.append(node.module or "")
            else:
                found += [f"syncgrade.rubric.{a.name}" for a in node.names
                          if a.name not in public]
    return found


def declarations() -> dict[str, str]:
    """Every declaration a course author copies: the built-in course's, the python blocks
    of docs/authoring.md that declare something, and the `grade new` scaffold's."""
    found = {f"course {files.id}": files.declaration.read_text(encoding="utf-8")
             for files in builtin_course().files.values()}
    doc = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    for n, block in enumerate(re.findall(r"```python\n(.*?)```", doc, re.S)):
        if "import" in block and re.search(r"\b(Exercise|CheckSpec|Samples)\(", block):
            found[f"docs/authoring.md block {n}"] = block
    found["grade new scaffold"] = scaffold.scaffold_files("exercise-1", "T")["exercise.py"]
    return found


def test_declarations_import_only_the_authoring_facade() -> None:
    found = declarations()
    assert len([k for k in found if k.startswith("course")]) >= 9
    assert any(k.startswith("docs/") for k in found)
    assert {name: private_imports(text) for name, text in found.items()
            if private_imports(text)} == {}


def test_the_scan_catches_a_private_import() -> None:
    assert private_imports("from syncgrade.rubric.base import CheckSpec\n"
                           "from syncgrade.rubric import Check, snippets\n"
                           "import syncgrade.analysis\n") == [
        "syncgrade.rubric.base", "syncgrade.rubric.snippets", "syncgrade.analysis"]


def test_every_facade_name_exists() -> None:
    assert all(hasattr(facade, name) for name in facade.__all__)


def test_the_check_namespaces_are_one_facade_that_defines_no_check() -> None:
    """`checks` re-exports the check modules; `report_checks`, `workload_checks` and
    `concept` (the namespaces before the checks were regrouped, issue 28) are the same
    module, so a course's `rc.report_schema` keeps working."""
    checks = facade.checks
    assert facade.report_checks is checks and facade.workload_checks is checks
    assert facade.concept is checks
    defined_in = {getattr(checks, name).__module__ for name in checks.__all__
                  if callable(getattr(checks, name)) and name != "Loc"}
    assert defined_in == {f"syncgrade.rubric.checks_{concern}" for concern in (
        "process", "values", "intervals", "phases", "report", "answers")}


# --------------------------------------------------------------------------- errors.py


def test_errors_py_lists_every_exception_class_defined_elsewhere() -> None:
    defined = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name == "errors.py" or "course" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_") and any(
                    re.search(r"(Error|Exception|Skip|Verdict|Problem|Full|Drained|Killed|"
                              r"Overrun|OutOfTime|Unavailable)$", ast.unparse(base))
                    for base in node.bases):
                defined.add(node.name)
    listed = set(re.findall(r"``(\w+)``", syncgrade.errors.__doc__ or ""))
    assert "UsageError" in defined and "Skip" in defined  # the scan sees them
    assert defined - listed == set()


def test_private_jax_is_imported_in_one_module() -> None:
    """``jax._src`` (no stable API) is imported only by ``child/jax_private.py``
    (docs/accelerators.md, "The JAX the project declares"): a JAX that moved a name fails
    there, and supporting another JAX is a change to that one file. Imports inside
    functions count; the zygote's ``sys.modules.get`` of a name imports nothing."""
    allowed = PACKAGE / "child" / "jax_private.py"
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            private = [n for n in names if n == "jax._src" or n.startswith("jax._src.")]
            if private and path != allowed:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {private[0]}")
    assert found == []
