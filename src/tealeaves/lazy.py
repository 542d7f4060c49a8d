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
import importlib.machinery
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tealeaves.extras import installed, require


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
    imported when a module of that extra is missing, and so is an import of a submodule
    (``import tealeaves.study.app``) whose own imports need a package that is not installed
    (:class:`ExtraGuard`).

    No public name shares its name with a submodule of its package (``coherence.score`` is
    defined in ``coherence/scoring.py``): the import system binds a submodule on its package
    when it is first imported, so a shared name would flip between the function and the module.
    ``tests/test_import_forms.py`` checks it for every package and every import form.
    """
    table = _type_checking_imports(Path(init_file).read_text(encoding="utf-8"))
    if extra is not None:
        install_extra_guard(package, extra)

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
        """What tab completion offers: the public names, the dunders and the submodules imported so far."""
        namespace = sys.modules[package].__dict__
        shown = {
            name
            for name, value in namespace.items()
            if name.startswith("__") or getattr(value, "__name__", "") == f"{package}.{name}"
        }
        return sorted(set(table) | set(namespace.get("__all__", ())) | shown)

    return __getattr__, __dir__


class ExtraGuard(importlib.abc.MetaPathFinder):
    """The first finder on ``sys.meta_path`` for the submodules of a package that needs an extra.

    Before a submodule is loaded, the third-party packages its top-level imports name are
    looked up (without importing them); one that is missing is refused in one line naming the
    extra's ``pip install`` (:func:`tealeaves.extras.require`), instead of the bare
    ``ModuleNotFoundError`` the submodule's import would raise. Nothing is read while every
    module of the extra is installed.
    """

    def __init__(self, package: str, extra: str) -> None:
        self.package, self.extra = package, extra

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if not fullname.startswith(self.package + ".") or _extra_installed(self.extra):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            return None
        missing = [name for name in _top_level_imports(Path(spec.origin)) if not installed(name)]
        if missing:
            require(self.extra, *missing, what=fullname)
        return None


def _extra_installed(extra: str) -> bool:
    from tealeaves.extras import EXTRAS

    return all(installed(module) for module in EXTRAS[extra][1])


def _top_level_imports(source: Path) -> list[str]:
    """The third-party top-level packages a module imports at its top (not tealeaves, not the standard library)."""
    names = []
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module.split(".")[0])
    return [
        n for n in dict.fromkeys(names) if n not in sys.stdlib_module_names and n not in ("tealeaves", "__future__")
    ]


def install_extra_guard(package: str, extra: str) -> None:
    """Put an :class:`ExtraGuard` for ``package`` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, ExtraGuard) and finder.package == package for finder in sys.meta_path):
        sys.meta_path.insert(0, ExtraGuard(package, extra))


MOVED = {
    "tealeaves.analysis.significance": "tealeaves.stats",  # one statistics layer (issue 37)
    "tealeaves.reporting.svg": "tealeaves.svg",  # the figures the notebook display shares with the report
    "tealeaves.coherence.confirmation": "tealeaves.confirmation",  # shared with models (D-VAE's NPMI): no circle
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
    "tealeaves.study.app": "tealeaves.study.web",
}
"""Modules renamed in 0.2, so that no function shadows its module or, for the study's web app (a
package of routers since), so that each part has a module of its own: old name -> new name."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """The last finder on ``sys.meta_path``: an import of a module :data:`MOVED` away, which no other
    finder found, fails with the module's new name instead of a bare ``No module named``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        for old, new in MOVED.items():
            if fullname == old or fullname.startswith(old + "."):
                raise ModuleNotFoundError(
                    f"No module named {fullname!r}: since tealeaves 0.2 the module {old} is {new!r}; "
                    f"import {new + fullname[len(old) :]!r} instead",
                    name=fullname,
                )
        return None


def install_moved_module_finder() -> None:
    """Put :class:`MovedModuleFinder` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
