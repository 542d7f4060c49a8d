"""Every object in the API reference has a numpydoc docstring whose Examples run.

The objects are read from the autosummary lists of ``docs/api/*.rst`` (what the reference
shows), so a new entry there is checked without touching this file. Each docstring must parse
as numpydoc, describe what it takes (Parameters, or Attributes for a result type) and what it
gives (Returns or Yields, unless it returns nothing), and have an Examples section whose
``>>>`` lines pass as doctests.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc
from sphinx.pycode import ModuleAnalyzer

API = Path(__file__).resolve().parents[1] / "docs" / "api"
PAGES = sorted(page.stem for page in API.glob("*.rst") if page.stem != "index")


def reference_entries(page: str) -> list[tuple[str, str]]:
    """The ``(module, name)`` pairs that the autosummary lists of one API page show."""
    entries, module, listing = [], None, False
    for line in (API / f"{page}.rst").read_text().splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif line.startswith(".. autosummary::"):
            listing = True
        elif listing and (match := re.match(r"   ([A-Za-z_][\w.]*)\s*$", line)):
            entries.append((module, match.group(1)))
        elif line and not line.startswith(" "):
            listing = False
    return entries


def returns_nothing(obj) -> bool:
    try:
        annotation = inspect.signature(obj).return_annotation
    except (TypeError, ValueError):
        return False
    return annotation in (None, "None")


def resolve(module: str, name: str):
    """The object ``module.name`` names: an attribute, or a submodule not imported yet."""
    obj = importlib.import_module(module)
    for part in name.split("."):
        if not hasattr(obj, part):
            importlib.import_module(f"{obj.__name__}.{part}")
        obj = getattr(obj, part)
    return obj


def constant_doc(module: str, name: str, obj) -> str:
    """The docstring after the assignment of the constant ``module.name`` (or its ``#:`` comment), read
    as autodoc reads it, in ``module`` or the submodule that defines it (a constant has no ``__doc__``)."""
    path, _, attr = name.rpartition(".")
    listed = f"{module}.{path}" if path else module
    owners = [m for m in sorted(sys.modules) if m == listed or m.startswith(f"{listed}.")]
    for owner in owners:
        if getattr(sys.modules[owner], attr, None) is obj:
            lines = ModuleAnalyzer.for_module(owner).find_attr_docs().get(("", attr))
            if lines:
                return "\n".join(lines)
    return ""


def problems_of(module: str, name: str) -> list[str]:
    obj = resolve(module, name)
    label = f"{module}.{name}"
    if not (inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj)):  # a constant: its value shows it
        return [] if constant_doc(module, name, obj).strip() else [f"{label}: no docstring after its assignment"]
    if not (obj.__doc__ or "").strip():
        return [f"{label}: no docstring"]
    if inspect.ismodule(obj):  # a module's page lists its functions, which carry the examples
        return examples_fail(obj, label, [])
    problems = []
    is_class = inspect.isclass(obj)
    parsed = ClassDoc(obj, config={"show_class_members": False}) if is_class else FunctionDoc(obj)
    if is_class:
        if not (parsed["Parameters"] or parsed["Attributes"]) and not issubclass(obj, BaseException):
            problems.append(f"{label}: no Parameters or Attributes section")
    elif callable(obj):
        takes = [p for p in inspect.signature(obj).parameters.values() if p.name not in ("self", "cls")]
        if takes and not parsed["Parameters"]:
            problems.append(f"{label}: no Parameters section")
        if not returns_nothing(obj) and not (parsed["Returns"] or parsed["Yields"]):
            problems.append(f"{label}: no Returns section")
    if ">>>" not in "\n".join(parsed["Examples"]):
        problems.append(f"{label}: no Examples section with >>> lines")
        return problems
    return examples_fail(obj, label, problems)


def examples_fail(obj, label: str, problems: list[str]) -> list[str]:
    """``problems`` and the failures of the ``>>>`` examples of ``obj``'s own docstring (none: none)."""
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(obj, label, globs={}):
        result = runner.run(test, out=lambda text: problems.append(f"{label}: {text}"))
        if result.failed and not any(p.startswith(f"{label}: ") for p in problems):
            problems.append(f"{label}: {result.failed} example(s) failed")
    return problems


def page_modules(page: str) -> list[str]:
    """The modules one API page documents (its ``currentmodule`` and ``automodule`` lines)."""
    text = (API / f"{page}.rst").read_text()
    return sorted(set(re.findall(r"^\.\. (?:currentmodule|automodule):: (\S+)", text, flags=re.MULTILINE)))


@pytest.mark.parametrize("page", PAGES)
def test_every_reference_entry_has_a_numpydoc_docstring_with_examples_that_run(page):
    entries = reference_entries(page)
    assert entries, f"docs/api/{page}.rst lists no objects"
    problems = [problem for module, name in entries for problem in problems_of(module, name)]
    for module in page_modules(page):  # a module docstring's own examples, where it has some
        problems += examples_fail(importlib.import_module(module), module, [])
    assert not problems, "\n".join(problems)
