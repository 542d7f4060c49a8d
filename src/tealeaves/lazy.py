"""Lazy imports of a package's public names (PEP 562), so that ``import tealeaves`` stays light.

A package writes its public names as ordinary imports under ``if TYPE_CHECKING:`` (what type
checkers and editors read) and lists them in ``__all__``; it hands its ``__file__`` to
:func:`attach`, which reads those imports from the source and returns the module's
``__getattr__`` and ``__dir__``: a name's submodule is imported the first time the name is
used. This is the scheme of scientific-python's lazy_loader (SPEC 1) without the dependency.
A package that needs an extra names it (``extra="report"``): its names then refuse in one line
naming ``pip install 'tealeaves[report]'`` when the extra is not installed
(:func:`tealeaves.extras.require`).
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tealeaves.extras import require


def _type_checking_imports(source: str) -> dict[str, tuple[str, str]]:
    """Public name -> (module, attribute) of each import under ``if TYPE_CHECKING:``."""
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module:
                for alias in stmt.names:
                    names[alias.asname or alias.name] = (stmt.module, alias.name)
    return names


def attach(
    package: str, init_file: str, extra: str | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, resolving the names its TYPE_CHECKING block imports.

    With ``extra``, a name is refused (``MissingDependencyError``) before its submodule is
    imported when a module of that extra is missing.

    No public name shares its name with a submodule of its package (``coherence.score`` is
    defined in ``coherence/scoring.py``): the import system binds a submodule on its package
    when it is first imported, so a shared name would flip between the function and the module.
    ``tests/test_import_forms.py`` checks it for every package and every import form.
    """
    table = _type_checking_imports(Path(init_file).read_text(encoding="utf-8"))

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, attribute = table[name]
        if extra is not None:
            require(extra, what=f"{package}.{name}")
        if module_name == package:  # "from tealeaves import likelihood": a subpackage
            value = importlib.import_module(f"{package}.{attribute}")
        else:
            value = getattr(importlib.import_module(module_name), attribute)
        setattr(sys.modules[package], name, value)  # later lookups skip __getattr__
        return value

    def __dir__() -> list[str]:
        return sorted(set(table) | set(sys.modules[package].__dict__))

    return __getattr__, __dir__


MOVED = {
    "tealeaves.analysis.significance": "tealeaves.stats",  # one statistics layer (issue 37)
    "tealeaves.reporting.svg": "tealeaves.svg",  # the figures the notebook display shares with the report
    "tealeaves.evaluate": "tealeaves.evaluation",
    "tealeaves.sweep": "tealeaves.model_selection",
    "tealeaves.report": "tealeaves.reporting",
    "tealeaves.corpus.prepare": "tealeaves.corpus.preparation",
    "tealeaves.models.train": "tealeaves.models.training",
    "tealeaves.coherence.score": "tealeaves.coherence.scoring",
    "tealeaves.coherence.diversity": "tealeaves.coherence.redundancy",
    "tealeaves.likelihood.estimate": "tealeaves.likelihood.estimation",
    "tealeaves.likelihood.exact": "tealeaves.likelihood.enumeration",
    "tealeaves.likelihood.predictive": "tealeaves.likelihood.prediction",
    "tealeaves.analysis.validate": "tealeaves.analysis.validation",
}
"""Modules renamed in 0.2 so that no function shadows its module: old name -> new name."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """The last finder on ``sys.meta_path``: an import of a module :data:`MOVED` away, which no other
    finder found, fails with the module's new name instead of a bare ``No module named``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        for old, new in MOVED.items():
            if fullname == old or fullname.startswith(old + "."):
                function = old.rsplit(".", 1)
                raise ModuleNotFoundError(
                    f"No module named {fullname!r}: since tealeaves 0.2 {function[0]}.{function[1]} is a function "
                    f"and its module is {new!r}; import {new + fullname[len(old) :]!r} instead",
                    name=fullname,
                )
        return None


def install_moved_module_finder() -> None:
    """Put :class:`MovedModuleFinder` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
