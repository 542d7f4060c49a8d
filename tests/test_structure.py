"""The structure of src/tealeaves: the import contract of docs/architecture.md holds, and no function is long.

The contract (``[tool.importlinter]`` in pyproject.toml) is what ``make lint`` checks with
``lint-imports``; it runs here too, so that a test run cannot pass with the layering broken (and
import-linter, a test dependency, missing fails rather than skips). Imports inside functions count;
those under ``if TYPE_CHECKING:`` do not.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import importlinter  # noqa: F401  - a test dependency: missing, this module fails instead of skipping

import tealeaves

ROOT = Path(__file__).resolve().parents[1]
SRC = Path(tealeaves.__file__).parent
MAX_LINES = 150
KERNELS = {"_kernels.py", "_gibbs.py"}  # numba kernels: one loop nest each, kept whole for the compiler


def test_the_import_contract_holds():
    """The packages' layering, no circles between packages or modules, tealeaves.stats on NumPy and SciPy."""
    program = (
        "import sys\n"
        "from importlinter.cli import lint_imports\n"
        f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}, no_cache=True, no_logo=True))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def long_functions(root: Path, limit: int = MAX_LINES) -> list[str]:
    """Every function or method of ``root``'s modules (kernel modules aside) over ``limit`` lines,
    counted from its first decorator to its last line, its docstring included."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name in KERNELS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                lines = (node.end_lineno or node.lineno) - first + 1
                if lines > limit:
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_longer_than_150_lines():
    assert long_functions(SRC) == []


def test_the_length_check_finds_a_long_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    (tmp_path / "long.py").write_text(f"@staticmethod\ndef long():\n{body}\n")
    (tmp_path / "_kernels.py").write_text(f"def kernel():\n{body}\n")
    assert long_functions(tmp_path) == [f"{tmp_path.name}/long.py:2 long ({MAX_LINES + 2} lines)"]


def control_characters(root: Path) -> list[str]:
    """Docstrings holding a control character other than newline and tab: ``\\bar`` or ``\\frac``
    written with one backslash is a backspace or a form feed that the rendered formula silently loses."""
    found = []
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = ast.get_docstring(node, clean=False) if isinstance(node, kinds) else None
            if text and any(ord(c) < 32 and c not in "\n\t" for c in text):
                found.append(f"{path.relative_to(root.parent).as_posix()}:{getattr(node, 'lineno', 1)}")
    return found


def test_no_docstring_holds_a_control_character():
    assert control_characters(SRC) == []


def test_the_control_character_check_finds_a_single_backslash(tmp_path):
    source = 'def mean():\n    """The mean :math:`\\bar x`."""\n\n\ndef escaped():\n    """:math:`\\\\bar x`."""\n'
    (tmp_path / "formula.py").write_text(source)
    assert control_characters(tmp_path) == [f"{tmp_path.name}/formula.py:1"]
