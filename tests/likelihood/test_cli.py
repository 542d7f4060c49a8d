"""``tealeaves likelihood`` and ``tealeaves predictive``: files written, errors exit 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.likelihood import estimate, synthetic_corpus
from tealeaves.models import TopicModel

from .tiny import peaked_model

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    phi, alpha = peaked_model(3, 20, seed=1)
    model = TopicModel(Vocabulary([f"w{i}" for i in range(20)]), phi, alpha=alpha, kind="lda-gibbs")
    model.save(folder / "model")
    TopicModel(model.vocab, phi, kind="plsi").save(folder / "plsi")
    synthetic_corpus(model, None, 12, 15, seed=2).save(folder / "heldout")
    Corpus.from_documents([[0, 1, 2]], Vocabulary(["w0", "w1", "zz"])).save(folder / "oov")
    return folder


def assert_refused(result, message):
    assert result.exit_code == 2, result.output
    assert message in result.stderr and result.stderr.strip().count("\n") == 0


def test_likelihood_writes_per_document_json(saved, tmp_path):
    out = tmp_path / "r.json"
    result = invoke("likelihood", saved / "model", saved / "heldout", "-m", "chib", "-p", "samples=50", "--out", out)
    assert result.exit_code == 0, result.output
    assert "total log probability" in result.stdout
    data = json.loads(out.read_text())
    model = TopicModel.load(saved / "model")
    expected = estimate(model, None, Corpus.load(saved / "heldout"), method="chib", samples=50)
    assert data["label"] == "CS" and np.allclose(data["log_prob"], expected.log_prob)


def test_likelihood_completion_and_runs_to_csv(saved, tmp_path):
    out = tmp_path / "r.csv"
    args = ["--complete", "alternate", "--runs", "3", "-p", "variant=wallach", "-p", "particles=4", "--out", out]
    result = invoke("likelihood", saved / "model", saved / "heldout", *args)
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(out)
    assert len(frame) == 12 and {"run_0", "run_2"} <= set(frame.columns) and (frame.n_tokens == 7).all()
    assert "bootstrap sd of the total" in result.stdout


def test_predictive_command(saved, tmp_path):
    out = tmp_path / "p.csv"
    result = invoke("predictive", saved / "model", saved / "heldout", "--split", "first-half", "--out", out)
    assert result.exit_code == 0, result.output
    assert "predictive rank" in result.stdout and len(pd.read_csv(out)) == 12
    assert_refused(invoke("predictive", saved / "model", saved / "oov"), "pass --skip-oov to drop")
    skipped = invoke("predictive", saved / "model", saved / "oov", "--skip-oov", "--json")
    assert skipped.exit_code == 0, skipped.output
    summary = json.loads(skipped.stdout)
    assert summary["tokens scored"] == 2 and summary["tokens outside the model's vocabulary (dropped)"] == 1


def test_likelihood_refusals(saved, tmp_path):
    assert_refused(invoke("likelihood", saved / "plsi", saved / "heldout"), "has none")
    assert_refused(invoke("likelihood", saved / "model", saved / "heldout", "-m", "magic"), "unknown method")
    assert_refused(invoke("likelihood", saved / "model", saved / "heldout", "-p", "samples=3"), "no parameter samples")
    assert_refused(
        invoke("likelihood", saved / "model", saved / "heldout", "--out", tmp_path / "r.txt"), ".json or .csv"
    )
    assert_refused(invoke("likelihood", saved / "model", saved / "oov"), "pass --skip-oov to drop")
    assert_refused(invoke("likelihood", saved / "model", tmp_path / "absent"), "not a tealeaves artifact")
    assert not list(tmp_path.iterdir())
    skipped = invoke("likelihood", saved / "model", saved / "oov", "--skip-oov")
    assert skipped.exit_code == 0 and "out-of-vocabulary tokens dropped" in skipped.stdout
