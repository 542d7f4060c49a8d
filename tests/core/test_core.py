"""The lean install: what ``pip install tealeaves`` (no extra) must do, run in ``.venv-core`` by ``make test-core``.

Every module imports, or fails only for a package of a declared extra; a tokenized reference
corpus is read without spaCy, indexed and scored (``tealeaves coherence``, ``diversity``), a
model trained by a core trainer is scored on held-out documents (``tealeaves likelihood``),
and every command that needs an extra refuses in one line naming it. The tests also pass in
the full environment, where the refusals that need a package to be absent are skipped.
"""

from __future__ import annotations

import csv
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import tealeaves
from tealeaves.cli import app
from tealeaves.errors import MissingDependencyError
from tealeaves.extras import EXTRAS, installed

pytestmark = pytest.mark.core
runner = CliRunner()

# packages of the extras that tealeaves modules import at their top (besides EXTRAS' own)
EXTRA_DEPENDENCIES = {"starlette", "transformers", "tomli"}
# the packages that only an extra makes work; every other module is the core's
EXTRA_PACKAGES = tuple(
    f"tealeaves.{name}"
    for name in ("analysis", "study", "evaluation", "model_selection", "reporting", "demo", "models.neural")
)
FRUIT = ["apple", "banana", "cherry", "grape", "melon", "peach"]
METAL = ["iron", "steel", "copper", "zinc", "tin", "lead"]


def invoke(*args: object) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


# imports every module in a fresh interpreter (a failed import can leave half a package behind)
IMPORT_ALL = """
import importlib, json, pkgutil, tealeaves
from tealeaves.errors import MissingDependencyError
outcome = {}
for info in pkgutil.walk_packages(tealeaves.__path__, "tealeaves."):
    if info.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(info.name)
    except MissingDependencyError as exc:
        outcome[info.name] = ["extra", str(exc)]
    except ImportError as exc:
        outcome[info.name] = ["missing", (exc.name or "").split(".")[0], str(exc)]
    else:
        outcome[info.name] = ["ok"]
print(json.dumps(outcome))
"""


