"""Where tealeaves.stats and tealeaves.wording sit: below everything that uses them, above nothing heavy.

``tealeaves.stats`` imports NumPy, SciPy and the base modules only (no pandas, no statsmodels, no
wording); ``tealeaves.wording`` imports the standard library and :mod:`tealeaves.display` only;
the evaluation never imports the report or the command line, nor the demo the command line.
Every import is counted, those inside functions too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import tealeaves

SRC = Path(tealeaves.__file__).parent
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
BASE = {"tealeaves.errors", "tealeaves.rng", "tealeaves.results", "tealeaves.deprecation", "tealeaves.lazy"}


def imported(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it (absolute names)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def outside(names: set[str], allowed_roots: set[str], allowed_tealeaves: set[str]) -> set[str]:
    bad = set()
    for name in names:
        root = name.split(".")[0]
        if root == "tealeaves":
            if not any(name == a or name.startswith(a + ".") for a in allowed_tealeaves):
                bad.add(name)
        elif root not in allowed_roots and root not in STDLIB:
            bad.add(name)
    return bad


@pytest.mark.parametrize("path", sorted((SRC / "stats").glob("*.py")), ids=lambda p: p.name)
def test_stats_imports_numpy_scipy_and_base_modules_only(path):
    assert outside(imported(path), {"numpy", "scipy"}, BASE | {"tealeaves.stats"}) == set()


def test_wording_imports_display_only():
    assert outside(imported(SRC / "wording.py"), set(), {"tealeaves.display"}) == set()


def test_the_evaluation_and_the_demo_sit_below_the_report_and_the_command_line():
    for path in sorted((SRC / "evaluation").glob("*.py")):
        names = imported(path)
        assert not {n for n in names if n.startswith(("tealeaves.reporting", "tealeaves.cli"))}, path.name
    assert not {n for n in imported(SRC / "demo.py") if n.startswith("tealeaves.cli")}
    assert not {n for n in imported(SRC / "display.py") if n.startswith("tealeaves.stats")}  # display formats only
