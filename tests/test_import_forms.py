"""Every public module imports by every form, and no public name is shadowed by a module of the same name.

A public module is every ``.py`` file under ``src/tealeaves`` with no path part starting with an
underscore (``__init__`` names its package). Each form runs in a fresh interpreter, importing every
module in turn and then checking every package's public names, so that a module imported late
cannot replace a function its package exports (the shadowing that ``lazy.py`` once papered over).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tealeaves
from tealeaves.lazy import MOVED, _type_checking_imports

SRC = Path(tealeaves.__file__).parent


def public_modules() -> list[str]:
    names = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        elif parts[-1] == "__main__":
            continue
        if any(part.startswith("_") for part in parts):
            continue
        names.append(".".join(parts))
    return names


MODULES = public_modules()
PACKAGES = [name for name in MODULES if (SRC.parent / name.replace(".", "/") / "__init__.py").exists()]

CHECK_NAMES = """
import importlib, sys, types
from pathlib import Path
from tealeaves.lazy import _type_checking_imports
bad = []
for package in PACKAGES:
    module = sys.modules.get(package) or importlib.import_module(package)
    for name, (source, attribute) in _type_checking_imports(Path(module.__file__).read_text()).items():
        value = getattr(module, name)
        if source == package:  # a subpackage named in the TYPE_CHECKING block
            ok = isinstance(value, types.ModuleType) and value.__name__ == f"{package}.{attribute}"
        else:
            ok = value is getattr(importlib.import_module(source), attribute)
        if not ok:
            bad.append(f"{package}.{name} is {value!r}")
"""

FORMS = {
    "import a.b.c as m": "import {name} as m\nassert isinstance(m, types.ModuleType) and m.__name__ == {name!r}, m",
    "from a.b import c": (
        "from {parent} import {leaf} as m\nassert isinstance(m, types.ModuleType) and m.__name__ == {name!r}, m"
    ),
    "import a.b.c": "import {name}\nassert sys.modules[{name!r}] is importlib.import_module({name!r})",
}


def program(form: str, names_first: bool) -> str:
    lines = ["import importlib, json, sys, types", f"PACKAGES = {PACKAGES!r}"]
    if names_first:  # resolve every public name before any module is imported directly
        lines.append(CHECK_NAMES)
    lines.append("failed = []")
    for name in MODULES:
        parent, _, leaf = name.rpartition(".")
        if not parent:
            continue
        body = FORMS[form].format(name=name, parent=parent, leaf=leaf)
        lines.append("try:\n" + "\n".join("    " + line for line in body.splitlines()))
        lines.append(f"except Exception as error:\n    failed.append({name!r} + ': ' + repr(error))")
    lines.append(CHECK_NAMES)
    lines.append("print(json.dumps({'failed': failed, 'shadowed': bad}))")
    return "\n".join(lines)


@pytest.mark.parametrize("names_first", [False, True], ids=["modules first", "names first"])
@pytest.mark.parametrize("form", list(FORMS))
def test_every_public_module_imports_by_every_form(form, names_first):
    done = subprocess.run([sys.executable, "-c", program(form, names_first)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"failed": [], "shadowed": []}


def test_no_public_name_is_also_a_submodule():
    clashes = []
    for package in PACKAGES:
        init = SRC.parent / package.replace(".", "/") / "__init__.py"
        folder = init.parent
        submodules = {p.stem for p in folder.glob("*.py")} | {
            p.name for p in folder.iterdir() if (p / "__init__.py").exists()
        }
        for name, (source, _) in _type_checking_imports(init.read_text(encoding="utf-8")).items():
            if name in submodules and source != package:
                clashes.append(f"{package}.{name}")
    assert clashes == []


def test_no_module_defines_a_public_function_of_its_own_name():
    # coherence/scoring.py defines score, not scoring: a package exporting the function can never
    # collide with the module
    same = []
    for name in MODULES:
        path = SRC.parent / name.replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        leaf = name.rpartition(".")[2]
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == leaf:
                same.append(name)
    assert same == []


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_names_its_new_place(old):
    code = f"import {old}.x" if old.count(".") > 1 else f"from {old} import y"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError") and repr(MOVED[old]) in last


def test_the_type_checking_tables_name_real_sources():
    for package in PACKAGES:
        init = SRC.parent / package.replace(".", "/") / "__init__.py"
        for name, (source, _) in _type_checking_imports(init.read_text(encoding="utf-8")).items():
            target = SRC.parent / source.replace(".", "/")
            assert target.with_suffix(".py").exists() or (target / "__init__.py").exists(), (package, name, source)


def test_dir_offers_the_public_names_and_submodules_not_the_import_machinery():
    """Tab completion on a package lists ``__all__`` and its imported submodules, as lazy_loader's does."""
    code = (
        "import json, tealeaves, tealeaves.coherence.scoring\n"
        "print(json.dumps({'top': dir(tealeaves), 'coherence': dir(tealeaves.coherence), "
        "'all': tealeaves.__all__, 'coherence_all': tealeaves.coherence.__all__}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout)
    for package, names in (("top", shown["all"]), ("coherence", shown["coherence_all"])):
        public = [name for name in shown[package] if not name.startswith("__")]
        assert set(names) - {"__version__"} <= set(public), package
        assert not {"TYPE_CHECKING", "attach", "install_moved_module_finder", "annotations"} & set(public), package
    assert "coherence" in shown["top"] and "scoring" in shown["coherence"]  # submodules imported so far
    assert "__version__" in shown["top"]
