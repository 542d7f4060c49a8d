"""Start-up: ``import tealeaves`` and ``tealeaves --help`` stay light (no numpy), ``tealeaves index`` and
``coherence`` on a small corpus load no numba; lazy names resolve to what they name."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tealeaves
from tealeaves.lazy import _type_checking_imports

PACKAGES = ["tealeaves"] + [
    f"tealeaves.{name}"
    for name in (
        "analysis",
        "coherence",
        "corpus",
        "evaluation",
        "intrusion",
        "likelihood",
        "model_selection",
        "models",
        "reporting",
        "study",
    )
]
HEAVY = ["numpy", "pandas", "fastapi", "spacy", "matplotlib", "scipy.stats", "sqlalchemy", "numba", "tomotopy"]


def modules_after(code: str) -> list[str]:
    """The heavy libraries imported by running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_tealeaves_loads_no_heavy_library():
    assert modules_after("import tealeaves") == []


def test_help_loads_no_heavy_library_and_lists_every_command():
    code = "import sys\nfrom tealeaves.cli import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    assert modules_after(code) == []
    shown = subprocess.run([sys.executable, "-m", "tealeaves.cli", "--help"], capture_output=True, text=True)
    for command in ("prepare", "train", "import", "likelihood", "coherence", "intrusion", "study", "analyze"):
        assert command in shown.stdout


def test_index_and_coherence_commands_load_no_numba(tmp_path):
    index, topics = tmp_path / "index", tmp_path / "topics.txt"
    topics.write_text("apple pear plum\n")
    code = (
        "from tealeaves.cli import app\nfrom tealeaves.corpus import Corpus, Vocabulary\n"
        "Corpus.from_documents([[0, 1, 2, 0], [1, 2]], Vocabulary(['apple', 'pear', 'plum']))"
        f".save({str(tmp_path / 'corpus')!r})\n"
        f"for argv in (['index', {str(tmp_path / 'corpus')!r}, '--out', {str(index)!r}],"
        f" ['coherence', {str(topics)!r}, '--index', {str(index)!r}, '--measure', 'cv']):\n"
        "    try:\n        app(argv)\n    except SystemExit as exc:\n        assert exc.code in (0, None)"
    )
    assert "numba" not in modules_after(code)
    assert (index / "manifest.json").exists()


def test_scoring_coherence_does_not_load_pandas():
    code = (
        "from tealeaves.coherence import RefIndex, score\n"
        "from tealeaves.corpus import Corpus, Vocabulary\nimport numpy as np\n"
        "vocab = Vocabulary(['apple', 'pear', 'plum'])\n"
        "corpus = Corpus(vocab, np.array([0, 1, 2, 0, 1]), np.array([0, 3, 5]))\n"
        "score([['apple', 'pear', 'plum']], RefIndex.build(corpus), measure='npmi')"
    )
    assert "pandas" not in modules_after(code)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_to_its_source(package):
    module = importlib.import_module(package)
    table = _type_checking_imports(Path(module.__file__).read_text(encoding="utf-8"))
    assert sorted(set(module.__all__) - {"__version__"}) == sorted(table)
    for name, (source, attribute) in table.items():
        expected = importlib.import_module(f"{source}.{attribute}") if source == package else None
        if expected is None:
            expected = getattr(importlib.import_module(source), attribute)
        assert getattr(module, name) is expected, name


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        _ = tealeaves.nonsense


def test_one_version_source():
    from importlib import metadata

    assert metadata.version("tealeaves") == tealeaves.__version__