def test_every_module_imports_or_names_an_extra():
    extra_modules = {m for _, modules in EXTRAS.values() for m in modules} | EXTRA_DEPENDENCIES
    done = subprocess.run([sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True, check=True)
    outcome = json.loads(done.stdout)
    assert len(outcome) > 100 and outcome["tealeaves.coherence.scoring"] == ["ok"]
    for name, (status, *detail) in outcome.items():
        if status == "extra":  # a package of an extra refusing, in one line
            assert re.fullmatch(r".* needs .*: pip install 'tealeaves\[\w+\]'", detail[0]), detail
        elif status == "missing":
            assert detail[0] in extra_modules, f"{name} needs {detail[0] or detail[1]}, which no extra declares"
        if status != "ok":
            assert name.startswith(EXTRA_PACKAGES), f"{name} is in the core but fails: {detail}"


def test_help_lists_every_command():
    shown = subprocess.run(
        [sys.executable, "-m", "tealeaves.cli", "--help"], capture_output=True, text=True, check=True
    )
    for command in app.registered_commands:
        assert (command.name or command.callback.__name__).replace("_", "-") in shown.stdout
    for group in ("study",):
        assert group in shown.stdout


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Tokenized texts, gensim style: one document a line, tokens separated by spaces."""
    folder = tmp_path_factory.mktemp("texts")
    rng = np.random.default_rng(0)
    docs = [" ".join(rng.choice(FRUIT if d % 2 else METAL, size=12)) for d in range(40)]
    (folder / "train.txt").write_text("\n".join(docs) + "\n", encoding="utf-8")
    # held out: single tokens (their probability is exact) and a word the training texts lack
    (folder / "heldout.txt").write_text("apple\nsteel\n\ncopper unseen\n", encoding="utf-8")
    (folder / "topics.txt").write_text(" ".join(FRUIT[:4]) + "\n" + " ".join(METAL[:4]) + "\n", encoding="utf-8")
    return folder


def test_tokenized_texts_are_indexed_and_scored_without_spacy(texts, tmp_path):
    invoke("prepare", texts / "train.txt", "--format", "tokenized", "--out", tmp_path / "ref")
    invoke("index", tmp_path / "ref", "--out", tmp_path / "index")
    invoke(
        "coherence", texts / "topics.txt", "--index", tmp_path / "index", "-m", "npmi", "--window", "document",
        "--out", tmp_path / "npmi.csv",
    )  # fmt: skip
    documents = [set(line.split()) for line in (texts / "train.txt").read_text().splitlines()]
    n = len(documents)
    rows = read_csv(tmp_path / "npmi.csv")
    assert len(rows) == 2 * 12  # one-one: every ordered pair of each topic's 4 words
    for row in rows:
        a, b = row["w_prime"], row["w_star"]
        count_a, count_b = sum(a in d for d in documents), sum(b in d for d in documents)
        joint = sum(a in d and b in d for d in documents)
        assert (int(row["count_prime"]), int(row["count_star"]), int(row["count_joint"])) == (count_a, count_b, joint)
        p_ab = joint / n
        npmi = math.log(p_ab / (count_a / n * count_b / n)) / -math.log(p_ab)
        assert float(row["value"]) == pytest.approx(npmi, rel=1e-9, abs=1e-9)

    invoke("diversity", texts / "topics.txt", "--out", tmp_path / "div.csv", "--uniqueness-topn", "4",
           "--diversity-topn", "4", "--filter-topn", "4", "--overlap-topn", "4")  # fmt: skip
    assert [float(r["uniqueness"]) for r in read_csv(tmp_path / "div.csv")] == [1.0, 1.0]  # no word shared


def test_imported_topic_lists_are_scored_like_the_file(texts, tmp_path):
    invoke("prepare", texts / "train.txt", "--format", "tokenized", "--out", tmp_path / "ref")
    invoke("index", tmp_path / "ref", "--out", tmp_path / "index")
    (texts_with_gap := tmp_path / "topics.txt").write_text(
        (texts / "topics.txt").read_text() + "apple unseen\n", encoding="utf-8"
    )
    invoke("import", "topics", texts_with_gap, "--vocab-from", tmp_path / "ref", "--out", tmp_path / "imported")
    manifest = json.loads((tmp_path / "imported" / "manifest.json").read_text())
    assert manifest["kind"] == "topics" and manifest["n_topics"] == 3
    assert manifest["meta"]["import"]["vocabulary_alignment"]["missing_examples"] == ["unseen"]
    scores = {}
    for name, topics in (("file", texts_with_gap), ("imported", tmp_path / "imported")):
        out = tmp_path / f"{name}.json"
        invoke("coherence", topics, "--index", tmp_path / "index", "--on-missing", "skip", "--out", out)
        scores[name] = json.loads(out.read_text())["per_topic"]
    assert scores["file"] == scores["imported"] and len(scores["file"]) == 3


def test_likelihood_of_heldout_documents(texts, tmp_path):
    from tealeaves.corpus import Corpus
    from tealeaves.models import TopicModel

    invoke("prepare", texts / "train.txt", "--format", "tokenized", "--out", tmp_path / "train")
    invoke("prepare", texts / "heldout.txt", "--format", "tokenized", "--vocab-from", tmp_path / "train",
           "--out", tmp_path / "heldout")  # fmt: skip
    heldout = Corpus.load(tmp_path / "heldout")
    assert heldout.ids == ["heldout.txt:1", "heldout.txt:2", "heldout.txt:4"]  # the empty line is no document
    assert heldout.manifest["preprocessing"]["tokens"]["not_in_vocabulary"] == 1  # "unseen"
    invoke("train", tmp_path / "train", "--model", "lda-vb", "-k", "2", "--out", tmp_path / "model")
    invoke("likelihood", tmp_path / "model", tmp_path / "heldout", "--out", tmp_path / "lr.csv")
    rows = read_csv(tmp_path / "lr.csv")
    model = TopicModel.load(tmp_path / "model")
    prior_mean = model.alpha / model.alpha.sum()
    for row, word in zip(rows[:2], ("apple", "steel")):  # one token: log sum_k E[theta_k] phi_kw, exactly
        exact = math.log(prior_mean @ model.phi[:, model.vocab.id(word)])
        assert float(row["log_prob"]) == pytest.approx(exact, rel=1e-9)
    assert int(rows[2]["n_tokens"]) == 1 and float(rows[2]["log_prob"]) < 0


def refused(args: list[object], extra: str) -> str:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 2, result.output
    line = result.stderr.rstrip("\n")
    assert "\n" not in line and line.endswith(f"pip install 'tealeaves[{extra}]'"), result.stderr  # one line
    return line


def absent(module: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(installed(module), reason=f"{module} is installed here (the core venv lacks it)")


@absent("spacy")
def test_raw_texts_need_prepare(texts, tmp_path):
    refused(["prepare", texts / "train.txt", "--out", tmp_path / "c"], "prepare")


def test_gibbs_lda_trains_in_the_core(texts, tmp_path):
    # tealeaves' own sampler: no extra (tomotopy is not in the core venv)
    from tealeaves.models import TopicModel

    invoke("prepare", texts / "train.txt", "--format", "tokenized", "--out", tmp_path / "c")
    invoke("train", tmp_path / "c", "--model", "lda-gibbs", "-k", "2", "--iterations", "20", "--out", tmp_path / "m")
    model = TopicModel.load(tmp_path / "m")
    assert model.kind == "lda-gibbs" and model.manifest["training"]["hyperparameters"] == []


@absent("fastapi")
def test_studies_need_study(tmp_path):
    refused(["study", "serve", tmp_path / "s"], "study")


@absent("fastapi")
def test_importing_the_study_app_names_the_install():
    """``import tealeaves.study.app`` (the web app's module) in the core install: one MissingDependencyError with the
    pip line, not a bare ModuleNotFoundError from FastAPI's import."""
    src = Path(tealeaves.__file__).parent
    module = "tealeaves.study.web.app" if (src / "study" / "web" / "app.py").is_file() else "tealeaves.study.app"
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and last.startswith(f"tealeaves.errors.MissingDependencyError: {module} needs")
    assert last.endswith("not installed: pip install 'tealeaves[study]'")


@absent("statsmodels")
@pytest.mark.parametrize("command", [["evaluate", "c.toml", "--out", "e"], ["analyze", "x.csv", "--out", "a"]])
def test_evaluation_and_analysis_need_report(command):
    refused(command, "report")


@absent("pandas")
def test_frames_need_frames_and_csv_does_not(texts, tmp_path):
    from tealeaves.coherence import diversity
    from tealeaves.models import Topics

    topics = Topics.load(texts / "topics.txt")
    result = diversity(topics, diversity_topn=4, uniqueness_topn=4, filter_topn=4, overlap_topn=4)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tealeaves\[frames\]'$"):
        result.to_frame()
    refused(["sweep", "s.toml", "--out", tmp_path / "w"], "sweep")


@absent("pandas")
@pytest.mark.parametrize(("name", "extra"), [("evaluate", "report"), ("Study", "study"), ("sweep", "sweep")])
def test_the_python_api_of_an_extra_names_it(name, extra):
    with pytest.raises(MissingDependencyError, match=rf"pip install 'tealeaves\[{extra}\]'$"):
        getattr(tealeaves, name)
