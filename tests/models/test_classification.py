"""Document classification on θ: the folds, the scores by hand, OCTIS's held-out protocol, refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from tealeaves.cli import app
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InputError, MissingDependencyError
from tealeaves.models import ClassificationResult, TopicModel, classify, train
from tests.models.planted import lda_corpus

pytest.importorskip("sklearn")

runner = CliRunner()


@pytest.fixture(scope="module")
def labelled():
    """A planted LDA corpus whose documents are labelled by their dominant true topic (three classes,
    grouped from six topics), an lda-gibbs model of its training part, and the held-out part."""
    corpus, _, theta = lda_corpus(k=6, v=120, n_docs=300, length=40, seed=2)
    names = np.array(["sport", "politics", "science"])
    metadata = [{"group": str(names[t % 3])} for t in theta.argmax(axis=1)]
    corpus = Corpus(corpus.vocab, corpus.tokens, corpus.offsets, metadata=metadata)
    training, heldout = corpus.split(0.25, seed=0)
    model = train(training, "lda-gibbs", k=6, seed=0, iterations=60)
    return model, training, heldout


def by_hand(truth: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """Accuracy, and macro precision, recall and F1 from the per-class counts (0 where undefined)."""
    classes = sorted(set(truth) | set(predicted))
    precision, recall, f1 = [], [], []
    for c in classes:
        tp = sum(t == c and p == c for t, p in zip(truth, predicted))
        fp = sum(t != c and p == c for t, p in zip(truth, predicted))
        fn = sum(t == c and p != c for t, p in zip(truth, predicted))
        precision.append(tp / (tp + fp) if tp + fp else 0.0)
        recall.append(tp / (tp + fn) if tp + fn else 0.0)
        f1.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return {
        "accuracy": sum(t == p for t, p in zip(truth, predicted)) / len(truth),
        "precision": float(np.mean(precision)),
        "recall": float(np.mean(recall)),
        "f1": float(np.mean(f1)),
    }


def test_cross_validation_predicts_every_document_once_in_stratified_folds(labelled):
    model, training, _ = labelled
    result = classify(model, training, "group", folds=5, seed=3)
    labels = np.array([meta["group"] for meta in training.metadata])
    np.testing.assert_array_equal(result.documents, np.arange(len(training)))
    np.testing.assert_array_equal(result.truth, labels)
    assert sorted(np.bincount(result.fold).tolist()) == [45, 45, 45, 45, 45]
    for c in result.classes:  # each class's documents spread over the folds within one
        counts = np.bincount(result.fold[labels == c], minlength=5)
        assert counts.max() - counts.min() <= 1
    for name, value in by_hand(result.truth, result.predicted).items():
        assert getattr(result, name) == pytest.approx(value, abs=1e-12)
    assert result.accuracy > 0.8  # the labels follow the planted topics, which θ recovers
    again = classify(model, training, "group", folds=5, seed=3)
    np.testing.assert_array_equal(again.fold, result.fold)
    np.testing.assert_array_equal(again.predicted, result.predicted)
    assert not np.array_equal(classify(model, training, "group", folds=5, seed=4).fold, result.fold)


def test_micro_averages_equal_the_accuracy_and_weighted_ones_weigh_by_class(labelled):
    model, training, _ = labelled
    micro = classify(model, training, "group", average="micro")
    assert micro.f1 == micro.precision == micro.recall == pytest.approx(micro.accuracy)
    weighted = classify(model, training, "group", average="weighted")
    np.testing.assert_array_equal(weighted.predicted, micro.predicted)
    truth, predicted = weighted.truth, weighted.predicted
    recall = [np.mean(predicted[truth == c] == c) for c in weighted.classes]
    share = [np.mean(truth == c) for c in weighted.classes]
    assert weighted.recall == pytest.approx(np.dot(recall, share))


def test_the_held_out_protocol_is_octis_svm_on_standardised_theta(labelled):
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    model, training, heldout = labelled
    result = classify(model, training, "group", heldout=heldout, seed=5)
    x_train, y_train = model.theta, [meta["group"] for meta in training.metadata]
    x_test = model.infer(heldout, seed=5)
    scaler = StandardScaler().fit(x_train)
    expected = LinearSVC(dual=False).fit(scaler.transform(x_train), y_train).predict(scaler.transform(x_test))
    np.testing.assert_array_equal(result.predicted, expected)
    np.testing.assert_array_equal(result.documents, np.arange(len(heldout)))
    assert (result.protocol, result.fold, result.folds, result.n_train) == ("held-out", None, None, len(training))
    assert "fold" not in result.columns()
    unscaled = classify(model, training, "group", heldout=heldout, seed=5, scale=False)
    np.testing.assert_array_equal(unscaled.predicted, LinearSVC(dual=False).fit(x_train, y_train).predict(x_test))


def test_inferred_theta_of_any_corpus(labelled):
    model, _, heldout = labelled
    result = classify(model, heldout, "group", infer=True, folds=3, seed=1)
    assert len(result.documents) == len(heldout) and result.accuracy > 0.6


def test_documents_without_the_label_are_left_out_and_counted():
    theta = np.array([[0.9, 0.1], [0.8, 0.2], [0.5, 0.5], [0.2, 0.8], [0.1, 0.9], [0.15, 0.85], [0.85, 0.15]])
    meta = [{"side": "a"}, {"side": "a"}, {}, {"side": "b"}, {"side": "b"}, {"side": ""}, {"side": None}]
    corpus = Corpus.from_documents([[0, 1]] * 7, Vocabulary(["x", "y"]), metadata=meta)
    model = TopicModel(corpus.vocab, np.array([[0.9, 0.1], [0.1, 0.9]]), theta=theta)
    result = classify(model, corpus, "side", folds=2)
    assert result.unlabelled == 3 and result.documents.tolist() == [0, 1, 3, 4]
    assert result.accuracy == 1.0 and result.classes == ("a", "b")


@pytest.fixture
def small():
    theta = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.3, 0.7], [0.2, 0.8], [0.1, 0.9]])
    meta = [{"party": p, "year": 1990} for p in ["left"] * 3 + ["right"] * 3]
    corpus = Corpus.from_documents([[0, 1]] * 6, Vocabulary(["tax", "war"]), metadata=meta)
    return TopicModel(corpus.vocab, np.array([[0.9, 0.1], [0.1, 0.9]]), theta=theta), corpus


@pytest.mark.parametrize(
    ("label", "options", "message"),
    [
        ("newsgroup", {}, r"no document has the metadata field 'newsgroup'; the documents' fields are: party, year"),
        ("year", {}, r"every labelled document has year = '1990'; classification needs two or more classes"),
        ("party", {"folds": 1}, "folds must be an integer of at least 2"),
        ("party", {"folds": 7}, "6 labelled documents cannot be split into 7 folds"),
        ("party", {"average": "samples"}, "unknown average 'samples'; choose one of macro, micro, weighted"),
    ],
)
def test_bad_input_is_refused(small, label, options, message):
    model, corpus = small
    with pytest.raises(InputError, match=message):
        classify(model, corpus, label, **options)


def test_theta_must_be_of_the_corpus(small, labelled):
    model, corpus = small
    with pytest.raises(InputError, match=r"has no θ of its training documents.*--infer"):
        classify(TopicModel(model.vocab, model.phi, kind="imported"), corpus, "party")
    with pytest.raises(InputError, match=r"θ is of 6 training documents, not of this corpus of 2"):
        classify(model, corpus.subset([0, 5]), "party")
    trained, training, _ = labelled
    with pytest.raises(InputError, match="not of this corpus"):  # as many documents, but not those it was trained on
        classify(trained, training.subset(np.arange(len(training))[::-1]), "group")


def test_without_scikit_learn_the_extra_is_named(small, monkeypatch):
    model, corpus = small
    monkeypatch.setitem(__import__("sys").modules, "sklearn", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tealeaves\[classification\]'$"):
        classify(model, corpus, "party")


def test_result_table_and_display(small):
    result = classify(*small, "party", folds=3)
    assert isinstance(result, ClassificationResult)
    assert list(result.columns()) == ["document", "label", "predicted", "correct", "fold"]
    assert result.correct.tolist() == [True] * 6
    assert "f1 (macro)" in result._repr_html_()
    assert json.loads(json.dumps(result.to_dict()))["predicted"][0] == "left"


def test_cli_classifies_writes_and_refuses(labelled, tmp_path):
    model, training, heldout = labelled
    model.save(tmp_path / "model")
    training.save(tmp_path / "train")
    heldout.save(tmp_path / "heldout")
    args = ["classify", tmp_path / "model", tmp_path / "train", "--label", "group", "--out", tmp_path / "c.csv"]
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.stdout and "cross-validation" in result.stdout
    expected = classify(model, training, "group")
    lines = (tmp_path / "c.csv").read_text().splitlines()
    assert lines[0] == "document,label,predicted,correct,fold"
    assert [line.split(",")[2] for line in lines[1:]] == expected.predicted.tolist()
    args = ["classify", tmp_path / "model", tmp_path / "train", "-l", "group", "--heldout", tmp_path / "heldout"]
    result = runner.invoke(app, [*map(str, args), "--average", "micro", "--seed", "5", "--json"])
    data = json.loads(result.stdout)
    held = classify(model, training, "group", heldout=heldout, seed=5, average="micro")
    assert data["accuracy"] == pytest.approx(held.accuracy) and data["f1"] == pytest.approx(held.accuracy)
    result = runner.invoke(app, ["classify", str(tmp_path / "model"), str(tmp_path / "train"), "--label", "topic"])
    assert result.exit_code == 2 and "no document has the metadata field 'topic'" in result.stderr
