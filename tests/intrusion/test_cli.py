"""``tealeaves intrusion``: the API's numbers as JSON or CSV; bad input exits 2 and writes nothing."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.coherence import RefIndex
from tealeaves.corpus import Vocabulary
from tealeaves.intrusion import auto_word_intrusion, compare_word_intrusion
from tealeaves.likelihood import synthetic_corpus
from tealeaves.models import TopicModel

runner = CliRunner()
K, V = 6, 240


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("intrusion-cli")
    rng = np.random.default_rng(5)
    phi = np.full((K, V), 1e-3)
    for k in range(K):
        phi[k, k * 40 : (k + 1) * 40] += rng.dirichlet(np.full(40, 0.5))
    model = TopicModel(Vocabulary([f"t{i:03d}" for i in range(V)]), phi / phi.sum(axis=1, keepdims=True))
    model.save(root / "model")
    synthetic_corpus(model, np.full(K, 0.1), n_docs=300, doc_length=60, seed=2).save(root / "ref")
    assert invoke("index", root / "ref", "--out", root / "idx").exit_code == 0
    model.topics(60).save(root / "topics.txt")
    return root


def test_model_to_json_equals_the_api(folders):
    out = folders / "wi.json"
    result = invoke(
        "intrusion", folders / "model", "--index", folders / "idx", "--draws", "3", "--seed", "2", "-o", out
    )
    assert result.exit_code == 0, result.output
    assert "WI-Auto-PMI" in result.stdout and "WI-Auto-NPMI" in result.stdout and "mean" in result.stdout
    data = json.loads(out.read_text())
    expected = auto_word_intrusion(TopicModel.load(folders / "model"), RefIndex.load(folders / "idx"), seed=2, draws=3)
    assert data["per_topic"] == pytest.approx(expected.per_topic.tolist())
    assert data["model_means"] == pytest.approx(expected.model_means)
    assert data["settings"]["folds"] == K  # fewer topics than 10 folds: leave one topic out


def test_topic_file_with_options_to_csv(folders):
    out = folders / "wi.csv"
    args = [
        "--window",
        "10",
        "--compat",
        "lau",
        "-c",
        "1",
        "--folds",
        "3",
        "--association",
        "npmi",
        "--protocol",
        "hoyle",
    ]
    result = invoke("intrusion", folders / "topics.txt", "-i", folders / "idx", *args, "--out", out)
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(out)
    assert len(frame) == K * 8 and frame["fold"].nunique() == 3
    expected = auto_word_intrusion(
        [line.split() for line in (folders / "topics.txt").read_text().splitlines()],
        RefIndex.load(folders / "idx"),
        window=10,
        compat="lau",
        c=1.0,
        folds=3,
        association="npmi",
        protocol="hoyle",
    )
    np.testing.assert_allclose(frame.groupby("topic")["hit_npmi"].mean(), expected.per_topic)


def test_several_models_are_compared_with_one_svm(folders):
    out = folders / "both.json"
    result = invoke("intrusion", folders / "model", folders / "topics.txt", "-i", folders / "idx", "--out", out)
    assert result.exit_code == 0, result.output
    assert "WI-Auto per model, one SVM per fold for all" in result.stdout
    data = json.loads(out.read_text())
    expected = compare_word_intrusion(
        {
            "model": TopicModel.load(folders / "model"),
            "topics": [line.split() for line in (folders / "topics.txt").read_text().splitlines()],
        },
        RefIndex.load(folders / "idx"),
    )
    assert list(data["models"]) == ["model", "topics"]
    assert data["model_means"]["topics"] == pytest.approx(expected["topics"].model_means)
    assert data["models"]["model"]["settings"]["models"] == ["model", "topics"]
    result = invoke(
        "intrusion", folders / "model", folders / "topics.txt", "-i", folders / "idx", "-o", folders / "b.csv"
    )
    frame = pd.read_csv(folders / "b.csv")
    assert list(frame["model"].unique()) == ["model", "topics"] and len(frame) == 2 * K * 8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--association", "lcp"], "association must be"),
        (["--folds", "1"], "folds must be"),
        (["--on-missing", "skip"], "on_missing must be"),
        (["--window", "context:5"], "context windows"),
        (["--protocol", "mine"], "protocol must be"),
        (["--draws", "0"], "word intrusion needs draws >= 1, got 0"),
    ],
)
def test_bad_options_exit_2_and_write_nothing(folders, args, message):
    out = folders / "never.json"
    result = invoke("intrusion", folders / "model", "-i", folders / "idx", *args, "--out", out)
    assert result.exit_code == 2 and message in result.output
    assert not out.exists()


def test_bad_paths_exit_2(folders):
    result = invoke("intrusion", folders / "model", "-i", folders / "idx", "--out", folders / "wi.txt")
    assert result.exit_code == 2 and "--out must end in .json or .csv" in result.output
    result = invoke("intrusion", folders / "model", "-i", folders / "nowhere")
    assert result.exit_code == 2 and "nowhere" in result.output
    (folders / "strangers.txt").write_text("a b c d e f\ng h i j k l\n")
    result = invoke("intrusion", folders / "strangers.txt", "-i", folders / "idx")
    assert result.exit_code == 2 and "missing from the reference index" in result.output
