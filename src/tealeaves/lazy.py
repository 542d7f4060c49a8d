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
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
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

    A public function may share its name with the submodule defining it (``coherence.score``,
    ``likelihood.estimate``): the import system binds a submodule on its package whenever the
    submodule is first imported, from anywhere, which would replace the function. The package's
    module class is therefore swapped for one that binds the exported function instead.
    """
    table = _type_checking_imports(Path(init_file).read_text(encoding="utf-8"))

    class LazyPackage(ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            source = table.get(name)
            if isinstance(value, ModuleType) and source is not None and source[0] == value.__name__:
                value = getattr(value, source[1])
            super().__setattr__(name, value)

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

    sys.modules[package].__class__ = LazyPackage
    return __getattr__, __dir__
