"""The index, coherence and diversity commands; bad input exits 2 and writes nothing."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.coherence import RefIndex, score
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.models import TopicModel

runner = CliRunner()
WORDS = [f"w{i}" for i in range(12)]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(3)
    docs = [rng.choice(range(6) if d % 2 else range(6, 12), size=30) for d in range(40)]
    Corpus.from_documents(docs, Vocabulary(WORDS)).save(root / "ref")
    (root / "topics.txt").write_text("w0 w1 w2 w3\nw6 w7 w8 w9\n")
    phi = np.full((2, 12), 0.01)
    phi[0, :6] = [0.3, 0.2, 0.1, 0.1, 0.1, 0.14]
    phi[1, 6:] = [0.3, 0.2, 0.1, 0.1, 0.1, 0.14]
    TopicModel(Vocabulary(WORDS), phi / phi.sum(axis=1, keepdims=True)).save(root / "model")
    return root


def test_index_then_coherence_of_a_topic_file(folders):
    result = invoke("index", folders / "ref", "--out", folders / "idx")
    assert result.exit_code == 0, result.output
    assert "index / token array" in result.stdout
    result = invoke("coherence", folders / "topics.txt", "--index", folders / "idx", "--out", folders / "npmi.json")
    assert result.exit_code == 0, result.output
    data = json.loads((folders / "npmi.json").read_text())
    expected = score([WORDS[:4], WORDS[6:10]], RefIndex.load(folders / "idx"))
    assert data["per_topic"] == pytest.approx(expected.per_topic.tolist())
    assert "w0 w1 w2 w3" in result.stdout


def test_coherence_of_a_model_with_options_to_csv(folders):
    if not (folders / "idx").exists():
        RefIndex.build(folders / "ref", out=folders / "idx")
    out = folders / "cv.csv"
    args = ["coherence", folders / "model", "-i", folders / "idx", "-m", "c_v", "-n", "3", "-n", "5", "--window", "20"]
    result = invoke(*args, "--compat", "gensim", "--out", out)
    assert result.exit_code == 0, result.output
    frame = pd.read_csv(out)
    assert sorted(frame["topn"].unique()) == [3, 5] and set(frame["w_star"]) == {"*"}
    result = invoke("coherence", folders / "model", "-i", folders / "idx", "-m", "uci", "--log-base", "10", "-n", "4")
    assert result.exit_code == 0 and "uci, sliding:10, top 4" in result.stdout


def test_diversity_command(folders):
    result = invoke(
        "diversity",
        folders / "topics.txt",
        "--diversity-topn",
        "4",
        "--uniqueness-topn",
        "4",
        "--filter-topn",
        "4",
        "--overlap-topn",
        "2",
    )
    assert result.exit_code == 0, result.output
    assert "topic uniqueness (top 4)" in result.stdout and "redundant" in result.stdout
    result = invoke("diversity", folders / "model", "--diversity-topn", "6", "--out", folders / "div.json")
    assert result.exit_code == 0, result.output
    assert json.loads((folders / "div.json").read_text())["uniqueness_topn"] == 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--measure", "coolness"], "unknown coherence measure"),
        (["--on-missing", "ignore"], "on_missing must be"),
        (["--out", "scores.txt"], "--out must end in .json or .csv"),
        (["--window", "wide"], "cannot read the window"),
        (["--compat", "palmetto"], "compat must be"),
    ],
)
def test_bad_coherence_arguments_exit_2(folders, tmp_path, args, message):
    if not (folders / "idx").exists():
        RefIndex.build(folders / "ref", out=folders / "idx")
    result = invoke("coherence", folders / "topics.txt", "--index", folders / "idx", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and result.stderr.strip().count("\n") == 0


def test_a_reference_that_is_another_artifact_is_named_as_such(folders):
    """The index given a model folder says what a reference corpus is, not "pass a corpus folder"."""
    for command in ("coherence", "intrusion"):
        result = invoke(command, folders / "topics.txt", "--index", folders / "model")
        assert result.exit_code == 2, result.output
        assert "holds a 'topic-model' artifact, not a reference corpus; pass a folder written by tealeaves index" in (
            result.stderr
        )
    result = invoke("coherence", folders / "topics.txt", "--index", folders / "ref")  # a corpus is indexed
    assert result.exit_code == 0, result.output


def test_missing_words_exit_2_and_write_nothing(folders, tmp_path):
    (tmp_path / "t.txt").write_text("w0 zebra w2\n")
    if not (folders / "idx").exists():
        RefIndex.build(folders / "ref", out=folders / "idx")
    result = invoke("coherence", tmp_path / "t.txt", "--index", folders / "idx", "--out", tmp_path / "r.json")
    assert result.exit_code == 2 and "'zebra' (topic 0, not in the index vocabulary)" in result.stderr
    assert not (tmp_path / "r.json").exists()
    result = invoke("coherence", tmp_path / "t.txt", "-i", folders / "idx", "--on-missing", "skip")
    assert result.exit_code == 0 and "missing: topic 0 'zebra'" in result.stderr


def test_skip_reports_unscored_topics_and_averages_the_rest(folders, tmp_path):
    # Defect 8: a topic keeping one known word no longer fails the batch; it is counted and listed
    (tmp_path / "t.txt").write_text("w0 w1 w2\nw6 zebra yak\nw7 w8 gnu w9\n")
    if not (folders / "idx").exists():
        RefIndex.build(folders / "ref", out=folders / "idx")
    result = invoke(
        "coherence", tmp_path / "t.txt", "-i", folders / "idx", "--on-missing", "skip", "-o", tmp_path / "r.json"
    )
    assert result.exit_code == 0, result.output
    assert "3 topic word(s) missing from the index (on_missing=skip)" in result.stderr
    assert "1 of 3 topic(s) not scored (NaN), left out of the model mean: 1" in result.stderr
    assert "not scored: topic 1 (has only 1 word found in the reference corpus" in result.stderr
    assert "95% CI, t over 2 scored topics; 1 not scored" in " ".join(result.stdout.split())
    data = json.loads((tmp_path / "r.json").read_text())
    expected = score([["w0", "w1", "w2"], ["w7", "w8", "w9"]], RefIndex.load(folders / "idx"))
    assert data["per_topic"][1] is None
    assert [data["per_topic"][0], data["per_topic"][2]] == pytest.approx(expected.per_topic.tolist(), rel=1e-12)
    assert data["model_mean"] == pytest.approx(expected.model_mean, rel=1e-12)
    assert [1, "*"] in [entry[:2] for entry in data["missing"]]


def test_index_refuses_a_non_corpus_and_an_existing_output(folders, tmp_path):
    result = invoke("index", folders / "model", "--out", tmp_path / "i")
    assert result.exit_code == 2 and "not a 'corpus'" in result.stderr
    (tmp_path / "taken").mkdir()
    result = invoke("index", folders / "ref", "--out", tmp_path / "taken")
    assert result.exit_code == 2 and "--force" in result.stderr
    assert list((tmp_path / "taken").iterdir()) == []
